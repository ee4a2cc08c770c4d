// One probe request as the checks see it: when it left and came back, its status, and its parsed
// rate-limit headers. Apart from the session that sends it, so the models (load/model/) can judge
// samples without importing the sender.
import type { Exchange } from '../src/record/recorder.js';
import type { ProbeMethod } from './engine/types.js';

/** Header names are matched in lower case (a Go server sends `X-Ratelimit-Limit`). */
export const RL_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
  retryAfter: 'retry-after',
} as const;

export type RlField = keyof typeof RL_HEADERS;

export interface RateLimitHeaders {
  /** Parsed when the value is a non-negative integer. */
  limit?: number;
  remaining?: number;
  reset?: number;
  retryAfter?: number;
  /** The raw values, present or not. */
  raw: Partial<Record<RlField, string>>;
}

const NON_NEGATIVE_INTEGER = /^\d{1,15}$/;

export function parseRateLimitHeaders(headers: Record<string, string>): RateLimitHeaders {
  const out: RateLimitHeaders = { raw: {} };
  for (const field of Object.keys(RL_HEADERS) as RlField[]) {
    const v = headers[RL_HEADERS[field]];
    if (v === undefined) continue;
    out.raw[field] = v;
    const t = v.trim();
    if (NON_NEGATIVE_INTEGER.test(t)) out[field] = Number(t);
  }
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
}
