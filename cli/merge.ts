// `npm run merge` (flags: MERGE below, also `--help`) - merges runs made elsewhere (CI
// matrix jobs, k6 runners' handleSummary output) into one index.html, results.json and junit.xml.
// A folder is searched (recursively) for chainprobe results files; the same run found twice is
// counted once, and the report says so.
// Exit: 0 no merged check failed or errored, 1 one did, 2 bad input (one line naming it).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exitWith, UsageError } from './fatal.js';
import { COMPILED } from '../src/package.js';
import { commandLine, defineCommand, isMain } from './args.js';
import { SUMMARY_MD_FLAG } from './flags.js';
import { prepareOutDir } from './outdir.js';
import { isResultsFile, mergeResults, type MergeInput } from '../src/fleet/merge.js';
import { exitCodeOf } from '../src/results.js';
import { countLines } from '../src/run-summary.js';
import { writeReports } from '../reports/write.js';

export const MERGE = defineCommand({
  invocation: 'npm run merge --',
  prefix: 'chainprobe merge',
  summary:
    "Merges runs made elsewhere (CI matrix jobs, k6 runners' results) into one index.html, results.json and junit.xml: " +
    'summaries add up, rules roll up, the same run given twice counts once.',
  flags: {
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: COMPILED ? 'chainprobe-report/merged' : 'reports/merged',
      help: 'where the merged index.html, results.json and junit.xml go',
    },
    'summary-md': SUMMARY_MD_FLAG,
  },
  positionals: {
    value: '<results.json or folder>...',
    help: "results files, or folders searched for them (CI artifacts, k6 runners' output)",
  },
  examples: ['npm run merge -- artifacts/ --out reports/merged', 'npm run merge -- eu/results.json us/results.json'],
  exit: [
    '0  no merged check failed or errored',
    '1  a merged check failed or errored',
    '2  bad input (a missing file, not a results file, bad flag)',
  ],
});

function parseJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`${path}: no such file`);
    // The parser's first line, without the excerpt of the file it quotes.
    const why = (e as Error).message.split('\n')[0]!.replace(/,\s*(?:\.\.\.)?".*$/s, '');
    throw new UsageError(`${path}: not valid JSON (${why})`);
  }
}

/** JSON files under a folder, depth-first, sorted (so the merge does not depend on the file system's order). */
function jsonFilesUnder(dir: string, depth = 0): string[] {
  if (depth > 8) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) =>
      e.isDirectory()
        ? jsonFilesUnder(join(dir, e.name), depth + 1)
        : e.isFile() && e.name.endsWith('.json') && !e.name.endsWith('timeline.json')
          ? [join(dir, e.name)]
          : [],
    );
}

export function readInputs(paths: readonly string[]): MergeInput[] {
  const inputs: MergeInput[] = [];
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      throw new UsageError(`${path}: no such file or folder`);
    }
    if (!isDir) {
      const v = parseJson(path);
      if (!isResultsFile(v))
        throw new UsageError(`${path}: not a chainprobe results.json (no tool, target, summary and checks)`);
      inputs.push({ source: path, results: v });
      continue;
    }
    const found = jsonFilesUnder(path).flatMap((file) => {
      let v: unknown;
      try {
        v = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        return []; // other JSON in an artifact folder is not ours to judge
      }
      return isResultsFile(v) ? [{ source: file, results: v }] : [];
    });
    if (!found.length) throw new UsageError(`${path}: no chainprobe results file in this folder`);
    inputs.push(...found);
  }
  return inputs;
}

async function main(): Promise<number> {
  const parsed = commandLine(MERGE);
  if (!parsed.positionals.length) throw new UsageError('give at least one results.json or folder of them');
  const out = parsed.values.out!;
  prepareOutDir(out);
  const merged = mergeResults(readInputs(parsed.positionals));
  await writeReports(out, { results: merged.results, timeline: [] });
  process.stdout.write(`chainprobe merge: ${merged.runs.length} run(s) of ${merged.results.target}\n`);
  for (const d of merged.duplicates)
    process.stdout.write(`  counted once: ${d.source} is the same run as ${d.sameRunAs}\n`);
  process.stdout.write(
    `${countLines(merged.results)
      .map((l) => `  ${l}\n`)
      .join('')}  report: ${resolve(out, 'index.html')}\n`,
  );
  if (parsed.values['summary-md']) {
    const { writeSummaryMd } = await import('../reports/summary-md.js');
    writeSummaryMd(merged.results, parsed.values['summary-md'], out);
  }
  return exitCodeOf(merged.results);
}

/** Runs the command on process.argv (npm run merge, or chainprobe merge). */
export function cli(): void {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(MERGE.prefix, e),
  );
}

if (isMain(import.meta.url)) cli();
