// The horizon-style node: `GET` and `HEAD /fee_stats`, behind an auth check, the proxy's
// per-second cap and the `throttled` GCRA (reference/limiter). Load probes time this server, so
// each request does little: bodies are prebuilt, the fee stats body changes once per ledger.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { ReferenceOptions } from '../options.js';
import { closeServer, latencyOf, listen, requestUrl, seededRandom } from '../http/kit.js';
import {
  ALL_NODE_TOKEN_FORMS,
  decideToken,
  presentedTokens,
  sendRefusal,
  type TokenPolicy,
  sharedTokenFaults,
} from './token.js';
import { createHorizonLimiter, type Admission } from '../limiter/pipeline.js';
import { limiterKeyOf } from '../limiter/key.js';
import { RATE_LIMIT_HEADER } from '../limiter/gcra.js';
import { limiterFault } from '../faults/limiter.js';

export const FEE_STATS_PATH = '/fee_stats';
const SERVER = 'horizon';
/** Seconds between ledgers; the fee statistics describe the last closed ledger. */
const LEDGER_MS = 5000;
const FIRST_LEDGER = 52_000_000;

/**
 * Open-behaviour variant: the proxy answers a request over the per-second cap with 503 instead of
 * 429 (RL-13 only observes that answer).
 */
export const CAP_503_VARIANT = 'horizon-cap-503';

/**
 * Open-behaviour variant: fee_stats reads the token only from the `auth` query, the one form the
 * description shows for it (NAUTH-04 observes the other two; default: all three, one bucket).
 */
export const QUERY_ONLY_VARIANT = 'horizon-query-only';

export interface HorizonNode {
  endpoint: string;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function errorBody(code: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ error: { code, message } }));
}

const RATE_LIMITED_BODY = errorBody('rate_limit_exceeded', 'rate limit exceeded; see retry-after');
const CAP_BODY = errorBody('too_many_requests', 'more than the allowed requests in one second');
const NOT_FOUND_BODY = errorBody('not_found', 'no such path on this node');
const NOT_ALLOWED_BODY = errorBody('method_not_allowed', 'fee_stats answers GET and HEAD');
const INTERNAL_BODY = errorBody('internal', 'internal error');

const PERCENTILES = ['p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'] as const;

/** A ledger's fee distribution in horizon's shape (stroop amounts as strings), seeded per ledger. */
function feeStatsOf(ledger: number, seed: number): Record<string, unknown> {
  const rnd = seededRandom(seed ^ ledger);
  const usage = 0.2 + rnd() * 0.8;
  // Surge pricing: fees climb with capacity use, steeply in the top percentiles.
  const distribution = (scale: number) => {
    const d: Record<string, string> = {};
    let fee = 100;
    for (const p of PERCENTILES) {
      fee += Math.round(rnd() * usage * usage * scale);
      d[p] = String(fee);
    }
    return { max: String(fee + Math.round(rnd() * scale * 10)), min: '100', mode: '100', ...d };
  };
  return {
    last_ledger: String(ledger),
    last_ledger_base_fee: '100',
    ledger_capacity_usage: usage.toFixed(2),
    fee_charged: distribution(400),
    max_fee: distribution(4000),
  };
}

/** `key=value` lines: what a misrouted text handler sends (fault fee-stats-not-json). */
function asText(stats: Record<string, unknown>, prefix = ''): string {
  return Object.entries(stats)
    .map(([k, v]) =>
      typeof v === 'object' && v
        ? asText(v as Record<string, unknown>, `${prefix}${k}.`)
        : `${prefix}${k}=${String(v)}\n`,
    )
    .join('');
}

