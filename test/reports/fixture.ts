// Synthetic inputs for the report writers: checks of every verdict (with exchanges, expected vs
// actual, observations, hostile text) and a probe timeline from a GCRA model, so the writers can be
// tested without a run.
import type { LimiterEstimates, ResultsFile } from '../../src/results.js';
import { buildResults } from '../../src/results.js';
import type { Exchange } from '../../src/record/recorder.js';
import type { TimelineEntry } from '../../src/stages.js';
import type { CheckResult } from '../../src/verdict.js';

export const XSS_MESSAGE = 'event id mismatch <script>window.__chainprobeXss=1</script>';
export const XSS_BODY = '"><img src=x onerror="window.__chainprobeXss=2"><svg onload="window.__chainprobeXss=3">';

let seq = 0;
function exchange(
  method: string,
  url: string,
  status: number,
  responseBody: string,
  requestHeaders: Record<string, string> = { Authorization: 'Bearer abcd…(redacted)' },
): Exchange {
  seq++;
  return {
    seq,
    purpose: `synthetic #${seq}`,
    method,
    url,
    requestHeaders: { Accept: 'application/json', ...requestHeaders },
    requestBody: method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}' : undefined,
    status,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody,
    responseBytes: responseBody.length,
    sentAt: 1_767_225_600_000 + seq * 10,
    receivedAt: 1_767_225_600_000 + seq * 10 + 12,
    durationMs: 12,
  };
}

const BASE = 'https://api.example.invalid';

export function syntheticChecks(): CheckResult[] {
  const ev = `${BASE}/nft/v1/chain-a/mainnet/event/9b2e0c1a-0000-4000-8000-000000000001`;
  return [
    ...['bearer', 'x-api-key', 'X-API-KEY'].map((form): CheckResult => ({
      id: `auth.accept[nft.event][${form}]`,
      rule: 'AUTH-01',
      verdict: 'pass',
      message: `new key as ${form} accepted`,
      evidence: { exchanges: [exchange('GET', ev, 200, '{"data":{"id":"9b2e0c1a-0000-4000-8000-000000000001"}}')] },
      durationMs: 12,
    })),
    {
      id: 'auth.accept[native][x-api-key]',
      rule: 'AUTH-02',
      verdict: 'fail',
      message: 'new key in X-API-Key was refused on native JSON-RPC: 401',
      evidence: {
        expected: { status: '2xx' },
        actual: { status: 401 },
        path: '$.status',
        exchanges: [
          exchange(
            'POST',
            `${BASE}/chain-a/mainnet/native?apiKey=abcd…(redacted)`,
            401,
            '{"error":{"code":"unauthorized","message":"bad key"}}',
            { 'X-API-Key': 'abcd…(redacted)' },
          ),
        ],
      },
      durationMs: 15,
    },
    {
      id: 'auth.none[nft.event]',
      rule: 'AUTH-07',
      verdict: 'pass',
      message: 'no credentials: no data (401)',
      evidence: {
        observation: {
          status: 401,
          contentType: 'application/json',
          body: { error: { code: 'string', message: 'string' } },
        },
      },
    },
    {
      id: 'auth.query[nft.event]',
      rule: 'AUTH-09',
      verdict: 'observed',
      message: 'new key as apiKey query: accepted (200)',
      evidence: { observation: { accepted: true, status: 200 } },
    },
    {
      id: 'nft.event.id[9b2e0c1a]',
      rule: 'NFT-02',
      verdict: 'fail',
      message: XSS_MESSAGE,
      evidence: {
        expected: '9b2e0c1a-0000-4000-8000-000000000001',
        actual: XSS_BODY,
        path: '$.data.id',
        exchanges: [exchange('GET', ev, 200, JSON.stringify({ data: { id: XSS_BODY } }))],
      },
    },
    {
      id: 'nft.event.types',
      rule: 'NFT-03',
      verdict: 'observed',
      message: 'event types seen: sale, transfer, mint',
      evidence: { observation: { eventTypes: ['sale', 'transfer', 'mint'] } },
    },
    {
      id: 'res.extra[event]',
      rule: 'RES-02',
      verdict: 'observed',
      message: 'event has 2 fields beyond the documented ones',
      evidence: { observation: { resource: 'event', extraFields: ['royalty', 'marketplace'] } },
    },
    { id: 'rpc.id[0]', rule: 'RPC-04', verdict: 'pass', message: 'id 0 echoed', evidence: {} },
    {
      id: 'rpc.unknown-method',
      rule: 'RPC-05',
      verdict: 'fail',
      message: 'unknown method got code -32000, expected -32601 \u0001\u001b[31m',
      evidence: {
        expected: -32601,
        actual: -32000,
        path: '$.error.code',
        exchanges: [
          exchange('POST', `${BASE}/chain-a/mainnet/native`, 200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32000}}'),
        ],
      },
    },
    {
      id: 'node.ws[ping]',
      rule: 'NODE-02',
      verdict: 'skipped',
      message: 'nodes.chainB is not in the target file',
      evidence: {},
    },
    {
      id: 'node.grpc[reflection]',
      rule: 'NODE-06',
      verdict: 'error',
      message: 'budget exhausted before the check',
      evidence: { cause: 'budget' },
    },
    {
      id: 'rl.headers',
      rule: 'RL-01',
      verdict: 'pass',
      message: 'every limiter answer carried the three headers',
      evidence: {},
    },
    {
      id: 'rl.cap',
      rule: 'RL-10',
      verdict: 'fail',
      message: '24 requests accepted in one second (cap 20)',
      evidence: { expected: '<= 20', actual: 24 },
    },
    {
      id: 'rl.over-cap',
      rule: 'RL-13',
      verdict: 'observed',
      message: 'over the cap: 429 without rate-limit headers',
      evidence: { observation: { status: 429, retryAfter: false, rateLimitHeaders: false, usedQuota: false } },
    },
  ];
}

