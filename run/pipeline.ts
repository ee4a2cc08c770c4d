// One run of chainprobe: resolve the target, run the selected stages (contracts, then probes)
// under one budget and one abort signal, roll the checks up and write the reports.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildResults, exitCodeOf, type ResultsFile } from '../src/results.js';
import { RULES, stageOf } from '../src/rules/catalogue.js';
import { cover, INTERRUPTED, stageFailed, type Gap } from '../src/coverage.js';
import type { Selection } from '../src/select.js';
import { Redactor } from '../src/record/redact.js';
import { secretsOf } from '../src/target-file/load.js';
import { newRunSeed } from '../src/auth/near-miss.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { CheckResult } from '../src/verdict.js';
import type { ContractTrace, ProgressEvent, RunContext, TimelineEntry } from '../src/stages.js';
import { runContracts } from '../contracts/run.js';
import { runProbes } from '../load/run.js';
import { clearReports, writeReports } from '../reports/write.js';
import { historyOf } from '../src/fleet/history.js';
import { diffBaseline, summarizeBaseline, type BaselineDiff } from '../reports/baseline.js';
import { exportCauses, groupCauses, parseCause, whereOf } from '../src/net/causes.js';
import { preflight } from '../src/net/preflight.js';
import { tlsRecord, useTls } from '../src/tls/trust.js';

export interface RunOptions {
  target: ResolvedTarget;
  selection: Selection;
  outDir: string;
  /** An earlier results.json to compare observations with. */
  baseline?: ResultsFile;
  progress?: (e: ProgressEvent) => void;
  /** Aborting stops sending at once; partial reports are still written. */
  signal?: AbortSignal;
  /** Extra fields for results.json (e.g. the reference's faults). */
  extra?: Record<string, unknown>;
  /** The run seed (near-miss credentials); drawn at random when absent, written to results.json. */
  seed?: number;
  /** --history: a folder of earlier runs' results; this run is added after its report is written. */
  history?: string;
}

export interface RunOutcome {
  results: ResultsFile;
  exitCode: 0 | 1;
  baseline?: BaselineDiff;
  files: string[];
  interrupted: boolean;
  /** Where the contract run's time went, when contracts ran. */
  contractTrace?: ContractTrace;
}

/** The cause line when a check that went to `where` could not connect (refused, DNS, TLS: none heals within a run). */
function unreachable(checks: readonly CheckResult[], where: string): string | undefined {
  const mine = checks
    .map((c) => parseCause(typeof c.evidence?.cause === 'string' ? c.evidence.cause : c.message))
    .filter((c) => c?.where === where);
  return mine[0]?.line;
}

/** results.json's optional `causes` (grouped connection failures) and `tls` (how trust was set). */
export function causesAndTls(checks: readonly CheckResult[], target: ResolvedTarget): Record<string, unknown> {
  const causes = groupCauses(checks);
  const tls = tlsRecord(target.tls);
  return { ...(causes.length && { causes }), ...(tls && { tls }) };
}

export async function runChainprobe(opts: RunOptions): Promise<RunOutcome> {
  const startedAt = new Date();
  useTls(opts.target.tls);
  const seed = opts.seed ?? newRunSeed();
  const redactor = new Redactor(secretsOf(opts.target), seed);
  const workDir = mkdtempSync(join(tmpdir(), 'chainprobe-'));
  const budgetFile = join(workDir, 'budget.count');
  writeFileSync(budgetFile, '');
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  if (opts.signal) {
    if (opts.signal.aborted) controller.abort();
    else opts.signal.addEventListener('abort', onAbort, { once: true });
  }
  const ctx: RunContext = {
    target: opts.target,
    selected: (id) => opts.selection.rule(id),
    outDir: resolve(opts.outDir),
    workDir,
    budgetFile,
    deadline: startedAt.getTime() + opts.target.limits.maxSeconds * 1000,
    seed,
    signal: controller.signal,
    progress: opts.progress ?? (() => {}),
  };

  const checks: CheckResult[] = [];
  // Why rules may be left without a check, in the order their reasons win (see src/coverage.ts).
  const gaps: Gap[] = [];
  let timeline: TimelineEntry[] = [];
  let limiter: ResultsFile['limiter'] = null;
  let playwrightReport: string | undefined;
  let contractTrace: ContractTrace | undefined;

  try {
    await clearReports(ctx.outDir);
    // One connection per address first: a target none of whose addresses answers is not tried 60 times.
    const pre = await preflight(opts.target, Math.min(opts.target.limits.timeoutMs, 10_000));
    ctx.knownCauses = exportCauses();
    const nothingReachable = pre.addresses.length > 0 && pre.causes.length === pre.addresses.length;
    if (nothingReachable)
      gaps.push({ rules: () => true, reason: [...new Set(pre.causes.map((c) => c.line))].join('; ') });
    else if (RULES.some((r) => stageOf(r.id) === 'contracts' && ctx.selected(r.id)) && !ctx.signal.aborted) {
      try {
        const outcome = await runContracts(ctx);
        checks.push(...outcome.checks);
        gaps.push(...outcome.gaps);
        playwrightReport = outcome.playwrightReport;
        contractTrace = outcome.trace;
      } catch (e) {
        gaps.push(stageFailed('contracts', e, redactor));
      }
    }
    // A horizon node the contracts could not reach at all is not probed: its rules get that cause.
    const horizonWhere = opts.target.nodes.horizon && whereOf(opts.target.nodes.horizon.endpoint);
    const horizonCause =
      horizonWhere && (pre.causes.find((c) => c.where === horizonWhere)?.line ?? unreachable(checks, horizonWhere));
    if (nothingReachable) {
      // every selected rule already has its cause
    } else if (horizonCause) gaps.push({ rules: (id) => stageOf(id) === 'probes', reason: horizonCause });
    else if (RULES.some((r) => stageOf(r.id) === 'probes' && ctx.selected(r.id)) && !ctx.signal.aborted) {
      try {
        const outcome = await runProbes(ctx);
        checks.push(...outcome.checks);
        timeline = outcome.timeline;
        limiter = outcome.limiter;
      } catch (e) {
        gaps.push(stageFailed('probes', e, redactor));
      }
    }
    const interrupted = ctx.signal.aborted;
    if (interrupted) gaps.push(INTERRUPTED);
    // Every selected rule gets a verdict: those without a check get the first reason that covers them.
    checks.push(...cover(ctx.selected, checks, gaps));

    const results = buildResults({
      target: opts.target.name,
      startedAt,
      finishedAt: new Date(),
      checks,
      limiter,
      extra: { selection: opts.selection.text, interrupted, seed, ...causesAndTls(checks, opts.target), ...opts.extra },
    });
    let baseline: BaselineDiff | undefined;
    if (opts.baseline) baseline = diffBaseline(opts.baseline, results);
    const history = historyOf(opts.history, results);
    const { files } = await writeReports(ctx.outDir, {
      results,
      timeline,
      playwrightReport,
      baseline,
      history: history.runs,
    });
    history.keep();
    return { results, exitCode: exitCodeOf(results), baseline, files, interrupted, contractTrace };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    rmSync(workDir, { recursive: true, force: true });
  }
}

export { summarizeBaseline };
