// The horizon-style node: `GET` and `HEAD /fee_stats`, behind an auth check, the proxy's
// per-second cap and the `throttled` GCRA (reference/limiter). Load probes time this server, so
// each request does little: bodies are prebuilt, the fee stats body changes once per ledger.
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { ReferenceOptions } from '../options.js';
import { closeServer, latencyOf, listen, requestUrl, seededRandom } from '../http/kit.js';
import {
  ALL_NODE_TOKEN_FORMS,
  decideToken,
  presentedTokens,
  refusalMessage,
  refusalStatus,
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

/** A request as the node reads it: method, path with query, headers (names in lower case). */
export interface HorizonRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** The node's whole answer to one request, decided at `nowMs`; `delayMs` is the configured latency. */
export interface HorizonAnswer {
  status: number;
  headers: OutgoingHttpHeaders;
  /** Empty for HEAD. */
  body: Buffer;
  delayMs: number;
}

type Decided = Omit<HorizonAnswer, 'delayMs'>;

/** What the proxy answers a request over the per-second cap: it knows nothing of the limiter, so none of its headers. */
export function proxyRefusal(opts: Pick<ReferenceOptions, 'variants'>): Decided {
  return {
    status: opts.variants.has(CAP_503_VARIANT) ? 503 : 429,
    headers: { 'Content-Type': JSON_TYPE, [RATE_LIMIT_HEADER.retryAfter]: '1' },
    body: CAP_BODY,
  };
}

/**
 * The horizon node's decisions as a function of the request and the time it arrives, with the
 * limiter's state in the closure: the HTTP server below sends what it returns, and tests drive it
 * on a virtual clock (test/load/virtual-reference.ts) with exactly the same faults and variants.
 */
export function horizonAnswerer(opts: ReferenceOptions): (req: HorizonRequest, nowMs: number) => HorizonAnswer {
  const limiter = opts.horizonLimiter ?? createHorizonLimiter(opts);
  const latency = latencyOf(opts);
  const notJson = limiterFault(opts.faults, 'fee-stats-not-json');
  const noHeadersOn429 = limiterFault(opts.faults, 'rl-no-headers-on-429');
  const noHeadersOnHead = limiterFault(opts.faults, 'rl-no-headers-on-head');
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

  const answerTo = (admission: Admission | undefined, head: boolean, nowMs: number): Decided => {
    if (!admission) {
      // Not limited (fault rl-key-query-only): no cap, no quota, none of the limiter's headers.
      const stats = feeStats(nowMs);
      return { status: 200, headers: { 'Content-Type': stats.type }, body: stats.body };
    }
    if (admission.by === 'proxy') return proxyRefusal(opts);
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
      return { status: 429, headers, body: RATE_LIMITED_BODY };
    }
    const stats = feeStats(nowMs);
    headers['Content-Type'] = stats.type;
    return { status: 200, headers, body: stats.body };
  };

  const decide = (req: HorizonRequest, nowMs: number): Decided => {
    const url = requestUrl(req.url);
    const head = req.method === 'HEAD';
    if (url.pathname !== FEE_STATS_PATH)
      return { status: 404, headers: { 'Content-Type': JSON_TYPE }, body: NOT_FOUND_BODY };
    if (req.method !== 'GET' && !head)
      return { status: 405, headers: { 'Content-Type': JSON_TYPE, Allow: 'GET, HEAD' }, body: NOT_ALLOWED_BODY };
    const decision = decideToken(presentedTokens(req.headers, url), policy);
    if (!decision.ok) {
      const reason = decision.reason;
      return {
        status: refusalStatus(reason),
        headers: { 'Content-Type': JSON_TYPE },
        body: errorBody(reason === 'missing' ? 'unauthorized' : 'forbidden', refusalMessage(reason)),
      };
    }
    const key = keyOf(policy.expected, decision.form, url, req.headers);
    const admission = key === undefined ? undefined : limiter.admit(key, nowMs, head ? 'HEAD' : 'GET');
    return answerTo(admission, head, nowMs);
  };

  return (req, nowMs) => {
    // The decision is taken at arrival; configured latency only delays the answer.
    const delayMs = latency();
    let a: Decided;
    let failed = false;
    try {
      a = decide(req, nowMs);
    } catch {
      a = { status: 500, headers: { 'Content-Type': JSON_TYPE }, body: INTERNAL_BODY };
      failed = true;
    }
    return {
      status: a.status,
      headers: { ...a.headers, 'Content-Length': a.body.length },
      body: req.method === 'HEAD' ? Buffer.alloc(0) : a.body,
      delayMs: failed ? 0 : delayMs,
    };
  };
}

export async function startHorizonNode(opts: ReferenceOptions): Promise<HorizonNode> {
  const answerer = horizonAnswerer(opts);
  const server = createServer((req, res) => {
    const nowMs = opts.now();
    opts.counters.hit(SERVER);
    const a = answerer({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, nowMs);
    const write = () => {
      res.writeHead(a.status, a.headers);
      res.end(a.body.length ? a.body : undefined);
    };
    if (a.delayMs > 0) setTimeout(write, a.delayMs);
    else write();
  });
  server.keepAliveTimeout = 30_000;
  const port = await listen(server, opts);
  return { endpoint: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}
