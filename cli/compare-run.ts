// The run command's --compare and --waivers (flags: cli/compare-flags.ts). Before the first request
// the waivers file and the compare target file are read and checked, and the compare target is
// tried (one connection per address, no request): any of them bad is exit 2 with one line. The
// run then runs each deployment as its own run (run/pipeline.ts or run/fleet.ts), side by side
// unless they share a host or differ in TLS trust (one process has one trust, and a limiter both
// runs reach would see both runs' requests): --target's reports in <out>/, --compare's in
// <out>/compare/. The primary's results get the comparison (src/compare) before its reports are
// written, so results.json, index.html and the summaries all have it; every run gets its waivers.
import { join, relative } from 'node:path';
import type { ResolvedTarget } from '../src/target-file/types.js';
import { loadTargetFile, TargetError } from '../src/target-file/load.js';
import { withTlsFlags } from '../src/target-file/tls-flags.js';
import { addressesOf, preflight } from '../src/net/preflight.js';
import { useTls } from '../src/tls/trust.js';
import type { ResultsFile } from '../src/results.js';
import { isFleet } from '../src/fleet/units.js';
import type { ProgressEvent } from '../src/stages.js';
import {
  applyWaivers,
  dayOf,
  loadWaivers,
  waiveDifferences,
  waiverLine,
  waiversOf,
  waiversRecord,
  WaiverError,
  type Waiver,
} from '../src/waivers/waivers.js';
import { compareResults, type Comparison } from '../src/compare/compare.js';
import { comparisonLines, unwaivedDifferences } from '../src/compare/lines.js';
import { UsageError } from './fatal.js';
import type { RunOptions, RunOutcome } from '../run/pipeline.js';

/** Where the compare target's own reports go, inside --out. */
export const COMPARE_DIR = 'compare';

export interface CompareSetup {
  /** --compare: the second deployment, as its target file resolved it. */
  compare?: { path: string; target: ResolvedTarget };
  waivers?: Waiver[];
  /** The day waivers are judged against (UTC). */
  today: string;
  failOnDifference: boolean;
}

export interface CompareSetupFlags {
  compare?: string;
  waivers?: string;
  'fail-on-difference': boolean;
  ca?: string[];
  insecure?: boolean;
}

/** The first problem of a target file in one line, naming the flag that gave it. */
function oneProblem(flag: string, e: unknown): UsageError {
  const problems = e instanceof TargetError ? e.problems : [(e as Error).message.split('\n')[0]!];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new UsageError(`${flag}: ${problems[0]}${more}`);
}

/**
 * Reads --waivers and --compare and tries the compare target, before the first request; undefined
 * when neither flag was given. A bad file, or a compare target none of whose addresses answers, is
 * a UsageError (exit 2, one line).
 */
export async function setupCompare(v: CompareSetupFlags, now = new Date()): Promise<CompareSetup | undefined> {
  if (v.compare === undefined && v.waivers === undefined) return undefined;
  const setup: CompareSetup = { today: dayOf(now), failOnDifference: v['fail-on-difference'] };
  if (v.waivers !== undefined) {
    try {
      setup.waivers = loadWaivers(v.waivers);
    } catch (e) {
      if (e instanceof WaiverError) throw new UsageError(`--waivers ${e.message}`);
      throw e;
    }
  }
  if (v.compare !== undefined) {
    let target: ResolvedTarget;
    try {
      target = withTlsFlags(loadTargetFile(v.compare), v.ca ?? [], v.insecure ?? false);
    } catch (e) {
      throw oneProblem(`--compare ${v.compare}`, e);
    }
    // One connection per address, no request: a deployment that cannot be reached at all is known now.
    useTls(target.tls);
    const pre = await preflight(target, Math.min(target.limits.timeoutMs, 10_000));
    if (pre.addresses.length > 0 && pre.causes.length === pre.addresses.length)
      throw new UsageError(
        `--compare ${v.compare}: "${target.name}" cannot be reached (${[...new Set(pre.causes.map((c) => c.line))].join('; ')})`,
      );
    setup.compare = { path: v.compare, target };
  }
  return setup;
}

/** results.json `tolerances`: what a later comparison of this run needs to know of its targets. */
function tolerancesOf(targets: readonly ResolvedTarget[]): { blockNumbers: number } | undefined {
  const t = targets.flatMap((x) => (x.api?.native ? [x.api.native.blockNumberTolerance] : []));
  return t.length ? { blockNumbers: Math.max(...t) } : undefined;
}

export type CommonRunOptions = Omit<RunOptions, 'target'>;

/** One run: a fleet when the targets make one, else the pipeline. */
async function runOne(targets: ResolvedTarget[], o: CommonRunOptions): Promise<RunOutcome> {
  const tolerances = tolerancesOf(targets);
  const opts = { ...o, extra: { ...o.extra, ...(tolerances && { tolerances }) } };
  return isFleet(targets)
    ? (await import('../run/fleet.js')).runFleet({ ...opts, targets })
    : (await import('../run/pipeline.js')).runChainprobe({ ...opts, target: targets[0]! });
}

