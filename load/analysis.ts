// From samples to model: which limiter outcome each answer was, whether it was surely under the
// per-second cap, the parameters estimated from the headers, and the replay with those parameters.
// Used online (to time the recovery probes) and once at the end (for every verdict).
import { is2xx } from '../src/http/status.js';
import { surelyUnderCap } from './model/cap.js';
import {
  hasLimiterHeaders,
  summarizeSpacing,
  surelyElapsedSinceForwarded,
  type SpacingSummary,
} from './model/proxy.js';
import { estimateEmissionInterval, estimateLimit, type EmissionEstimate } from './model/estimate.js';
import { type Interval, type Prediction } from './model/gcra.js';
import { anotherBucket, bucketFit, outsideBucket, plainBefore, type BucketFit } from './model/integrity.js';
import { replay, type LimiterOutcome, type ReplayInput, type ReplayStep } from './model/replay.js';
import type { ProbeMethod } from './engine/types.js';
import type { Sample } from './session.js';

/**
 * Who answered a refusal. `limiter`: it carries the limiter's headers, or it is headerless where the
 * replay says the bucket may be empty and no proxy could have refused it. `proxy`: headerless while
 * the replay says quota surely remains (RL-13). `either`: headerless where the bucket is empty but the proxy
 * may have refused it too (over the count cap, or sooner than twice its learned spacing): no rule
 * is judged on it.
 */
export type RefusedBy = 'limiter' | 'proxy' | 'either';

export interface Classified {
  sample: Sample;
  /** Fewer than the cap can have arrived in the second before it: no count cap refused it. */
  underCap: boolean;
  /** A non-2xx answer attributed to the proxy: RL-13, never a limiter rule. */
  capSuspect: boolean;
  /** 2xx. */
  accepted: boolean;
  /** The limiter's 429. */
  limiterDenial: boolean;
  refusedBy?: RefusedBy;
}

export type CapQuotaUse = 'no' | 'yes' | 'undetermined' | 'not-seen';

/** A varied request (RL-14) against the token's bucket. */
export interface VariationJudgement {
  sample: Sample;
  fit: BucketFit;
  /** What the token's bucket allowed at that moment, when there is a model. */
  prediction?: Prediction;
  /** The plain request's answer last received before it was sent. */
  plainBefore?: Sample;
  /** The token's bucket model counts it (false: another bucket answered it, or not the limiter). */
  modelled: boolean;
}

export interface Analysis {
  /** The samples the token's bucket answered, in send order: every plain one, and the variations it explains. */
  samples: Sample[];
  /** Every sample sent, in send order. */
  all: Sample[];
  /** Every varied request, in send order. */
  variations: VariationJudgement[];
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
  /**
   * A method the limiter answers but does not count (RL-03): HEAD, when no T explains the answers
   * with HEADs counted and one does with them left out. The estimate and replay then leave them out,
   * so that T and every forecast rest on the GETs.
   */
  uncharged?: ProbeMethod;
  /** What the proxy's refusals said about a least spacing between forwarded requests. */
  spacing?: SpacingSummary;
  /**
   * The limiter's refusals where the bucket surely had quota (a cache replaying a refusal, a limiter
   * that recovers too slowly), left out of the estimate and the replay because only without them
   * does one T explain the answers: RL-05 and RL-07 judge them, and T rests on the rest.
   */
  refusedWithQuota?: Sample[];
  inputs: ReplayInput[];
  steps: ReplayStep[];
}

/** First look, before any replay: the limiter's headers decide; a headerless refusal counts as the proxy's. */
export function classify(samples: readonly Sample[], cap: number): Classified[] {
  const spans = samples.map((s) => ({ sentAt: s.sentAt, receivedAt: s.receivedAt }));
  return samples.map((sample, i) => {
    const underCap = surelyUnderCap(spans, i, cap);
    const answered = sample.status !== undefined;
    const accepted = is2xx(sample);
    const refusedBy: RefusedBy | undefined =
      !answered || accepted ? undefined : hasLimiterHeaders(sample) ? 'limiter' : 'proxy';
    return {
      sample,
      underCap,
      accepted,
      refusedBy,
      capSuspect: refusedBy === 'proxy',
      limiterDenial: refusedBy === 'limiter' && sample.status === 429,
    };
  });
}

/**
 * Second look, with the replay: a headerless refusal is the proxy's only while the replay says quota
 * surely remains; where the bucket may be empty it is the limiter's (one that strips its headers
 * fails RL-01), unless the proxy may have refused it too.
 */
