// The GCRA arithmetic of the `throttled` Go library (rate.go `GCRARateLimiter.RateLimit`, http.go
// `setRateLimitHeaders`), re-derived from the published algorithm. It must stay independent of the
// reference limiter: the probes' predictions are evidence only if they come from their own model.
//
// Everything is a function of the backlog b = tat - now seen by an arriving request (ms):
//   accepted iff b <= burst*T           (denied when now < newTat - tau, tau = T*(burst+1))
//   accepted: ttl = max(b,0) + T, Remaining = floor(burst - max(b,0)/T), Reset = ceil(ttl s)
//   denied:   ttl = b, Remaining = 0, Reset = ceil(b s), Retry-After = ceil((b - burst*T) s)
// Network delay makes arrival times, and so backlogs, intervals; predictions are ranges.

export interface GcraParams {
  /** X-RateLimit-Limit: burst + 1. */
  limit: number;
  /** T in ms: 3600 s / hourly limit. */
  emissionIntervalMs: number;
}

export interface Interval {
  lo: number;
  hi: number;
}

export interface GcraAnswer {
  accepted: boolean;
  remaining: number;
  reset: number;
  retryAfter?: number;
  ttlMs: number;
}

// Header arithmetic is integer nanoseconds in Go; in float ms a boundary value can land a hair
// off, so floors and ceilings get a tolerance far below any network effect.
const EPS = 1e-6;
export const floorSafe = (v: number): number => Math.floor(v + EPS);
export const ceilSeconds = (ms: number): number => Math.ceil(ms / 1000 - EPS);
// Interval ends round outward: a value on an exact boundary (float ms here, whole ns at the
// server) may land on either side. floorSafe and ceilSeconds already lean up and down; these
// two lean the other way for the opposite end.
const floorLo = (v: number): number => Math.floor(v - EPS);
const ceilSecondsHi = (ms: number): number => Math.ceil(ms / 1000 + EPS);

export const burstOf = (limit: number): number => limit - 1;

/** The exact answer to a request arriving `backlogMs` before the bucket's theoretical arrival time. */
export function answer(backlogMs: number, p: GcraParams): GcraAnswer {
  const T = p.emissionIntervalMs;
  const burst = burstOf(p.limit);
  if (backlogMs > burst * T + EPS) {
    return {
      accepted: false,
      remaining: 0,
      reset: ceilSeconds(backlogMs),
      retryAfter: Math.max(1, ceilSeconds(backlogMs - burst * T)),
      ttlMs: backlogMs,
    };
  }
  const b = Math.max(backlogMs, 0);
  const ttl = b + T;
  return { accepted: true, remaining: Math.max(0, floorSafe(burst - b / T)), reset: ceilSeconds(ttl), ttlMs: ttl };
}

/** Exact tat bookkeeping: the bucket after one request at `now` (accepted requests add T). */
export function step(tat: number, now: number, p: GcraParams): { tat: number; answer: GcraAnswer } {
  const a = answer(tat - now, p);
  return { tat: a.accepted ? Math.max(tat, now) + p.emissionIntervalMs : tat, answer: a };
}

export interface AcceptedRange {
  remaining: Interval;
  reset: Interval;
  ttlMs: Interval;
}

export interface DeniedRange {
  remaining: Interval;
  reset: Interval;
  retryAfter: Interval;
  ttlMs: Interval;
  /** The wait until the bucket takes a request again, before any rounding (ms). */
  waitMs: Interval;
}

export interface Prediction {
  acceptPossible: boolean;
  denyPossible: boolean;
  accepted?: AcceptedRange;
  denied?: DeniedRange;
}

/**
 * Every answer the limiter can give when the backlog lies in `backlog` and T in `T`. Each header is
 * monotone in the backlog and in T, so the corners of the box bound it.
 */
