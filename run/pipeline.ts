// One run of chainprobe: resolve the target, run the selected stages (contracts and probes side by side)
// under one budget and one abort signal, roll the checks up and write the reports.
import { resolve } from 'node:path';
import { newCounter } from '../src/budget.js';
import { pause } from '../src/net/pause.js';
import { spacedGapMs } from '../src/pacing.js';
import { buildResults, exitCodeOf, type ResultsFile } from '../src/results.js';
import { RULES, stageOf } from '../src/rules/catalogue.js';
import { cover, INTERRUPTED, stageFailed, type Gap } from '../src/coverage.js';
import type { Selection } from '../src/select.js';
import { Redactor } from '../src/record/redact.js';
import { secretsOf } from '../src/target-file/load.js';
import { newRunSeed } from '../src/auth/near-miss.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { CheckResult } from '../src/verdict.js';
import type { ProbeAnswer, ProgressEvent, RunContext, TimelineEntry } from '../src/stages.js';
import { runContracts, type ContractsOptions } from '../contracts/engine.js';
import { clearReports, writeReports } from '../reports/write.js';
import type { HarExchange } from '../reports/har.js';
import { historyOf } from '../src/fleet/history.js';
import { diffBaseline, summarizeBaseline, type BaselineDiff } from '../reports/baseline.js';
import { groupCauses, parseCause, whereOf } from '../src/net/causes.js';
import { preflight } from '../src/net/preflight.js';
import { tlsRecord, useTls } from '../src/tls/trust.js';

/** results.json `order`: how the contract checks and the probes shared the run. */
export const SIDE_BY_SIDE =
  'contracts and probes side by side; the probes alone on the horizon node, its contract checks after them ' +
  "(judged on the probes' own answer where a probe sent the same request)";
const ONE_AFTER_ANOTHER = 'contracts, then probes';

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
  /**
   * Before the reports are written: the caller's last word on the results (--waivers marks the
   * checks they cover, --compare adds the comparison with the other deployment's run).
   */
  finish?: (results: ResultsFile) => ResultsFile | Promise<ResultsFile>;
  /** --runner: the contract rules' host, the command's own engine (default) or Playwright Test. */
  runner?: 'engine' | 'playwright';
}

export interface RunOutcome {
  results: ResultsFile;
  exitCode: 0 | 1;
  baseline?: BaselineDiff;
  files: string[];
  interrupted: boolean;
}

/**
 * When `signal` was aborted (ISO time), read later: results.json's `interruptedAt`, the moment the
 * run stopped sending (a loaded machine may run the signal handler well after the signal was sent).
 */
