// What a GCRA limiter can send at all. The `throttled` arithmetic (gcra.ts) bounds every header by
// the answer's own Limit and Remaining and by T: Limit is burst + 1, so at least 1; Remaining is
// below Limit; Reset is the time until the bucket is full again, at most (Limit - Remaining) x T on
// an accepted answer and Limit x T on a denial; Retry-After is a wait under one T. With T anywhere
// the model allows (T_RANGE, or the customer's T when that is longer), a value outside these bounds
// cannot be true whatever the run's other answers say: a Reset written as a Unix timestamp (about
// 1.8 billion), in milliseconds, or of days where Limit x T allows seconds; a Limit of 0; Remaining
// at or above Limit. Such a value is kept for the rule it breaks (its raw text and why) and read as
// absent by everything else: it never steers the model, nor sets a wait of the plan.
import { T_RANGE } from './estimate.js';
import { ceilSeconds } from './gcra.js';

/** The parsed values one answer carries (non-negative integers, parse-time). */
export interface HeaderValues {
  limit?: number;
  remaining?: number;
  reset?: number;
  retryAfter?: number;
}

export type HeaderField = keyof HeaderValues;

export interface HeaderBounds {
  /** The longest T a limiter may run with, ms: T_RANGE's top, or the customer's T when longer. */
  maxEmissionIntervalMs: number;
}

/** Rounding of whole seconds at either end (the limiter's clock and ours), s. */
export const ROUNDING_S = 1;

export const DEFAULT_BOUNDS: HeaderBounds = { maxEmissionIntervalMs: T_RANGE.hi };

/** The bounds with the customer's T (3600 s / hourly limit, ms) taken in, with a tenth to spare. */
export function boundsFor(declaredT: number | undefined): HeaderBounds {
  return { maxEmissionIntervalMs: Math.max(T_RANGE.hi, (declaredT ?? 0) * 1.1) };
}

/** The longest Reset a GCRA with this Limit can send with this Remaining (0 on a denial, or unknown), s. */
export function maxResetS(limit: number, remaining: number | undefined, bounds: HeaderBounds): number {
  const owed = limit - Math.min(Math.max(remaining ?? 0, 0), limit - 1);
  return ceilSeconds(owed * bounds.maxEmissionIntervalMs) + ROUNDING_S;
}

/** The longest Retry-After a GCRA can send: its wait after a denial is under one T, s. */
export function maxRetryAfterS(bounds: HeaderBounds): number {
  return ceilSeconds(bounds.maxEmissionIntervalMs) + ROUNDING_S;
}

/**
 * The values among these that no GCRA limiter can send, each with why (in words, the value
 * included). Limit is judged alone; Remaining against a possible Limit; Reset against a possible
 * Limit and (when possible) Remaining; Retry-After alone. A value with nothing to judge it against
 * (Reset without a Limit) is not judged here.
 */
export function impossibleValues(
  v: HeaderValues,
  bounds: HeaderBounds = DEFAULT_BOUNDS,
): Partial<Record<HeaderField, string>> {
  const out: Partial<Record<HeaderField, string>> = {};
  const limit = v.limit !== undefined && v.limit >= 1 ? v.limit : undefined;
  if (v.limit !== undefined && limit === undefined)
    out.limit = `Limit ${v.limit}: a GCRA's Limit is its burst plus one, at least 1`;
  let remaining = v.remaining;
  if (remaining !== undefined && limit !== undefined && remaining >= limit) {
    out.remaining = `Remaining ${remaining} is not below Limit ${limit}`;
    remaining = undefined;
  }
  if (v.reset !== undefined && limit !== undefined) {
    const most = maxResetS(limit, remaining, bounds);
    if (v.reset > most)
      out.reset =
        `Reset ${v.reset} s: with Limit ${limit}${remaining === undefined ? '' : ` and Remaining ${remaining}`} ` +
        `and T at most ${fmtS(bounds.maxEmissionIntervalMs)}, no GCRA needs more than ${most} s to be full again`;
  }
  if (v.retryAfter !== undefined) {
    const most = maxRetryAfterS(bounds);
    if (v.retryAfter > most)
      out.retryAfter =
        `Retry-After ${v.retryAfter} s: a GCRA takes a request again within one T ` +
        `(at most ${fmtS(bounds.maxEmissionIntervalMs)}), so it never asks for more than ${most} s`;
  }
  return out;
}

const fmtS = (ms: number) => `${Math.round(ms) / 1000} s`;

/**
 * The longest a GCRA with this Limit, this Remaining (unknown: none left) and T up to `Thi` ms needs
 * to be full again, ms: what a wait of the plan may rest on instead of a header it cannot trust.
 */
export function timeToFullMs(limit: number, remaining: number | undefined, Thi: number): number {
  const left = remaining === undefined ? 0 : Math.min(Math.max(remaining, 0), limit - 1);
  return (limit - left) * Thi;
}