export interface GcraParams {
  limit: number;
  emissionIntervalMs: number;
  perSecondCap: number;
}

/** A GCRA limiter behind a per-second cap, as rules.md describes the horizon node. */
export function syntheticTimeline(
  p: GcraParams = { limit: 10, emissionIntervalMs: 1000, perSecondCap: 20 },
  total = 90,
): TimelineEntry[] {
  const T = p.emissionIntervalMs;
  const dvt = p.limit * T;
  let tat = 0;
  const acceptedAt: number[] = [];
  const out: TimelineEntry[] = [];
  // Phases: a burst above the cap, a pause, pacing at 2/s, then sparse requests.
  const times: [string, number][] = [];
  for (let i = 0; i < 50; i++) times.push(['burst', i * 40]);
  for (let t = 6000; times.length < total - 6; t += 500) times.push(['paced', t]);
  for (let k = 0; times.length < total; k++) times.push(['recovery', times[times.length - 1]![1] + 1500 + k * 100]);
  for (const [probe, at] of times) {
    const sentAt = at;
    const now = at + 3;
    const inLastSecond = acceptedAt.filter((a) => a > now - 1000).length;
    const entry: TimelineEntry = { probe, method: 'GET', scheduledAt: at, sentAt, receivedAt: now + 9 };
    if (inLastSecond >= p.perSecondCap) {
      out.push({ ...entry, status: 429, predicted: { accepted: false } });
      continue;
    }
    const newTat = Math.max(tat, now) + T;
    const allowAt = newTat - dvt;
    if (now < allowAt) {
      const retryAfter = Math.ceil((allowAt - now) / 1000);
      const reset = Math.ceil((tat - now) / 1000);
      out.push({
        ...entry,
        status: 429,
        limit: p.limit,
        remaining: 0,
        reset,
        retryAfter,
        predicted: { accepted: false, remaining: 0, reset, retryAfter },
      });
    } else {
      tat = newTat;
      acceptedAt.push(now);
      const remaining = Math.floor((now - allowAt) / T);
      const reset = Math.ceil((newTat - now) / 1000);
      // The observed Reset is off by one now and then, as rounding on a real server would be.
      out.push({
        ...entry,
        status: 200,
        limit: p.limit,
        remaining,
        reset: out.length % 7 === 0 ? reset + 1 : reset,
        predicted: { accepted: true, remaining, reset },
      });
    }
  }
  return out;
}

export function syntheticLimiter(timeline: readonly TimelineEntry[]): LimiterEstimates {
  const last = timeline[timeline.length - 1];
  return {
    limit: 10,
    burst: 9,
    emissionIntervalMs: 1000,
    perSecondCap: 20,
    requestsSent: timeline.length,
    durationMs: last ? (last.receivedAt ?? last.sentAt) : 0,
    uncertainty: { emissionIntervalMs: 35, limit: 0 },
    emissionIntervalFromRecoveryMs: 1012,
  };
}

/** A whole results file; `scale` adds that many extra passing checks to test size and speed. */
export function syntheticResults(
  opts: {
    checks?: CheckResult[];
    scale?: number;
    limiter?: LimiterEstimates | null;
    extra?: Record<string, unknown>;
  } = {},
): ResultsFile {
  const checks = [...(opts.checks ?? syntheticChecks())];
  for (let i = 0; i < (opts.scale ?? 0); i++)
    checks.push({
      id: `scale.check[${i}]`,
      rule: ['AUTH-01', 'NFT-01', 'NFT-08', 'RPC-01', 'NODE-01'][i % 5]!,
      verdict: i % 10 === 0 ? 'observed' : 'pass',
      message: `synthetic check ${i}`,
      evidence:
        i % 10 === 0
          ? { observation: { status: 200, i } }
          : { exchanges: [exchange('GET', `${BASE}/x/${i}`, 200, '{"ok":true}')] },
      durationMs: 3,
    });
  return buildResults({
    target: 'synthetic <staging>',
    startedAt: new Date('2026-01-01T00:00:00.000Z'),
    finishedAt: new Date('2026-01-01T00:01:05.500Z'),
    checks,
    limiter: opts.limiter === undefined ? syntheticLimiter(syntheticTimeline()) : opts.limiter,
    extra: { selection: 'all', interrupted: false, ...opts.extra },
  });
}
