// The horizon node's admission path as data flow: proxy cap -> limiter core -> header values.
// Faults are small transforms around the faithful pieces (a different rate, a clock that forgets
// idle time, a rewritten header), never a second copy of the GCRA.
import { limiterFault, type LimiterFaultName } from '../faults/limiter.js';
import { CAP_STRICT_SPACING_VARIANT, createCap, type CapShape } from './cap.js';
import { fixedWindow, type WindowState } from './fixed-window.js';
import {
  ceilSeconds,
  GcraLimiter,
  gcraParams,
  headersOf,
  msToNs,
  remainingOf,
  type GcraParams,
  type LimitOutcome,
  type RateLimitHeaders,
} from './gcra.js';

/**
 * Open-behaviour variant: every horizon node of the reference (a fleet) draws on one GCRA bucket,
 * the account's, as a provider that keys the bucket by customer does; each node keeps its token and
 * its per-second cap. One limiter then serves them all (ReferenceOptions.horizonLimiter).
 */
export const ACCOUNT_BUCKET_VARIANT = 'horizon-account-bucket';
const ACCOUNT_BUCKET = 'account';

/** The two methods of /fee_stats: a fault may treat them differently. */
export type FeeStatsMethod = 'GET' | 'HEAD';

export type Admission =
  /** Over the per-second cap: the proxy answers; the limiter never sees the request. */
  { by: 'proxy' } | { by: 'limiter'; limited: boolean; headers: RateLimitHeaders };

export interface HorizonLimiter {
  /** What the limiter runs with (a fault may make it differ from the options). */
  readonly params: GcraParams;
  /** The proxy cap in force (Infinity when off). */
  readonly perSecondCap: number;
  admit(key: string, nowMs: number, method?: FeeStatsMethod): Admission;
}

/** The reference options a limiter reads (a structural part of ReferenceOptions, which holds the shared limiter). */
export interface LimiterOptions {
  faults: ReadonlySet<string>;
  hourlyLimit: number;
  burst: number;
  perSecondCap: number;
  variants?: ReadonlySet<string>;
}

/** One decision for a key at a time; the state lives in the closure. `count` false: answer as if counted, keep the state. */
type Core = (key: string, nowNs: bigint, count: boolean) => LimitOutcome;
type HeaderTransform = (h: RateLimitHeaders, o: LimitOutcome, nowMs: number) => void;

/** How far the faults move the numbers; kept here so tests and descriptions agree. */
export const FAULT_KNOBS = {
  wrongRateFactor: 5 / 6,
  burstShortBy: 5,
  capTooHighBy: 5,
  driftLimitBy: 10,
  stuckCreditIntervals: 2n,
} as const;

function gcraCore(params: GcraParams): Core {
  const limiter = new GcraLimiter(params);
  return (key, nowNs, count) => limiter.take(key, nowNs, 1, count);
}

function fixedWindowCore(params: GcraParams): Core {
  const windows = new Map<string, WindowState>();
  const p = { windowNs: params.toleranceNs, limit: params.limit };
  return (key, nowNs, count) => {
    const { state, outcome } = fixedWindow(windows.get(key), nowNs, p);
    if (count) windows.set(key, state);
    return outcome;
  };
}

/** Each key's clock advances by at most `maxCreditNs` between two of its requests. */
function withCappedIdleCredit(core: Core, maxCreditNs: bigint): Core {
  const clocks = new Map<string, { virtualNs: bigint; realNs: bigint }>();
  return (key, nowNs, count) => {
    const c = clocks.get(key);
    let virtualNs = nowNs;
    if (c) {
      const elapsed = nowNs - c.realNs;
      virtualNs = c.virtualNs + (elapsed < maxCreditNs ? elapsed : maxCreditNs);
    }
    clocks.set(key, { virtualNs, realNs: nowNs });
    return core(key, virtualNs, count);
  };
}