export function whenAborted(signal: AbortSignal): () => string | undefined {
  let at: string | undefined;
  signal.addEventListener('abort', () => (at = new Date().toISOString()), { once: true });
  return () => at;
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
  const controller = new AbortController();
  const abortedAt = whenAborted(controller.signal);
  const onAbort = () => controller.abort();
  if (opts.signal) {
    if (opts.signal.aborted) controller.abort();
    else opts.signal.addEventListener('abort', onAbort, { once: true });
  }
  const ctx: RunContext = {
    target: opts.target,
    selected: (id) => opts.selection.rule(id),
    outDir: resolve(opts.outDir),
    budget: newCounter(),
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
  /** When each stage ran, and in which order (results.json `stages` and `order`). */
  const stages: { stage: string; startedAt: string; finishedAt: string }[] = [];
  let order = ONE_AFTER_ANOTHER;
  /** The probes' answers the horizon node's contract checks judge instead of sending them again (ProbeAnswer). */
  let probeAnswers: ProbeAnswer[] = [];

  try {
    // Loaded while the preflight waits for its answers: in a full run the probes need it first.
    const probing = RULES.some((r) => stageOf(r.id) === 'probes' && ctx.selected(r.id));
    const probeModule = probing ? import('../load/run.js') : undefined;
    // Its failure is the probes stage's to report, when the stage runs.
    probeModule?.catch(() => {});
    await clearReports(ctx.outDir);
    // One connection per address first: a target none of whose addresses answers is not tried 60 times.
    const pre = await preflight(opts.target, Math.min(opts.target.limits.timeoutMs, 10_000));
    const nothingReachable = pre.addresses.length > 0 && pre.causes.length === pre.addresses.length;
    // Nothing reachable: only the tests of the rules this target cannot test run (they send nothing, and
    // keep their `skipped` with its reason); every other rule would have talked to a host, it gets the cause.
    if (nothingReachable)
      gaps.push({ rules: () => true, reason: [...new Set(pre.causes.map((c) => c.line))].join('; ') });
    const wants = (stage: 'contracts' | 'probes') =>
      RULES.some((r) => stageOf(r.id) === stage && ctx.selected(r.id)) && !ctx.signal.aborted;
    // Each stage's checks and gaps are kept apart and joined in stage order, however the stages overlapped.
    const byStage = {
      contracts: { checks: [] as CheckResult[], gaps: [] as Gap[] },
      probes: { checks: [] as CheckResult[], gaps: [] as Gap[] },
    };
    const timed = async (stage: 'contracts' | 'probes', run: () => Promise<void>) => {
      const from = new Date();
      try {
        await run();
      } catch (e) {
        byStage[stage].gaps.push(stageFailed(stage, e, redactor));
      }
      stages.push({ stage, startedAt: from.toISOString(), finishedAt: new Date().toISOString() });
    };
    const contracts = (how: ContractsOptions = {}) =>
      timed('contracts', async () => {
        const outcome =
          opts.runner === 'playwright'
            ? await (await import('../contracts/playwright/run.js')).runContractsInPlaywright(ctx)
            : await runContracts(ctx, how);
        byStage.contracts.checks.push(...outcome.checks);
        byStage.contracts.gaps.push(...outcome.gaps);
        playwrightReport = outcome.playwrightReport;
        exchanges.push(...(outcome.exchanges ?? []).map((x) => ({ ...x, stage: 'contracts' as const })));
      });
    const probes = (sent?: (answers: ProbeAnswer[]) => Promise<void>) =>
      timed('probes', async () => {
        const { runProbes } = await probeModule!;
        const outcome = await runProbes(ctx, undefined, sent);
        probeAnswers = outcome.answers ?? [];
        byStage.probes.checks.push(...outcome.checks);
        timeline = outcome.timeline;
        limiter = outcome.limiter;
        exchanges.push(...(outcome.exchanges ?? []).map((x) => ({ ...x, stage: 'probes' as const })));
      });
    const horizonWhere = opts.target.nodes.horizon && whereOf(opts.target.nodes.horizon.endpoint);
    const preflightHorizonCause = horizonWhere && pre.causes.find((c) => c.where === horizonWhere)?.line;
    const sideBySide = opts.runner !== 'playwright' && !nothingReachable && wants('contracts') && wants('probes');
    if (sideBySide && horizonWhere && !preflightHorizonCause) {
      // Side by side: the probes have the horizon node to themselves, the contract checks of the
      // other hosts run meanwhile, and those of the horizon node wait until the probes stop sending.
      order = SIDE_BY_SIDE;
      // The probes start first (their module loaded, their first request out): the contract checks'
      // burst of work at the start would hold back the plan's first timers. The horizon node's checks
      // go once the plan has stopped sending; the probes' analysis, which holds this thread, waits one
      // cap interval, so that their first request is out before it starts.
      await probeModule?.catch(() => undefined);
      let handOver!: (answers: readonly ProbeAnswer[]) => void;
      const horizonAfter = new Promise<readonly ProbeAnswer[]>((r) => (handOver = r));
      const gap = spacedGapMs(opts.target.nodes.horizon!.perSecondCap);
      const probed = probes(async (answers) => {
        handOver(answers);
        await pause(gap, ctx.signal);
      });
      void probed.then(() => handOver(probeAnswers));
      await Promise.all([contracts({ horizonAfter }), probed]);
    } else {
      if (wants('contracts')) await contracts({ notTestableOnly: nothingReachable });
      // A horizon node that cannot be reached is not probed (its rules get the cause, looked for in the
      // contract checks only when a probe rule is selected); without one, its rules are skipped.
      const horizonCause =
        probing && horizonWhere && (preflightHorizonCause ?? unreachable(byStage.contracts.checks, horizonWhere));
      if (horizonCause) byStage.probes.gaps.push({ rules: (id) => stageOf(id) === 'probes', reason: horizonCause });
      else if (wants('probes')) await probes();
    }
    for (const part of [byStage.contracts, byStage.probes]) {
      checks.push(...part.checks);
      gaps.push(...part.gaps);
    }
    stages.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.stage.localeCompare(b.stage));
    const interrupted = ctx.signal.aborted;
    if (interrupted) gaps.push(INTERRUPTED);
    // Every selected rule gets a verdict: those without a check get the first reason that covers them.
    checks.push(...cover(ctx.selected, checks, gaps));

    let results = buildResults({
      target: opts.target.name,
      startedAt,
      finishedAt: new Date(),
      checks,
      limiter,
      extra: {
        selection: opts.selection.text,
        interrupted,
        ...(abortedAt() && { interruptedAt: abortedAt() }),
        seed,
        ...(stages.length > 1 && { order }),
        ...(stages.length && { stages }),
        ...causesAndTls(checks, opts.target),
        ...opts.extra,
      },
    });
    if (opts.finish) results = await opts.finish(results);
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
  }
}

export { summarizeBaseline };
