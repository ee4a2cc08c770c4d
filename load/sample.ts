// One probe request as the checks see it: when it left and came back, its status, and its parsed
// rate-limit headers. Apart from the session that sends it, so the models (load/model/) can judge
// samples without importing the sender.
import type { Exchange } from '../src/record/recorder.js';
import type { ProbeMethod } from './engine/types.js';
import type { VariationTag } from './variations.js';
import { DEFAULT_BOUNDS, impossibleValues, type HeaderBounds } from './model/possible.js';

/** Header names are matched in lower case (a Go server sends `X-Ratelimit-Limit`). */
export const RL_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
  retryAfter: 'retry-after',
} as const;

export type RlField = keyof typeof RL_HEADERS;

export interface RateLimitHeaders {
  /** Parsed when the value is a non-negative integer that a GCRA limiter can send (model/possible.ts). */
  limit?: number;
  remaining?: number;
  reset?: number;
  retryAfter?: number;
  /** The raw values, present or not. */
  raw: Partial<Record<RlField, string>>;
  /**
   * Integers no GCRA limiter can send (a Reset as a Unix timestamp, Remaining at or above Limit, a
   * Limit of 0), with why: left out of the parsed values above, so they steer neither the model nor
   * a wait; the rule each breaks reads them here.
   */
  impossible?: Partial<Record<RlField, string>>;
}

const NON_NEGATIVE_INTEGER = /^\d{1,15}$/;

export function parseRateLimitHeaders(
  headers: Record<string, string>,
  bounds: HeaderBounds = DEFAULT_BOUNDS,
): RateLimitHeaders {
  const out: RateLimitHeaders = { raw: {} };
  for (const field of Object.keys(RL_HEADERS) as RlField[]) {
    const v = headers[RL_HEADERS[field]];
    if (v === undefined) continue;
    out.raw[field] = v;
    const t = v.trim();
    if (NON_NEGATIVE_INTEGER.test(t)) out[field] = Number(t);
  }
  const impossible = impossibleValues(out, bounds);
  for (const field of Object.keys(impossible) as RlField[]) delete out[field];
  if (Object.keys(impossible).length) out.impossible = impossible;
  return out;
}

export interface Sample {
  /** Order of sending (answers may come back in another order). */
  seq: number;
  phase: string;
  purpose: string;
  method: ProbeMethod;
  /** Engine ms; scheduledAt is when the plan wanted it to leave. */
  scheduledAt: number;
  sentAt: number;
  receivedAt: number;
  status?: number;
  rl: RateLimitHeaders;
  error?: string;
  exchange: Exchange;
  /** Set when the request departed from the plain one (RL-14): how. */
  variation?: VariationTag;
}
