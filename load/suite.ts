// The whole probe suite, engine-free: run the plan through any Engine, analyse, judge each
// selected rule, and build the limiter block and the raw timeline. The Node runner (run.ts) and
// the k6 entry scripts both call this, so both produce the same checks and results JSON.
import { is2xx } from '../src/http/status.js';
import type { LimiterEstimates } from '../src/results.js';
import { ruleById } from '../src/rules/catalogue.js';
import type { ProbeAnswer, ProbesOutcome, TimelineEntry } from '../src/stages.js';
import type { ResolvedHorizon } from '../src/target-file/types.js';
import type { CheckResult } from '../src/verdict.js';
import { analyze, type Analysis } from './analysis.js';
import { expectedEmissionIntervalMs, RATE_TOLERANCE } from './checks/rate.js';
import { evaluate } from './checks/index.js';
import { integrityRows } from './checks/integrity.js';
import type { Engine } from './engine/types.js';
import { mostCertainInWindow } from './model/cap.js';
import { answer } from './model/gcra.js';
import { boundsFor } from './model/possible.js';
import type { ReplayStep } from './model/replay.js';
import { DEFAULT_PLAN, RL_RULES, runPlan, type PlanOutcome } from './plan.js';
import { Session, type SessionEnv } from './session.js';

export interface SuiteInput extends Omit<SessionEnv, 'engine'> {
  engine: Engine;
  horizon: ResolvedHorizon;
  selected: (ruleId: string) => boolean;
  /**
   * Hears when the plan has stopped sending, with the answers others may judge as their own: the
   * node is free from then on. The analysis, which holds this thread, waits for what it returns.
   */
  sent?: (answers: ProbeAnswer[]) => Promise<void> | void;
}

/** Checks for rules that cannot run at all (no horizon node in the target). */
export function skippedChecks(selected: (ruleId: string) => boolean, reason: string): CheckResult[] {
  return RL_RULES.filter(selected).map((rule) => ({
    id: `${rule.toLowerCase()}.skipped`,
    rule,
    verdict: 'skipped' as const,
    message: `${ruleById(rule).title}: skipped, ${reason}`,
    evidence: { cause: reason },
  }));
}

const finiteMid = (lo: number, hi: number) =>
  Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : Number.isFinite(hi) ? hi : lo;

/** The model's single best guess for a request, for the timeline's `predicted`. */
function pointPrediction(step: ReplayStep | undefined, a: Analysis): TimelineEntry['predicted'] {
  if (!step || !a.T || a.limit === undefined) return undefined;
  const p = step.prediction;
  const guess = answer(finiteMid(step.backlog.lo, step.backlog.hi), {
    limit: a.limit,
    emissionIntervalMs: (a.T.lo + a.T.hi) / 2,
  });
  const accepted = p.acceptPossible && !p.denyPossible ? true : !p.acceptPossible ? false : guess.accepted;
  return accepted
    ? { accepted, remaining: guess.remaining, reset: guess.reset }
    : { accepted, reset: guess.reset, retryAfter: guess.retryAfter };
}

/** Every request sent, the model's prediction where the token's bucket answered it. */
export function timelineOf(a: Analysis, t0: number): TimelineEntry[] {
  const rel = (t: number) => Math.round((t - t0) * 1000) / 1000;
  const index = new Map(a.samples.map((s, i) => [s, i]));
  return a.all.map((s) => ({
    probe: s.phase,
    ...(s.variation ? { variation: s.variation.id } : {}),
    method: s.method,
    scheduledAt: rel(s.scheduledAt),
    sentAt: rel(s.sentAt),
    receivedAt: rel(s.receivedAt),
    status: s.status,
    limit: s.rl.limit,
    remaining: s.rl.remaining,
    reset: s.rl.reset,
    retryAfter: s.rl.retryAfter,
    predicted: pointPrediction(a.steps[index.get(s) ?? -1], a),
    error: s.error,
  }));
}

export function limiterBlock(
  a: Analysis,
  plan: PlanOutcome,
  engine: Engine,
  horizon: ResolvedHorizon,
): LimiterEstimates {
  const burst = plan.drain?.burst ?? [];
  const seenCap = burst.length
    ? mostCertainInWindow(a.samples.filter((s) => is2xx(s) && !s.variation)).count
    : undefined;
  const est = a.estimate;
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const byPhase = (name: string) => a.all.filter((s) => s.phase.startsWith(name)).length;
  const integrity = integrityRows({ a, plan });
  return {
    limit: a.limit ?? 0,
    burst: a.limit === undefined ? 0 : a.limit - 1,
    emissionIntervalMs: est ? round(est.emissionIntervalMs) : 0,
    perSecondCap: seenCap ?? horizon.perSecondCap,
    requestsSent: a.all.length,
    durationMs: Math.round(plan.durationMs),
    emissionIntervalUncertaintyMs: est ? round(est.uncertaintyMs) : null,
    emissionIntervalBandMs: est ? { lo: round(est.band.lo), hi: round(est.band.hi) } : null,
    estimateMethod: est?.method ?? null,
    modelConsistent: est?.consistent ?? false,
    verdictEmissionIntervalSource: a.Tsource ?? null,
    expectedEmissionIntervalMs: round(expectedEmissionIntervalMs(horizon.hourlyLimit)),
    emissionIntervalTolerance: RATE_TOLERANCE,
    customer: horizon.customer,
    hourlyLimit: horizon.hourlyLimit,
    planStated: !horizon.planAssumed,
    declaredPerSecondCap: horizon.perSecondCap,
    perSecondCapSource:
      seenCap === undefined
        ? 'declared (no burst above the cap was sent)'
        : 'most requests accepted in one second during the burst',
    capRejectionsUseQuota: a.capQuotaUse,
    unknown: [a.limit === undefined ? 'limit' : undefined, est ? undefined : 'emissionIntervalMs'].filter(Boolean),
    engine: engine.name,
    pacing: engine.pacing(),
    proxyRefusals: a.classes.filter((c) => c.capSuspect).length,
    proxySpacing: plan.spacing ?? null,
    pacingGapMs: plan.pacingGapMs === undefined ? null : Math.round(plan.pacingGapMs * 1000) / 1000,
    bucketAtStart: plan.dynamics?.notFullAtStart ?? 'full',
    burstPlacement: plan.drain?.burstPlacement ?? null,
    phases: plan.phases.map((p) => ({ ...p, requests: byPhase(p.name) })),
    ...(integrity.length ? { integrity } : {}),
  };
}

export async function runSuite(input: SuiteInput): Promise<ProbesOutcome> {
  const declaredT = expectedEmissionIntervalMs(input.horizon.hourlyLimit);
  const session = new Session(input, input.horizon.perSecondCap, boundsFor(declaredT));
  const cap = input.horizon.perSecondCap;
  const t0 = input.engine.now();
  const plan = await runPlan(session, { ...DEFAULT_PLAN, cap, declaredT, selected: input.selected });
  const answers = [...session.answers.values()];
  await input.sent?.(answers);
  input.progress('analysis', 0, session.samples.length);
  const a = analyze(plan.samples, cap, { declaredT });
  const checks = evaluate(
    {
      a,
      plan,
      cap,
      customer: input.horizon.customer,
      hourlyLimit: input.horizon.hourlyLimit,
      planAssumed: input.horizon.planAssumed,
      t0,
    },
    input.selected,
  );
  return {
    checks,
    limiter: limiterBlock(a, plan, input.engine, input.horizon),
    timeline: timelineOf(a, t0),
    answers,
  };
}