/** Whether two deployments may run side by side: no host in common, and the same TLS trust. */
export function sideBySide(a: ResolvedTarget, b: ResolvedTarget): boolean {
  const hosts = new Set(addressesOf(a).map((x) => x.where));
  if (addressesOf(b).some((x) => hosts.has(x.where))) return false;
  return JSON.stringify(a.tls ?? null) === JSON.stringify(b.tls ?? null);
}

export interface ComparedOutcome extends RunOutcome {
  /** The compare target's own run (its reports in <out>/compare). */
  other?: RunOutcome;
  comparison?: Comparison;
}

/**
 * The run with its waivers and, with --compare, the second deployment's run and the comparison.
 * The exit status is 1 when either run has a failure no waiver covers, or (--fail-on-difference) a
 * difference no waiver covers.
 */
export async function runWith(
  targets: ResolvedTarget[],
  common: CommonRunOptions,
  setup: CompareSetup | undefined,
): Promise<ComparedOutcome> {
  const waivers = setup?.waivers;
  const today = setup?.today ?? dayOf(new Date());
  const waive = (r: ResultsFile) =>
    waivers ? applyWaivers(r, waivers, today) : { results: r, matched: [] as number[] };
  const compare = setup?.compare;
  if (!compare) {
    const outcome = await runOne(targets, { ...common, ...(waivers && { finish: (r) => waive(r).results }) });
    return outcome;
  }

  let matchedB: number[] = [];
  const progress = common.progress;
  const together = sideBySide(targets[0]!, compare.target);
  const otherOptions: CommonRunOptions = {
    ...common,
    outDir: join(common.outDir, COMPARE_DIR),
    // Side by side the primary's status line is the run's, and the other run's notes are named by
    // its target; one after the other, each run has the line while it runs.
    progress: (e: ProgressEvent) => {
      if (e.stage === 'info') progress?.({ stage: 'info', message: `${compare.target.name}: ${e.message}` });
      else if (!together) progress?.(e);
    },
    baseline: undefined,
    history: undefined,
    har: undefined,
    extra: {},
    finish: (r) => {
      const w = waive(r);
      matchedB = w.matched;
      return w.results;
    },
  };
  let otherRun: Promise<RunOutcome> | undefined = together ? runOne([compare.target], otherOptions) : undefined;
  // A failure of the other run reaches the primary's finish; it must not also go unhandled.
  otherRun?.catch(() => undefined);
  if (!otherRun) {
    const done = await runOne([compare.target], otherOptions);
    otherRun = Promise.resolve(done);
  }
  let comparison: Comparison | undefined;
  const primary = await runOne(targets, {
    ...common,
    finish: async (r) => {
      const a = waive(r);
      const other = await otherRun!;
      comparison = compareResults(a.results, other.results, {
        paths: { a: 'results.json', b: `${COMPARE_DIR}/results.json` },
      });
      let matchedDiff: number[] = [];
      if (waivers) ({ comparison, matched: matchedDiff } = waiveDifferences(comparison, waivers, today));
      return {
        ...a.results,
        comparison,
        ...(waivers && { waivers: waiversRecord(waivers, [a.matched, matchedB], matchedDiff, today) }),
      };
    },
  });
  const other = await otherRun;
  const open = comparison ? unwaivedDifferences(comparison).length : 0;
  const exitCode = Math.max(primary.exitCode, other.exitCode, setup.failOnDifference && open ? 1 : 0) as 0 | 1;
  return {
    ...primary,
    exitCode,
    interrupted: primary.interrupted || other.interrupted,
    files: [...primary.files, ...other.files],
    other,
    comparison,
  };
}

/**
 * The closing lines a comparison and waivers add to the terminal's summary: what each waiver came
 * to, and the comparison (differences no waiver covers first).
 */
export function comparedLines(results: ResultsFile, failOnDifference: boolean): string[] {
  const lines: string[] = [];
  const record = waiversOf(results);
  if (record?.entries.length) {
    lines.push(`waivers (${record.today}):`);
    for (const w of record.entries) lines.push(`  ${waiverLine(w)}`);
  }
  const comparison = results.comparison as Comparison | undefined;
  if (comparison && Array.isArray(comparison.differences)) {
    lines.push(...comparisonLines(comparison));
    const open = unwaivedDifferences(comparison).length;
    if (failOnDifference && open)
      lines.push(`--fail-on-difference: ${open} difference${open === 1 ? '' : 's'} no waiver covers`);
  }
  return lines;
}

/** The comparison's results.json paths as seen from `out` (for `chainprobe compare`). */
export const relativeTo = (out: string, file: string): string => relative(out, file).split('\\').join('/');