export async function startHorizonNode(opts: ReferenceOptions): Promise<HorizonNode> {
  const limiter = opts.horizonLimiter ?? createHorizonLimiter(opts);
  const latency = latencyOf(opts);
  const notJson = limiterFault(opts.faults, 'fee-stats-not-json');
  const noHeadersOn429 = limiterFault(opts.faults, 'rl-no-headers-on-429');
  const noHeadersOnHead = limiterFault(opts.faults, 'rl-no-headers-on-head');
  const capStatus = opts.variants.has(CAP_503_VARIANT) ? 503 : 429;
  const policy: TokenPolicy = {
    expected: opts.credentials.horizonToken,
    accepted: new Set(opts.variants.has(QUERY_ONLY_VARIANT) ? ['auth-query'] : ALL_NODE_TOKEN_FORMS),
    ...sharedTokenFaults(opts),
  };
  const keyOf = limiterKeyOf(opts);

  const startMs = opts.now();
  let cached = { ledger: -1, body: Buffer.alloc(0), type: JSON_TYPE };
  const feeStats = (nowMs: number) => {
    const ledger = FIRST_LEDGER + Math.max(0, Math.floor((nowMs - startMs) / LEDGER_MS));
    if (ledger !== cached.ledger) {
      const stats = feeStatsOf(ledger, opts.seed);
      cached = notJson
        ? { ledger, body: Buffer.from(asText(stats)), type: 'text/plain; charset=utf-8' }
        : { ledger, body: Buffer.from(JSON.stringify(stats)), type: JSON_TYPE };
    }
    return cached;
  };

  const send = (
    res: ServerResponse,
    status: number,
    headers: OutgoingHttpHeaders,
    body: Buffer,
    head: boolean,
    delayMs: number,
  ) => {
    headers['Content-Length'] = body.length;
    const write = () => {
      res.writeHead(status, headers);
      res.end(head ? undefined : body);
    };
    if (delayMs > 0) setTimeout(write, delayMs);
    else write();
  };

  const answer = (
    res: ServerResponse,
    admission: Admission | undefined,
    head: boolean,
    nowMs: number,
    delayMs: number,
  ) => {
    if (!admission) {
      // Not limited (fault rl-key-query-only): no cap, no quota, none of the limiter's headers.
      const stats = feeStats(nowMs);
      send(res, 200, { 'Content-Type': stats.type }, stats.body, head, delayMs);
      return;
    }
    if (admission.by === 'proxy') {
      // A proxy knows nothing of the limiter: none of its headers.
      send(res, capStatus, { 'Content-Type': JSON_TYPE, [RATE_LIMIT_HEADER.retryAfter]: '1' }, CAP_BODY, head, delayMs);
      return;
    }
    const h = admission.headers;
    const headers: OutgoingHttpHeaders = {};
    if (!(admission.limited && noHeadersOn429) && !(head && noHeadersOnHead)) {
      headers[RATE_LIMIT_HEADER.limit] = String(h.limit);
      headers[RATE_LIMIT_HEADER.remaining] = String(h.remaining);
      headers[RATE_LIMIT_HEADER.reset] = String(h.reset);
    }
    if (h.retryAfter !== undefined) headers[RATE_LIMIT_HEADER.retryAfter] = String(h.retryAfter);
    if (admission.limited) {
      headers['Content-Type'] = JSON_TYPE;
      send(res, 429, headers, RATE_LIMITED_BODY, head, delayMs);
      return;
    }
    const stats = feeStats(nowMs);
    headers['Content-Type'] = stats.type;
    send(res, 200, headers, stats.body, head, delayMs);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // The decision is taken at arrival; configured latency only delays the answer.
    const nowMs = opts.now();
    opts.counters.hit(SERVER);
    const delayMs = latency();
    const url = requestUrl(req.url);
    const head = req.method === 'HEAD';
    if (url.pathname !== FEE_STATS_PATH) {
      send(res, 404, { 'Content-Type': JSON_TYPE }, NOT_FOUND_BODY, head, delayMs);
      return;
    }
    if (req.method !== 'GET' && !head) {
      send(res, 405, { 'Content-Type': JSON_TYPE, Allow: 'GET, HEAD' }, NOT_ALLOWED_BODY, false, delayMs);
      return;
    }
    const decision = decideToken(presentedTokens(req.headers, url), policy);
    if (!decision.ok) {
      const reason = decision.reason;
      if (delayMs > 0) setTimeout(() => sendRefusal(res, reason, head), delayMs);
      else sendRefusal(res, reason, head);
      return;
    }
    const key = keyOf(policy.expected, decision.form, url, req.headers);
    answer(res, key === undefined ? undefined : limiter.admit(key, nowMs, head ? 'HEAD' : 'GET'), head, nowMs, delayMs);
  };

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch {
      if (!res.headersSent) send(res, 500, { 'Content-Type': JSON_TYPE }, INTERNAL_BODY, req.method === 'HEAD', 0);
    }
  });
  server.keepAliveTimeout = 30_000;
  const port = await listen(server, opts);
  return { endpoint: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}