export function createHorizonLimiter(opts: LimiterOptions): HorizonLimiter {
  const on = (name: LimiterFaultName) => limiterFault(opts.faults, name);
  const hourly = on('rl-wrong-hourly-rate')
    ? Math.max(1, Math.round(opts.hourlyLimit * FAULT_KNOBS.wrongRateFactor))
    : opts.hourlyLimit;
  const advertised = gcraParams(hourly, opts.burst);
  const params = on('rl-burst-short')
    ? gcraParams(hourly, Math.max(0, opts.burst - FAULT_KNOBS.burstShortBy))
    : advertised;

  let core = on('rl-fixed-window') ? fixedWindowCore(params) : gcraCore(params);
  if (on('rl-recovery-stuck')) core = withCappedIdleCredit(core, params.emissionNs * FAULT_KNOBS.stuckCreditIntervals);

  const transforms: HeaderTransform[] = [];
  if (on('rl-burst-short')) {
    // The headers speak for the advertised quota; only the decision uses the shorter one.
    transforms.push((h, o) => {
      h.limit = advertised.limit;
      h.remaining = remainingOf(advertised.toleranceNs, o.resetNs, advertised.emissionNs);
    });
  }
  if (on('rl-limit-drifts')) {
    let n = 0;
    transforms.push((h) => {
      if (n++ % 2 === 1) h.limit += FAULT_KNOBS.driftLimitBy;
    });
  }
  if (on('rl-reset-static')) {
    const oneInterval = ceilSeconds(params.emissionNs);
    transforms.push((h) => {
      h.reset = oneInterval;
    });
  }
  if (on('rl-reset-off')) {
    transforms.push((h, o) => {
      const beyondFirst = o.resetNs > params.emissionNs ? o.resetNs - params.emissionNs : 0n;
      h.reset = ceilSeconds(o.resetNs + beyondFirst / 2n);
    });
  }
  if (on('rl-reset-epoch')) {
    // The Unix second at which the bucket is full again, as APIs that send a timestamp write it.
    transforms.push((h, o, nowMs) => {
      h.reset = ceilSeconds(msToNs(nowMs) + o.resetNs);
    });
  }
  if (on('rl-remaining-overstated')) {
    transforms.push((h, o) => {
      if (!o.limited) h.remaining = Math.max(h.remaining, Math.min(1, h.limit - 1));
    });
  }
  if (on('rl-retry-after-missing')) transforms.push((h) => void delete h.retryAfter);
  if (on('rl-retry-after-ms')) {
    transforms.push((h, o) => {
      if (o.retryAfterNs !== undefined) h.retryAfter = Math.ceil(Number(o.retryAfterNs) / 1e6);
    });
  }
  if (on('rl-retry-after-short')) {
    transforms.push((h) => {
      if (h.retryAfter !== undefined) h.retryAfter = 0;
    });
  }

  const perSecondCap = on('rl-no-cap')
    ? Infinity
    : on('rl-cap-25')
      ? opts.perSecondCap + FAULT_KNOBS.capTooHighBy
      : opts.perSecondCap;
  const shape: CapShape = on('rl-cap-calendar-second')
    ? 'calendar-second'
    : on('rl-cap-token-bucket')
      ? 'token-bucket'
      : opts.variants?.has(CAP_STRICT_SPACING_VARIANT)
        ? 'strict-spacing'
        : 'sliding';
  const cap = createCap(shape, perSecondCap);
  // A HEAD is answered as a counted request would be, but the bucket keeps its state.
  const headFree = on('rl-head-free');
  const bucketOf = opts.variants?.has(ACCOUNT_BUCKET_VARIANT) ? () => ACCOUNT_BUCKET : (key: string) => key;
  const replay = on('rl-replayed-refusal')
    ? replayedRefusals({ holdFor: 1, times: 1 })
    : on('rl-replayed-refusal-stale')
      ? replayedRefusals({ holdFor: Infinity, times: 2 })
      : undefined;

  return {
    params,
    perSecondCap,
    admit(key, nowMs, method = 'GET') {
      if (!cap.admit(key, nowMs)) return { by: 'proxy' };
      const bucket = bucketOf(key);
      const counts = !(headFree && method === 'HEAD');
      // The cache answers only requests the limiter would take (it holds a refusal, not a quota).
      const replayed = replay?.lookup(bucket, nowMs, () => !core(bucket, msToNs(nowMs), false).limited);
      if (replayed) return replayed;
      const outcome = core(bucket, msToNs(nowMs), counts);
      const headers = headersOf(outcome);
      for (const t of transforms) t(headers, outcome, nowMs);
      const admission: Admission = { by: 'limiter', limited: outcome.limited, headers };
      replay?.keep(bucket, nowMs, admission);
      return admission;
    },
  };
}

/**
 * A response cache in front of the limiter that keeps the limiter's first 429 of each bucket for
 * `holdFor` times its retry-after and answers with it (the same headers, stale) the first `times`
 * requests the limiter would take in that time. The limiter never sees a replayed request, so it
 * uses no quota (faults rl-replayed-refusal: once, within its retry-after; -stale: twice, however
 * late, so the request sent once the first replay's retry-after has passed is refused again, on any
 * machine and at any T).
 */
function replayedRefusals(o: { holdFor: number; times: number }) {
  const kept = new Map<string, { atMs: number; admission: Admission & { by: 'limiter' }; replays: number }>();
  return {
    lookup(bucket: string, nowMs: number, wouldTake: () => boolean): Admission | undefined {
      const k = kept.get(bucket);
      if (!k || k.replays >= o.times) return undefined;
      if (nowMs >= k.atMs + o.holdFor * (k.admission.headers.retryAfter ?? 0) * 1000 || !wouldTake()) return undefined;
      k.replays += 1;
      return { ...k.admission, headers: { ...k.admission.headers } };
    },
    keep(bucket: string, nowMs: number, a: Admission & { by: 'limiter' }): void {
      if (a.limited && !kept.has(bucket)) kept.set(bucket, { atMs: nowMs, admission: a, replays: 0 });
    },
  };
}
