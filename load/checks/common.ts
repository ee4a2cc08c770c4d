// What every rate-limit check reads (the analysis, the plan's phases) and how it words its
// evidence: the relevant exchanges, a timeline excerpt with the model's predicted ranges,
// expected vs actual, and the tolerance used.
import type { Exchange } from '../../src/record/recorder.js';
import type { CheckResult, Evidence, Verdict } from '../../src/verdict.js';
import type { Analysis, Classified } from '../analysis.js';
import type { EmissionEstimate } from '../model/estimate.js';
import type { Interval } from '../model/gcra.js';
import type { ReplayStep } from '../model/replay.js';
import type { PlanOutcome } from '../plan.js';
import type { DrainResult } from '../probes/drain.js';
import type { RecoveryResult } from '../probes/recovery.js';
import type { Sample } from '../session.js';

export interface CheckInput {
  a: Analysis;
  plan: PlanOutcome;
  /** Declared per-second cap and customer terms (target file). */
  cap: number;
  customer: string;
  hourlyLimit: number;
  /** No plan was stated: customer and hourlyLimit are defaults, and RL-09 says which plan the rate matches instead. */
  planAssumed?: boolean;
  /** Engine time of the plan's start, for relative times in evidence. */
  t0: number;
}

/**
 * What a check may need known before it can judge anything (a row's `needs` in index.ts), with its
 * value once known: the check function is handed these, never asked to guard against their absence.
 */
export interface Known {
  /** The dynamics phase's pause: the answer after it, and the answer whose Reset set it. */
  pause: { full: Sample; pausedAfter: Sample };
  drain: DrainResult;
  /** The drain's burst above the cap, when one was sent. */
  burst: Sample[];
  recovery: RecoveryResult;
  /** Limit, from the headers. */
  limit: number;
  /** The T the rules speak of (Analysis.T). */
  T: Interval;
  /** T estimated from the headers. */
  estimate: EmissionEstimate;
}

export type Need = keyof Known;

export { is2xx as ok } from '../../src/http/status.js';

const r1 = (v: number) => Math.round(v * 10) / 10;
const rangeText = (r: Interval) => (r.lo === r.hi ? `${r.lo}` : `${r.lo}..${r.hi}`);

export function stepOf(input: CheckInput, s: Sample): ReplayStep | undefined {
  const i = input.a.samples.indexOf(s);
  return i >= 0 ? input.a.steps[i] : undefined;
}

export function classOf(input: CheckInput, s: Sample): Classified | undefined {
  const i = input.a.samples.indexOf(s);
  return i >= 0 ? input.a.classes[i] : undefined;
}

/** A refusal the proxy made or may have made: evidence for RL-13 only, never for a limiter rule. */
export const notLimiters = (input: CheckInput, s: Sample): boolean => {
  const by = classOf(input, s)?.refusedBy;
  return by === 'proxy' || by === 'either';
};

/** One timeline row for evidence: times relative to the run's start, the headers, the prediction. */
export function row(input: CheckInput, s: Sample): Record<string, unknown> {
  const step = stepOf(input, s);
  const p = step?.prediction;
  const predicted = p
    ? {
        outcome: p.acceptPossible && p.denyPossible ? 'either' : p.acceptPossible ? 'accepted' : 'denied',
        remaining: p.accepted ? rangeText(p.accepted.remaining) : undefined,
        reset: p.accepted ? rangeText(p.accepted.reset) : p.denied ? rangeText(p.denied.reset) : undefined,
        retryAfter: p.denied && !p.acceptPossible ? rangeText(p.denied.retryAfter) : undefined,
      }
    : undefined;
  return {
    seq: s.seq,
    phase: s.phase,
    method: s.method,
    sentAt: r1(s.sentAt - input.t0),
    receivedAt: r1(s.receivedAt - input.t0),
    status: s.status ?? null,
    limit: s.rl.raw.limit ?? null,
    remaining: s.rl.raw.remaining ?? null,
    reset: s.rl.raw.reset ?? null,
    retryAfter: s.rl.raw.retryAfter ?? null,
    ...(s.error ? { error: s.error } : {}),
    ...(predicted ? { predicted } : {}),
  };
}

export function exchanges(samples: readonly (Sample | undefined)[], max = 6): Exchange[] {
  const seen = new Set<number>();
  const out: Exchange[] = [];
  for (const s of samples) {
    if (!s || seen.has(s.seq) || out.length >= max) continue;
    seen.add(s.seq);
    out.push(s.exchange);
  }
  return out;
}

export interface Finding {
  /** For a rule judged in parts (RL-01: each method and status): the part, added to the check id as `[part]`. */
  part?: string;
  verdict: Verdict;
  message: string;
  evidence?: Evidence;
  /** Samples whose exchanges and timeline rows go into the evidence. */
  samples?: readonly (Sample | undefined)[];
}

export function toCheck(input: CheckInput, id: string, rule: string, f: Finding): CheckResult {
  const samples = (f.samples ?? []).filter((s): s is Sample => s !== undefined);
  const evidence: Evidence = { ...f.evidence };
  if (samples.length) {
    evidence.exchanges = exchanges(samples);
    evidence.timeline = samples.slice(0, 40).map((s) => row(input, s));
  }
  return { id, rule, verdict: f.verdict, message: f.message, evidence };
}

export const fmtT = (T: Interval | undefined): string =>
  T ? `${r1((T.lo + T.hi) / 2)} ms (±${r1((T.hi - T.lo) / 2)})` : 'unknown';
