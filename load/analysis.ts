// From samples to model: which limiter outcome each answer was, whether it was surely under the
// per-second cap, the parameters estimated from the headers, and the replay with those parameters.
// Used online (to time the recovery probes) and once at the end (for every verdict).
import { is2xx } from '../src/http/status.js';
import { surelyUnderCap } from './model/cap.js';
import { estimateEmissionInterval, estimateLimit, type EmissionEstimate } from './model/estimate.js';
import { type Interval } from './model/gcra.js';
import { replay, type LimiterOutcome, type ReplayInput, type ReplayStep } from './model/replay.js';
import type { Sample } from './session.js';

export interface Classified {
  sample: Sample;
  /** Fewer than the cap can have arrived in the second before it: no cap refused it. */
  underCap: boolean;
  /** A non-2xx answer that may come from the cap rather than the limiter. */
  capSuspect: boolean;
  /** 2xx. */
  accepted: boolean;
  /** The limiter's 429: a 429 while surely under the cap. */
  limiterDenial: boolean;
}

export type CapQuotaUse = 'no' | 'yes' | 'undetermined' | 'not-seen';

export interface Analysis {
  /** Samples in send order. */
  samples: Sample[];
  classes: Classified[];
  limit?: number;
  limitValues: number[];
  estimate?: EmissionEstimate;
  /**
   * The T the rules speak of, as a band: the estimate when one T explains every answer and is known
   * to 10%, else the customer's T (3600 s / hourly limit, as the rules define it) when it is known.
   */
  T?: Interval;
  Tsource?: 'estimate' | 'declared';
  capQuotaUse: CapQuotaUse;
  inputs: ReplayInput[];
  steps: ReplayStep[];
}


export function classify(samples: readonly Sample[], cap: number): Classified[] {
  const spans = samples.map((s) => ({ sentAt: s.sentAt, receivedAt: s.receivedAt }));
  return samples.map((sample, i) => {
    const underCap = surelyUnderCap(spans, i, cap);
    const answered = sample.status !== undefined;
    const accepted = is2xx(sample);
    return {
      sample,
      underCap,
      accepted,
      capSuspect: answered && !accepted && !underCap,
      limiterDenial: answered && sample.status === 429 && underCap,
    };
  });
}

function inputsOf(classes: readonly Classified[], capConsumes: boolean): ReplayInput[] {
  return classes.map((c) => {
    const s = c.sample;
    let outcome: LimiterOutcome;
    if (c.accepted) outcome = 'accepted';
    else if (c.limiterDenial) outcome = 'denied';
    else if (c.capSuspect) outcome = capConsumes ? 'counted' : 'bypassed';
    else outcome = 'unknown';
    return { sentAt: s.sentAt, receivedAt: s.receivedAt, outcome, remaining: s.rl.remaining, reset: s.rl.reset, retryAfter: s.rl.retryAfter };
  });
}

/** An estimate this sharp (relative half-width) stands for T; a vaguer one gives way to the customer's T. */
export const SHARP_ENOUGH = 0.1;

export interface AnalyzeOptions {
  /** A coarser T search without the cap-quota question, for timing requests mid-run. */
  quick?: boolean;
  /** 3600 s / hourly limit, ms: the rules' T when the answers fit no single T. */
  declaredT?: number;
}

export function analyze(unordered: readonly Sample[], cap: number, opts: AnalyzeOptions = {}): Analysis {
  const samples = [...unordered].sort((a, b) => a.seq - b.seq);
  const classes = classify(samples, cap);
  const { limit, values } = estimateLimit(samples.filter((s) => s.status !== undefined).map((s) => s.rl.limit));
  const out: Analysis = { samples, classes, limit, limitValues: values, capQuotaUse: 'not-seen', inputs: inputsOf(classes, false), steps: [] };
  if (limit === undefined) return out;
  const start = 'unknown' as const;
  const points = opts.quick ? 61 : undefined;
  const bypass = estimateEmissionInterval(out.inputs, limit, { start, points });
  if (!opts.quick && classes.some((c) => c.capSuspect)) {
    const consumeInputs = inputsOf(classes, true);
    const consume = estimateEmissionInterval(consumeInputs, limit, { start });
    // The documented behaviour (rejections never reach the limiter) wins unless only the other fits.
    if (bypass?.consistent) out.capQuotaUse = consume?.consistent ? 'undetermined' : 'no';
    else if (consume?.consistent) {
      out.capQuotaUse = 'yes';
      out.inputs = consumeInputs;
      out.estimate = consume;
    } else out.capQuotaUse = 'undetermined';
  }
  out.estimate ??= bypass;
  const est = out.estimate;
  const sharp = est?.consistent && est.uncertaintyMs <= est.emissionIntervalMs * SHARP_ENOUGH;
  if (est && (sharp || opts.declaredT === undefined)) {
    out.T = est.band;
    out.Tsource = 'estimate';
  } else if (opts.declaredT !== undefined) {
    out.T = { lo: opts.declaredT, hi: opts.declaredT };
    out.Tsource = 'declared';
  }
  if (out.T) out.steps = replay(out.inputs, { limit, T: out.T, start });
  return out;
}

/** The replay state (tat) after the last sample, for timing the next request. */
export function tatAfterLast(a: Analysis): Interval | undefined {
  return a.steps.length ? a.steps[a.steps.length - 1]!.tatAfter : undefined;
}