function attribute(classes: Classified[], steps: readonly ReplayStep[], cap: number): SpacingSummary {
  const samples = classes.map((c) => c.sample);
  // Only refusals while quota surely remained teach the spacing.
  const spacing = summarizeSpacing(samples, cap, (s) => {
    const i = samples.indexOf(s);
    const c = classes[i]!;
    return c.capSuspect && c.underCap && steps[i]?.prediction.denyPossible === false;
  });
  classes.forEach((c, i) => {
    const p = steps[i]?.prediction;
    if (c.refusedBy !== 'proxy' || !p || !p.denyPossible) return;
    // The least gap the proxy can have seen: sent after the last forwarded request's answer at the latest.
    const proxyMay =
      !c.underCap || (spacing.gapMs > 0 && surelyElapsedSinceForwarded(samples, c.sample) < 2 * spacing.gapMs);
    c.refusedBy = proxyMay ? 'either' : 'limiter';
    c.capSuspect = false;
    c.limiterDenial = c.refusedBy === 'limiter' && c.sample.status === 429;
  });
  return spacing;
}

function inputsOf(classes: readonly Classified[], capConsumes: boolean, uncharged?: ProbeMethod): ReplayInput[] {
  return classes.map((c) => {
    const s = c.sample;
    let outcome: LimiterOutcome;
    if (c.accepted) outcome = s.method === uncharged ? 'bypassed' : 'accepted';
    else if (c.limiterDenial) outcome = 'denied';
    else if (c.capSuspect) outcome = capConsumes ? 'counted' : 'bypassed';
    // Headerless where the bucket is empty: used no quota whoever refused it.
    else if (c.refusedBy === 'either' || c.refusedBy === 'limiter') outcome = 'bypassed';
    else outcome = 'unknown';
    return {
      sentAt: s.sentAt,
      receivedAt: s.receivedAt,
      outcome,
      remaining: s.rl.remaining,
      reset: s.rl.reset,
      retryAfter: s.rl.retryAfter,
    };
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

/**
 * The token's bucket and everything sent. A variation whose answer that bucket cannot have given
 * (another bucket's Remaining, no limiter headers, a status that is not the limiter's) is taken out
 * of the model, one at a time in send order (each changes what the bucket allowed afterwards), with
 * the other requests of its variation when it showed another bucket, so an escape is judged once,
 * by RL-14, and never counts against the limiter rules.
 */
export function analyze(unordered: readonly Sample[], cap: number, opts: AnalyzeOptions = {}): Analysis {
  const all = [...unordered].sort((a, b) => a.seq - b.seq);
  const varied = all.filter((s) => s.variation);
  const outside = new Set(varied.filter((s) => !mayBeTheBuckets(s)));
  let out = analyzeBucket(
    all.filter((s) => !outside.has(s)),
    cap,
    opts,
  );
  for (let round = 0; round < varied.length; round++) {
    const fits = out.samples.map((s, i) => (s.variation ? bucketFit(s, out.steps[i]?.prediction) : undefined));
    const i = fits.findIndex((f) => f !== undefined && outsideBucket(f));
    if (i < 0) break;
    const next = out.samples[i]!;
    outside.add(next);
    // A limiter keys a request the same way each time it varies the same thing: once one answer shows
    // another bucket behind a variation, every request of it leaves the model, also those answered
    // while both buckets were about full, where the two cannot be told apart (the drain's lead-in).
    if (anotherBucket(fits[i]!)) for (const s of varied) if (s.variation!.id === next.variation!.id) outside.add(s);
    out = analyzeBucket(
      all.filter((s) => !outside.has(s)),
      cap,
      opts,
    );
  }
  const elsewhere = predictionsAside(out, all, outside);
  out.all = all;
  out.variations = varied.map((s) => {
    const i = out.samples.indexOf(s);
    const prediction = i >= 0 ? out.steps[i]?.prediction : elsewhere.get(s);
    return { sample: s, fit: bucketFit(s, prediction), prediction, plainBefore: plainBefore(all, s), modelled: i >= 0 };
  });
  return out;
}

/** An answer the bucket model can take at all: a limiter's (with its headers), a headerless cap refusal, or none. */
const mayBeTheBuckets = (s: Sample): boolean =>
  s.status === undefined || hasLimiterHeaders(s) || s.status === 429 || s.status === 503;

/** What the token's bucket allowed when each request outside it arrived: a replay where they use nothing. */
function predictionsAside(a: Analysis, all: readonly Sample[], outside: ReadonlySet<Sample>): Map<Sample, Prediction> {
  const out = new Map<Sample, Prediction>();
  if (!outside.size || !a.T || a.limit === undefined) return out;
  const index = new Map(a.samples.map((s, i) => [s, i]));
  const order = all.filter((s) => outside.has(s) || index.has(s));
  const inputs = order.map(
    (s): ReplayInput =>
      a.inputs[index.get(s) ?? -1] ?? { sentAt: s.sentAt, receivedAt: s.receivedAt, outcome: 'bypassed' },
  );
  replay(inputs, { limit: a.limit, T: a.T, start: 'unknown' }).forEach((step, i) => {
    if (outside.has(order[i]!)) out.set(order[i]!, step.prediction);
  });
  return out;
}

/** The model of the token's bucket over these samples: classes, Limit, T and the replay. */
function analyzeBucket(samples: Sample[], cap: number, opts: AnalyzeOptions): Analysis {
  const classes = classify(samples, cap);
  const { limit, values } = estimateLimit(samples.filter((s) => s.status !== undefined).map((s) => s.rl.limit));
  const out: Analysis = {
    samples,
    all: samples,
    variations: [],
    classes,
    limit,
    limitValues: values,
    capQuotaUse: 'not-seen',
    inputs: inputsOf(classes, false),
    steps: [],
  };
  if (limit === undefined) return out;
  const start = 'unknown' as const;
  const points = opts.quick ? 61 : undefined;
  const suspects = !opts.quick && classes.some((c) => c.capSuspect);
  /** The estimate with accepted requests of `uncharged` left uncounted, and the cap-quota question where it arises. */
  const fit = (uncharged?: ProbeMethod): Pick<Analysis, 'inputs' | 'estimate' | 'capQuotaUse'> => {
    const bypassInputs = inputsOf(classes, false, uncharged);
    const bypass = estimateEmissionInterval(bypassInputs, limit, { start, points });
    if (!suspects) return { inputs: bypassInputs, estimate: bypass, capQuotaUse: 'not-seen' };
    const consumeInputs = inputsOf(classes, true, uncharged);
    const consume = estimateEmissionInterval(consumeInputs, limit, { start });
    // The documented behaviour (rejections never reach the limiter) wins unless only the other fits.
    if (bypass?.consistent)
      return { inputs: bypassInputs, estimate: bypass, capQuotaUse: consume?.consistent ? 'undetermined' : 'no' };
    if (consume?.consistent) return { inputs: consumeInputs, estimate: consume, capQuotaUse: 'yes' };
    return { inputs: bypassInputs, estimate: bypass, capQuotaUse: 'undetermined' };
  };
  let fitted = fit();
  // HEADs left uncounted only when nothing else explains the answers (a conformant limiter's fit as it is).
  if (!fitted.estimate?.consistent && classes.some((c) => c.accepted && c.sample.method === 'HEAD')) {
    const headFree = fit('HEAD');
    if (headFree.estimate?.consistent) {
      fitted = headFree;
      out.uncharged = 'HEAD';
    }
  }
  Object.assign(out, fitted);
  // Refusals no GCRA with the customer's T gives (quota surely left), when only without them one T explains the rest.
  const withQuota = opts.quick || out.estimate?.consistent ? [] : refusedWithQuota(out, limit, opts.declaredT);
  if (withQuota.length) {
    const inputs = asBypassed(out.inputs, withQuota);
    const estimate = estimateEmissionInterval(inputs, limit, { start });
    if (estimate?.consistent) {
      Object.assign(out, { inputs, estimate });
      out.refusedWithQuota = withQuota.map((i) => samples[i]!);
    }
  }
  const est = out.estimate;
  const sharp = est?.consistent && est.uncertaintyMs <= est.emissionIntervalMs * SHARP_ENOUGH;
  if (est && (sharp || opts.declaredT === undefined)) {
    out.T = est.band;
    out.Tsource = 'estimate';
  } else if (opts.declaredT !== undefined) {
    out.T = { lo: opts.declaredT, hi: opts.declaredT };
    out.Tsource = 'declared';
  }
  if (out.T) {
    out.steps = replay(out.inputs, { limit, T: out.T, start });
    if (classes.some((c) => c.capSuspect)) {
      out.spacing = attribute(classes, out.steps, cap);
      out.inputs = inputsOf(classes, out.capQuotaUse === 'yes', out.uncharged);
      if (out.refusedWithQuota)
        out.inputs = asBypassed(
          out.inputs,
          out.refusedWithQuota.map((s) => samples.indexOf(s)),
        );
      out.steps = replay(out.inputs, { limit, T: out.T, start });
    }
  }
  return out;
}

/**
 * The limiter's refusals (by index) that a replay at the customer's T says surely met quota left:
 * where the model accepts for sure, no GCRA refuses. None without the customer's T.
 */
function refusedWithQuota(a: Analysis, limit: number, declaredT: number | undefined): number[] {
  if (declaredT === undefined) return [];
  const steps = replay(a.inputs, { limit, T: { lo: declaredT, hi: declaredT }, start: 'unknown' });
  return a.inputs.flatMap((x, i) =>
    x.outcome === 'denied' && steps[i]!.prediction.acceptPossible && !steps[i]!.prediction.denyPossible ? [i] : [],
  );
}

/** The inputs with these requests left out of the bucket (answered by something else). */
const asBypassed = (inputs: readonly ReplayInput[], which: readonly number[]): ReplayInput[] =>
  inputs.map((x, i) => (which.includes(i) ? { ...x, outcome: 'bypassed' as const } : x));

/** The replay state (tat) after the last sample, for timing the next request. */
export function tatAfterLast(a: Analysis): Interval | undefined {
  return a.steps.length ? a.steps[a.steps.length - 1]!.tatAfter : undefined;
}
