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
import type { ProgressEvent, RunContext, TimelineEntry } from '../src/stages.js';
import { runContracts } from '../contracts/run.js';
import { clearReports, writeReports } from '../reports/write.js';
import type { HarExchange } from '../reports/har.js';
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
  /** The run's redactor (built by the caller for its own error lines); built here from the target and seed when absent. */
  redactor?: Redactor;
  /** --har: also write every exchange of the run as HAR 1.2 to this file. */
  har?: string;
}

export interface RunOutcome {
  results: ResultsFile;
  exitCode: 0 | 1;
  baseline?: BaselineDiff;
  files: string[];
  interrupted: boolean;
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
  const redactor = opts.redactor ?? new Redactor(secretsOf(opts.target), seed);
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
    redactor,
    signal: controller.signal,
    progress: opts.progress ?? (() => {}),
    recordExchanges: opts.har !== undefined,
  };

  const checks: CheckResult[] = [];
  const exchanges: HarExchange[] = [];
  // Why rules may be left without a check, in the order their reasons win (see src/coverage.ts).
  const gaps: Gap[] = [];
  let timeline: TimelineEntry[] = [];
  let limiter: ResultsFile['limiter'] = null;
  let playwrightReport: string | undefined;

  try {
    await clearReports(ctx.outDir);
    // One connection per address first: a target none of whose addresses answers is not tried 60 times.
    const pre = await preflight(opts.target, Math.min(opts.target.limits.timeoutMs, 10_000));
    ctx.knownCauses = exportCauses();
    const nothingReachable = pre.addresses.length > 0 && pre.causes.length === pre.addresses.length;
    // Nothing reachable: only the tests of the rules this target cannot test run (they send nothing, and
    // keep their `skipped` with its reason); every other rule would have talked to a host, it gets the cause.
    if (nothingReachable)
      gaps.push({ rules: () => true, reason: [...new Set(pre.causes.map((c) => c.line))].join('; ') });
    if (RULES.some((r) => stageOf(r.id) === 'contracts' && ctx.selected(r.id)) && !ctx.signal.aborted) {
      try {
        const outcome = await runContracts(ctx, { notTestableOnly: nothingReachable });
        checks.push(...outcome.checks);
        gaps.push(...outcome.gaps);
        playwrightReport = outcome.playwrightReport;
        exchanges.push(...(outcome.exchanges ?? []).map((x) => ({ ...x, stage: 'contracts' as const })));
      } catch (e) {
        gaps.push(stageFailed('contracts', e, redactor));
      }
    }
    const horizonWhere = opts.target.nodes.horizon && whereOf(opts.target.nodes.horizon.endpoint);
    const horizonCause =
      horizonWhere && (pre.causes.find((c) => c.where === horizonWhere)?.line ?? unreachable(checks, horizonWhere));
    // A horizon node that cannot be reached is not probed (its rules get the cause); without one, its rules are skipped.
    if (horizonCause) gaps.push({ rules: (id) => stageOf(id) === 'probes', reason: horizonCause });
    else if (RULES.some((r) => stageOf(r.id) === 'probes' && ctx.selected(r.id)) && !ctx.signal.aborted) {
      try {
        // Loaded when the probes start: the HTTP engine is not needed before the first request.
        const { runProbes } = await import('../load/run.js');
        const outcome = await runProbes(ctx);
        checks.push(...outcome.checks);
        timeline = outcome.timeline;
        limiter = outcome.limiter;
        exchanges.push(...(outcome.exchanges ?? []).map((x) => ({ ...x, stage: 'probes' as const })));
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
      ...(opts.har !== undefined && { har: { file: opts.har, exchanges } }),
    });
    history.keep();
    return { results, exitCode: exitCodeOf(results), baseline, files, interrupted };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    rmSync(workDir, { recursive: true, force: true });
  }
}

export { summarizeBaseline };
