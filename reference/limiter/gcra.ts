// The GCRA as the `throttled` Go library computes it (GCRARateLimiter.RateLimit and the HTTP
// header writer). Horizon-style nodes run that library, so the reference must match it to the
// nanosecond: times are BigInt nanoseconds, like Go's time.Duration, so no float rounding can
// move a boundary (3600 s / 2000 = 1.8 s exactly, 16.2 s / 1.8 s = 9 exactly).

export const NS_PER_MS = 1_000_000n;
export const NS_PER_S = 1_000_000_000n;
const HOUR_NS = 3600n * NS_PER_S;

export interface GcraParams {
  /** T: time between requests at the sustained rate (Go: time.Hour / n, truncated to whole ns). */
  readonly emissionNs: bigint;
  /** tau: how far ahead of the nominal schedule a key may run, T * (burst + 1). */
  readonly toleranceNs: bigint;
  /** burst + 1: what the Limit header says. */
  readonly limit: number;
}

export class GcraParamsError extends Error {}

export function gcraParams(hourlyLimit: number, burst: number): GcraParams {
  if (!Number.isSafeInteger(hourlyLimit) || hourlyLimit <= 0)
    throw new GcraParamsError(`hourly limit must be a positive integer, got ${hourlyLimit}`);
  if (!Number.isSafeInteger(burst) || burst < 0)
    throw new GcraParamsError(`burst must be a non-negative integer, got ${burst}`);
  const emissionNs = HOUR_NS / BigInt(hourlyLimit);
  if (emissionNs <= 0n) throw new GcraParamsError(`hourly limit ${hourlyLimit} is above one request per nanosecond`);
  return { emissionNs, toleranceNs: emissionNs * BigInt(burst + 1), limit: burst + 1 };
}

/** The stored state of one key: its theoretical arrival time (ns), or undefined for a fresh key. */
export type Tat = bigint | undefined;

/** What one decision reports; limiter variants (faults) produce the same shape. */
export interface LimitOutcome {
  limited: boolean;
  limit: number;
  remaining: number;
  /** Time until the key is back at full quota (Go: ResetAfter). */
  resetNs: bigint;
  /** Time until a request will be allowed; only on denials (Go: RetryAfter, -1 otherwise). */
  retryAfterNs?: bigint;
}

/** Go's `int(next / T)` guarded by `next > -T`: truncation toward zero, never negative. */
export function remainingOf(toleranceNs: bigint, ttlNs: bigint, emissionNs: bigint): number {
  const next = toleranceNs - ttlNs;
  return next > -emissionNs ? Number(next / emissionNs) : 0;
}

/**
 * One decision for one key at `nowNs`. A denial returns the state unchanged: denied requests use
 * no quota. `quantity` 0 peeks, as in the library.
 */
export function gcra(tat: Tat, nowNs: bigint, p: GcraParams, quantity = 1): { tat: Tat; outcome: LimitOutcome } {
  const from = tat === undefined || nowNs > tat ? nowNs : tat;
  const increment = BigInt(quantity) * p.emissionNs;
  const newTat = from + increment;
  const allowAt = newTat - p.toleranceNs;
  if (nowNs < allowAt) {
    // Go leaves ttl at 0 when the request could never fit (increment > tau).
    const fits = increment <= p.toleranceNs;
    const ttl = fits && tat !== undefined ? tat - nowNs : 0n;
    const outcome: LimitOutcome = {
      limited: true,
      limit: p.limit,
      remaining: remainingOf(p.toleranceNs, ttl, p.emissionNs),
      resetNs: ttl,
    };
    if (fits) outcome.retryAfterNs = allowAt - nowNs;
    return { tat, outcome };
  }
  const ttl = newTat - nowNs;
  return {
    tat: newTat,
    outcome: { limited: false, limit: p.limit, remaining: remainingOf(p.toleranceNs, ttl, p.emissionNs), resetNs: ttl },
  };
}

/** Clock milliseconds (integer or fractional) to ns, exact for integer ms whatever the epoch. */
export function msToNs(ms: number): bigint {
  const whole = Math.floor(ms);
  const ns = BigInt(whole) * NS_PER_MS;
  return whole === ms ? ns : ns + BigInt(Math.round((ms - whole) * 1e6));
}

/** Go's `int(math.Ceil(d.Seconds()))` for the durations that occur here. */
export function ceilSeconds(ns: bigint): number {
  const s = ns / NS_PER_S;
  return Number(ns % NS_PER_S > 0n ? s + 1n : s);
}

/** The header values, rounded as the library's HTTP writer does. */
export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  reset: number;
  /** Present only on a denial. */
  retryAfter?: number;
}

export function headersOf(o: LimitOutcome): RateLimitHeaders {
  const h: RateLimitHeaders = { limit: o.limit, remaining: o.remaining, reset: ceilSeconds(o.resetNs) };
  if (o.retryAfterNs !== undefined) h.retryAfter = ceilSeconds(o.retryAfterNs);
  return h;
}

/** Wire spellings: Go canonicalises `X-RateLimit-Limit` to `X-Ratelimit-Limit` when it writes. */
export const RATE_LIMIT_HEADER = {
  limit: 'X-Ratelimit-Limit',
  remaining: 'X-Ratelimit-Remaining',
  reset: 'X-Ratelimit-Reset',
  retryAfter: 'Retry-After',
} as const;

/** A key -> TAT store around the pure function: the library's memory store, minus expiry. */
export class GcraLimiter {
  private readonly tats = new Map<string, bigint>();

  constructor(readonly params: GcraParams) {}

  /** One decision; with `store` false the key's state is left as it was (a request answered but never counted). */
  take(key: string, nowNs: bigint, quantity = 1, store = true): LimitOutcome {
    const { tat, outcome } = gcra(this.tats.get(key), nowNs, this.params, quantity);
    if (store && tat !== undefined && !outcome.limited) this.tats.set(key, tat);
    return outcome;
  }
}
