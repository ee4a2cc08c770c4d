// Small synthetic runs for the comparison's tests: checks with recorded exchanges, built the way
// the run builds its results (buildResults), so that compareResults sees what a run writes.
import { buildResults, type LimiterEstimates, type ResultsFile } from '../../src/results.js';
import type { Exchange } from '../../src/record/recorder.js';
import type { CheckResult, Evidence, Verdict } from '../../src/verdict.js';

let seq = 0;
const T0 = Date.UTC(2026, 11, 1, 12);

export interface ExchangeSpec {
  method?: string;
  url: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  requestBody?: unknown;
  purpose?: string;
  durationMs?: number;
  /** ms after T0 the request left (default: a little after the previous one). */
  at?: number;
}

export function exchange(s: ExchangeSpec): Exchange {
  seq++;
  const sentAt = T0 + (s.at ?? seq * 5);
  const durationMs = s.durationMs ?? 20;
  const body = s.body === undefined ? undefined : typeof s.body === 'string' ? s.body : JSON.stringify(s.body);
  return {
    seq,
    ...(s.purpose !== undefined && { purpose: s.purpose }),
    method: s.method ?? 'GET',
    url: s.url,
    requestHeaders: { Authorization: 'Bearer abcd…(redacted)' },
    ...(s.requestBody !== undefined && { requestBody: JSON.stringify(s.requestBody) }),
    status: s.status ?? 200,
    responseHeaders: {
      'content-type': 'application/json; charset=utf-8',
      date: 'Tue, 01 Dec 2026 12:00:00 GMT',
      ...s.headers,
    },
    ...(body !== undefined && { responseBody: body, responseBytes: body.length }),
    sentAt,
    receivedAt: sentAt + durationMs,
    durationMs,
  };
}

export function check(
  id: string,
  rule: string,
  verdict: Verdict,
  evidence: Evidence = {},
  extra: Partial<CheckResult> = {},
): CheckResult {
  return { id, rule, verdict, message: `${id}: ${verdict}`, evidence, ...extra };
}

export const LIMITER: LimiterEstimates = {
  limit: 101,
  burst: 100,
  emissionIntervalMs: 1000,
  emissionIntervalUncertaintyMs: 0.1,
  emissionIntervalBandMs: { lo: 999.9, hi: 1000.1 },
  perSecondCap: 20,
  requestsSent: 120,
  durationMs: 11_000,
};

export function run(
  target: string,
  checks: CheckResult[],
  o: { limiter?: LimiterEstimates | null; extra?: Record<string, unknown> } = {},
): ResultsFile {
  return buildResults({
    target,
    startedAt: new Date(T0),
    finishedAt: new Date(T0 + 60_000),
    checks,
    limiter: o.limiter === undefined ? null : o.limiter,
    extra: { selection: 'all', interrupted: false, seed: 1, ...o.extra },
  });
}

export const API = 'https://api.example.invalid';
export const API_B = 'https://api.staging.example.invalid';