export function predict(backlog: Interval, T: Interval, limit: number): Prediction {
  const burst = burstOf(limit);
  const edgeLo = burst * T.lo;
  const edgeHi = burst * T.hi;
  // Both outcomes are judged outward: a backlog within EPS of the edge may fall on either side.
  const out: Prediction = { acceptPossible: backlog.lo <= edgeHi + EPS, denyPossible: backlog.hi > edgeLo - EPS };
  if (out.acceptPossible) {
    const bLo = Math.max(backlog.lo, 0);
    const bHi = Math.max(Math.min(backlog.hi, edgeHi), 0);
    const ttl = { lo: bLo + T.lo, hi: bHi + T.hi };
    out.accepted = {
      remaining: { lo: Math.max(0, floorLo(burst - bHi / T.lo)), hi: Math.max(0, floorSafe(burst - bLo / T.hi)) },
      reset: { lo: ceilSeconds(ttl.lo), hi: ceilSecondsHi(ttl.hi) },
      ttlMs: ttl,
    };
  }
  if (out.denyPossible) {
    const bLo = Math.max(backlog.lo, edgeLo);
    const bHi = backlog.hi;
    // Past the edge Remaining is 0; a backlog on the edge can be judged past it while its ttl rounds
    // back onto it (float ms, whole ns at the server), and then Remaining reads 1.
    out.denied = {
      remaining: { lo: 0, hi: backlog.lo <= edgeHi + EPS ? 1 : 0 },
      reset: { lo: ceilSeconds(bLo), hi: ceilSecondsHi(bHi) },
      retryAfter: { lo: Math.max(1, ceilSeconds(bLo - edgeHi)), hi: Math.max(1, ceilSecondsHi(bHi - edgeLo)) },
      ttlMs: { lo: bLo, hi: bHi },
      waitMs: { lo: Math.max(0, bLo - edgeHi), hi: Math.max(0, bHi - edgeLo) },
    };
  }
  return out;
}

/** The backlogs an observed accepted answer allows: from Remaining, then from Reset. */
export function backlogFromAccepted(
  obs: { remaining?: number; reset?: number },
  T: Interval,
  limit: number,
): Interval[] {
  const burst = burstOf(limit);
  const out: Interval[] = [];
  if (obs.remaining !== undefined && Number.isInteger(obs.remaining)) {
    const r = obs.remaining;
    if (r >= burst) out.push({ lo: -Infinity, hi: 0 });
    else out.push({ lo: (burst - r - 1) * T.lo, hi: (burst - r) * T.hi });
  }
  if (obs.reset !== undefined && Number.isInteger(obs.reset)) {
    // max(b,0) + T in ((R-1) s, R s]
    const hi = obs.reset * 1000 - T.lo;
    const lo = (obs.reset - 1) * 1000 - T.hi;
    out.push({ lo: lo > 0 ? lo : -Infinity, hi });
  }
  return out;
}

/** The backlogs an observed denial allows: from Reset and from Retry-After. */
export function backlogFromDenied(
  obs: { reset?: number; retryAfter?: number },
  T: Interval,
  limit: number,
): Interval[] {
  const burst = burstOf(limit);
  const out: Interval[] = [{ lo: burst * T.lo, hi: Infinity }];
  if (obs.reset !== undefined && Number.isInteger(obs.reset))
    out.push({ lo: (obs.reset - 1) * 1000, hi: obs.reset * 1000 });
  if (obs.retryAfter !== undefined && Number.isInteger(obs.retryAfter)) {
    out.push({ lo: (obs.retryAfter - 1) * 1000 + burst * T.lo, hi: obs.retryAfter * 1000 + burst * T.hi });
  }
  return out;
}

export function intersect(a: Interval, b: Interval): Interval | undefined {
  const lo = Math.max(a.lo, b.lo);
  const hi = Math.min(a.hi, b.hi);
  return lo <= hi + EPS ? { lo, hi: Math.max(lo, hi) } : undefined;
}

export const within = (v: number, r: Interval, slack = 0): boolean => v >= r.lo - slack && v <= r.hi + slack;
