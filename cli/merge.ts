// `npm run merge` (flags: MERGE below, also `--help`) - merges runs made elsewhere (CI
// matrix jobs, k6 runners' handleSummary output) into one index.html, results.json and junit.xml.
// A folder is searched (recursively) for chainprobe results files; the same run found twice is
// counted once, and the report says so. Files are read one at a time and every check is spooled to
// scratch files, read back rule by rule as the reports are written, so the peak memory does not
// grow with the number of runs (src/fleet/merge.ts, src/fleet/check-spool.ts).
// Exit: 0 no merged check failed or errored, 1 one did or none was checked, 2 bad input (one line naming it).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exitWith, UsageError } from './fatal.js';
import { INSTALLED } from '../src/package.js';
import { commandLine, defineCommand, isMain } from './args.js';
import { SUMMARY_MD_FLAG } from './flags.js';
import { METRICS_FLAGS, checkMetricsFlags, metricsAfterRun, type MetricsFlagValues } from './metrics-flags.js';
import { prepareOutDir } from './outdir.js';
import { isResultsFile, mergeResults, type MergeInput, type MergeOutcome } from '../src/fleet/merge.js';
import { CheckSpool } from '../src/fleet/check-spool.js';
import { exitCodeOf } from '../src/results.js';
import { ownResults, readResults } from './results-input.js';
import { nothingChecked, nothingCheckedLine } from '../src/coverage.js';
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
      default: INSTALLED ? 'chainprobe-report/merged' : 'reports/merged',
      help: 'where the merged index.html, results.json and junit.xml go',
    },
    'summary-md': SUMMARY_MD_FLAG,
    ...METRICS_FLAGS,
  },
  positionals: {
    value: '<results.json or folder>...',
    help: "results files, or folders searched for them (CI artifacts, k6 runners' output)",
  },
  examples: ['npm run merge -- artifacts/ --out reports/merged', 'npm run merge -- eu/results.json us/results.json'],
  exit: [
    '0  no merged check failed or errored, and at least one was checked',
    '1  a merged check failed or errored, or none was checked (every rule skipped: one line names why)',
    '2  bad input (a missing file, not a results file, a results file of another format version, bad flag)',
  ],
});

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

/** The results files named, or found under the folders named, each parsed when the merge reaches it. */
export function* readInputs(paths: readonly string[]): Generator<MergeInput> {
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      throw new UsageError(`${path}: no such file or folder`);
    }
    if (!isDir) {
      yield { source: path, results: readResults(path) };
      continue;
    }
    let found = 0;
    for (const file of jsonFilesUnder(path)) {
      let v: unknown;
      try {
        v = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        continue; // other JSON in an artifact folder is not ours to judge
      }
      if (!isResultsFile(v)) continue;
      found++;
      // A results file of another format is named, not passed over: the merge would miss a run.
      yield { source: file, results: ownResults(file, v) };
    }
    if (!found) throw new UsageError(`${path}: no chainprobe results file in this folder`);
  }
}

export interface Merged extends MergeOutcome {
  /** The two count lines (rules, checks) of the merged run. */
  counts: [string, string];
  /** --metrics or --pushgateway could not be done (its line is printed). */
  metricsFailed?: boolean;
}

/**
 * Merges the runs under `paths` and writes the merged index.html, results.json and junit.xml to
 * `out` (and the Markdown summary to `summaryMd`). The checks stay on disk while the reports are
 * written (src/fleet/check-spool.ts) and are gone when this settles: read what the outcome holds.
 */
export async function mergeInto(
  paths: readonly string[],
  out: string,
  summaryMd?: string,
  metrics: MetricsFlagValues = {},
): Promise<Merged> {
  const spool = new CheckSpool();
  try {
    const merged = mergeResults(readInputs(paths), new Date(), spool);
    // The merge counted the checks; why the rules of a merge that checked nothing were skipped is in them.
    if (merged.results.nothingChecked) merged.results.nothingChecked = nothingChecked(spool.rules(), spool.all());
    await writeReports(out, { results: merged.results, timeline: [], fullChecks: () => spool.full(), checks: spool });
    if (summaryMd) {
      const { writeSummaryMd } = await import('../reports/summary-md.js');
      writeSummaryMd(merged.results, summaryMd, out, process.env, spool);
    }
    const run = { results: merged.results, checks: spool.full(), exitStatus: exitCodeOf(merged.results) };
    const metricsFailed = await metricsAfterRun(MERGE.prefix, run, metrics);
    return { ...merged, counts: countLines(merged.results, spool), metricsFailed };
  } finally {
    spool.remove();
  }
}

async function main(): Promise<number> {
  const parsed = commandLine(MERGE);
  if (!parsed.positionals.length) throw new UsageError('give at least one results.json or folder of them');
  const out = parsed.values.out!;
  prepareOutDir(out);
  checkMetricsFlags(parsed.values);
  const merged = await mergeInto(parsed.positionals, out, parsed.values['summary-md'], parsed.values);
  process.stdout.write(`chainprobe merge: ${merged.runs.length} run(s) of ${merged.results.target}\n`);
  for (const d of merged.duplicates)
    process.stdout.write(`  counted once: ${d.source} is the same run as ${d.sameRunAs}\n`);
  process.stdout.write(`${merged.counts.map((l) => `  ${l}\n`).join('')}  report: ${resolve(out, 'index.html')}\n`);
  const nothing = merged.results.nothingChecked;
  if (nothing) process.stderr.write(`${MERGE.prefix}: ${nothingCheckedLine(nothing)}\n`);
  return merged.metricsFailed ? 1 : exitCodeOf(merged.results);
}

/** Runs the command on process.argv (npm run merge, or chainprobe merge). */
export function cli(): void {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(MERGE.prefix, e),
  );
}

if (isMain(import.meta.url)) cli();
