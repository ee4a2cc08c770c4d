// `--history <dir>`: each run adds its results.json there; the report reads the last runs back for
// its trends. One file per run, named by its start time and target so the folder sorts by time
// and a person can tell the files apart. Files that are not chainprobe results are left alone.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultsFile } from '../results.js';
import { isResultsFile } from './merge.js';
import { slug } from './units.js';

/** Runs the trends show, the current one included. */
export const HISTORY_RUNS = 20;

export function historyFileName(r: ResultsFile): string {
  return `${r.startedAt.replace(/[:.]/g, '-')}_${slug(r.target).slice(0, 80)}.json`;
}

/** The last `keep` runs in the folder, oldest first (a missing folder has none). */
export function readHistory(dir: string, keep = HISTORY_RUNS): ResultsFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const runs: ResultsFile[] = [];
  for (const name of names) {
    try {
      const v: unknown = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      if (isResultsFile(v)) runs.push(v);
    } catch {
      // not ours, or cut short: the trends skip it
    }
  }
  return runs.sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt)).slice(-keep);
}

export function addToHistory(dir: string, r: ResultsFile): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, historyFileName(r));
  writeFileSync(path, JSON.stringify(r));
  return path;
}

/** The earlier runs plus this one, oldest first, without this one twice (a re-written report). */
/** The report's history input for this run; the run itself is added to the folder by `keep`. */
export function historyOf(dir: string | undefined, current: ResultsFile): { runs?: ResultsFile[]; keep(): void } {
  if (!dir) return { keep: () => {} };
  return { runs: withCurrent(readHistory(dir), current), keep: () => void addToHistory(dir, current) };
}

export function withCurrent(earlier: readonly ResultsFile[], current: ResultsFile, keep = HISTORY_RUNS): ResultsFile[] {
  const name = historyFileName(current);
  return [...earlier.filter((r) => historyFileName(r) !== name), current].slice(-keep);
}
