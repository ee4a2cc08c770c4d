// A results.json a command was given (compare's two runs, merge's inputs), read and checked: one
// wording, in every command, for what is wrong with it.
import { readFileSync } from 'node:fs';
import { UsageError } from './fatal.js';
import { isResultsFile } from '../src/fleet/merge.js';
import { formatOf, RESULTS_FORMAT, type ResultsFile } from '../src/results.js';

/** The file's JSON; a missing file, a folder, an unreadable file or bad JSON is a one-line UsageError. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`${path}: no such file`);
    if (code === 'EISDIR') throw new UsageError(`${path}: a folder; give its results.json`);
    // The parser's first line, without the excerpt of the file it quotes.
    const why = (e as Error).message.split('\n')[0]!.replace(/,\s*(?:\.\.\.)?".*$/s, '');
    throw new UsageError(`${path}: ${code ? `cannot read it (${code})` : `not valid JSON (${why})`}`);
  }
}

/** `v` as a chainprobe results file of the format this chainprobe reads; anything else is a UsageError naming `path`. */
export function ownResults(path: string, v: unknown): ResultsFile {
  if (!isResultsFile(v))
    throw new UsageError(`${path}: not a chainprobe results.json (no tool, target, summary and checks)`);
  const format = formatOf(v);
  if (format !== RESULTS_FORMAT)
    throw new UsageError(
      `${path}: results format ${JSON.stringify(format)}, written by chainprobe ${v.tool.version}; this chainprobe reads format ${RESULTS_FORMAT}`,
    );
  return v;
}

/** A results file read and checked (ownResults). */
export const readResults = (path: string): ResultsFile => ownResults(path, readJsonFile(path));
