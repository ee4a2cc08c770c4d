// `npm run compare` (the bin's `chainprobe compare`; flags: COMPARE below, also `--help`) - the
// comparison of two deployments from two runs made elsewhere or at different times (two CI jobs,
// two regions): the same comparison as `npm start -- --target a.json --compare b.json`, made by
// the same function of the two results files (src/compare/compare.ts), so the same table. It
// writes the first run's reports again into --out, with the comparison first (index.html,
// results.json, junit.xml), and with --waivers marks what they cover in both runs.
// Exit: 0 neither run has a failure no waiver covers (and, with --fail-on-difference, no
// difference no waiver covers), 1 otherwise, 2 bad input (one line naming it, nothing written).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { exitWith, UsageError } from './fatal.js';
import { INSTALLED } from '../src/package.js';
import { commandLine, defineCommand, isMain, userCwd } from './args.js';
import { SUMMARY_MD_FLAG } from './flags.js';
import { FAIL_ON_DIFFERENCE_FLAG, WAIVERS_FLAG } from './compare-flags.js';
import { comparedLines, relativeTo } from './compare-run.js';
import { prepareOutDir } from './outdir.js';
import { exitCodeOf, type ResultsFile } from '../src/results.js';
import { readResults } from './results-input.js';
import { compareResults } from '../src/compare/compare.js';
import { unwaivedDifferences } from '../src/compare/lines.js';
import {
  applyWaivers,
  dayOf,
  loadWaivers,
  waiveDifferences,
  waiversRecord,
  WaiverError,
} from '../src/waivers/waivers.js';
import type { TimelineEntry } from '../src/stages.js';
import { countLines } from '../src/run-summary.js';
import { writeReports } from '../reports/write.js';

export const COMPARE = defineCommand({
  invocation: 'npm run compare --',
  prefix: 'chainprobe compare',
  summary:
    'Compares two deployments from two runs made elsewhere or at different times (two CI jobs, two regions): the same ' +
    'comparison as --compare (docs/compare.md), rule by rule. Writes the first run’s index.html, results.json and junit.xml ' +
    'again into --out, the comparison first.',
  flags: {
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: INSTALLED ? 'chainprobe-report/compare' : 'reports/compare',
      help: 'where index.html, results.json (the first run’s, with `comparison`) and junit.xml go',
    },
    'summary-md': SUMMARY_MD_FLAG,
    waivers: WAIVERS_FLAG,
    'fail-on-difference': FAIL_ON_DIFFERENCE_FLAG,
  },
  positionals: {
    value: '<a/results.json> <b/results.json>',
    help: 'the two runs: first the one to compare with (say production), then the other (say staging)',
  },
  examples: [
    'npm run compare -- production/results.json staging/results.json --out reports/compare',
    'npm run compare -- prod/results.json staging/results.json --waivers waivers.json --fail-on-difference',
  ],
  exit: [
    '0  neither run has a failing or erroring check no waiver covers (and, with --fail-on-difference, no difference no waiver covers)',
    '1  one has (or, with --fail-on-difference, a difference no waiver covers)',
    '2  bad input (a missing file, not a results file, a results file of another format version, a bad --waivers file, bad flag); nothing is written',
  ],
});

/** The probes' timeline written beside a results file, for the report's limiter charts ([] when there is none). */
function timelineBeside(path: string): TimelineEntry[] {
  const file = join(dirname(path), 'timeline.json');
  if (!existsSync(file)) return [];
  try {
    const t = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(t) ? (t as TimelineEntry[]) : [];
  } catch {
    return [];
  }
}

export interface CompareFiles {
  a: string;
  b: string;
  out: string;
  waivers?: string;
  failOnDifference?: boolean;
  summaryMd?: string;
  now?: Date;
}

/**
 * Reads the two runs (and the waivers), then writes the comparison; everything that can be wrong
 * with the input is found before anything is written. Resolves the exit status and the lines.
 */
export async function compareFiles(o: CompareFiles): Promise<{ code: 0 | 1; lines: string[]; results: ResultsFile }> {
  let waivers;
  if (o.waivers !== undefined) {
    try {
      waivers = loadWaivers(o.waivers);
    } catch (e) {
      if (e instanceof WaiverError) throw new UsageError(`--waivers ${e.message}`);
      throw e;
    }
  }
  const a = readResults(o.a);
  const b = readResults(o.b);
  prepareOutDir(o.out);
  const today = dayOf(o.now ?? new Date());
  const wa = waivers ? applyWaivers(a, waivers, today) : { results: a, matched: [] };
  const wb = waivers ? applyWaivers(b, waivers, today) : { results: b, matched: [] };
  let comparison = compareResults(wa.results, wb.results, {
    paths: { a: relativeTo(o.out, resolve(o.a)), b: relativeTo(o.out, resolve(o.b)) },
  });
  let matchedDiff: number[] = [];
  if (waivers) ({ comparison, matched: matchedDiff } = waiveDifferences(comparison, waivers, today));
  const results: ResultsFile = {
    ...wa.results,
    comparison,
    ...(waivers && { waivers: waiversRecord(waivers, [wa.matched, wb.matched], matchedDiff, today) }),
  };
  await writeReports(o.out, { results, timeline: timelineBeside(o.a) });
  if (o.summaryMd) {
    const { writeSummaryMd } = await import('../reports/summary-md.js');
    writeSummaryMd(results, o.summaryMd, o.out);
  }
  const open = unwaivedDifferences(comparison).length;
  const code = Math.max(exitCodeOf(wa.results), exitCodeOf(wb.results), o.failOnDifference && open ? 1 : 0) as 0 | 1;
  const lines = [
    ...countLines(wa.results).map((l) => `${comparison.a.label}: ${l}`),
    ...countLines(wb.results).map((l) => `${comparison.b.label}: ${l}`),
    ...comparedLines(results, o.failOnDifference ?? false),
    `report: ${resolve(o.out, 'index.html')}`,
  ];
  return { code, lines, results };
}

async function main(): Promise<number> {
  const parsed = commandLine(COMPARE);
  if (parsed.positionals.length !== 2)
    throw new UsageError(
      `give two results files, the run to compare with and the other (${parsed.positionals.length} given); see ${COMPARE.invocation} --help`,
    );
  const v = parsed.values;
  const { code, lines } = await compareFiles({
    // Relative to where the command was run (npm runs scripts in the package folder).
    a: resolve(userCwd(), parsed.positionals[0]!),
    b: resolve(userCwd(), parsed.positionals[1]!),
    out: v.out!,
    ...(v.waivers !== undefined && { waivers: v.waivers }),
    failOnDifference: v['fail-on-difference'],
    ...(v['summary-md'] !== undefined && { summaryMd: v['summary-md'] }),
  });
  process.stdout.write(`chainprobe compare:\n${lines.map((l) => `  ${l}\n`).join('')}`);
  return code;
}

/** Runs the command on process.argv (npm run compare, or chainprobe compare). */
export function cli(): void {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(COMPARE.prefix, e),
  );
}

if (isMain(import.meta.url)) cli();
