// The REST paths of the dedicated nodes (the node table's rows, each with the NODE rule it answers
// to) and their sending: the right token in every form the table lists (all at once; paced on the
// rate-limited node), a HEAD on fee_stats, and NAUTH-07's refusals (each form's as soon as that
// form is known to be accepted). What each request got is kept for the judges (node-rest-judge.ts).
import { randomInt } from 'node:crypto';
import { NODE_TOKEN_USAGES, type FormId, type NodePath, type TokenUsage } from '../src/auth/forms.js';
import { pause } from '../src/net/pause.js';
import { spacedGapMs } from '../src/pacing.js';
import { FEE_STATS_HEADERS } from '../src/service/fee-stats.js';
import { DEFAULT_PER_SECOND_CAP, type ResolvedTarget } from '../src/target-file/types.js';
import type { ApiClient, CallResult, Release } from './api.js';
import { settled } from './in-flight.js';
import {
  OPEN_FORM_CAUSE,
  outcomeOf,
  sendRefusals,
  type NodeAttempt,
  type NodeRow,
  type Outcome,
  type SentRefusal,
} from './node-refusals.js';
import { JSON_HEADERS, PATHS } from './urls.js';

/** Statuses that mean "your credentials were not accepted" (RFC 9110 15.5.2 and 15.5.4). */
export const AUTH_REFUSALS: readonly number[] = [401, 403];

/** 429 is the rate limit's documented answer: it says "not now", nothing about the path. */
export const RATE_LIMITED_STATUS = 429;

export type NodeName = 'blockRest' | 'chainB' | 'horizon';
export type RestPath = Exclude<NodePath, 'websocket' | 'grpc'>;

export interface RestPathDef {
  node: NodeName;
  /** The NODE rule this path's answer is judged by. */
  rule: string;
  label: string;
  method: 'GET' | 'POST';
  path(t: ResolvedTarget): string;
  headers?: Record<string, string>;
  body?(id: number, t: ResolvedTarget): string;
  /** Gets every wrong-token kind (the first path of its node kind); the others get one rotating kind. */
  full: boolean;
}

/** The REST paths of the node table, with the NODE rule each answers to. */
export const REST_PATHS: Record<RestPath, RestPathDef> = {
  blockRest: {
    node: 'blockRest',
    rule: 'NODE-01',
    label: 'block by height',
    method: 'GET',
    path: (t) => PATHS.blockByHeight(t.nodes.blockRest!.height),
    headers: JSON_HEADERS,
    full: true,
  },
  appRest: {
    node: 'chainB',
    rule: 'NODE-03',
    label: 'app REST node_info',
    method: 'GET',
    path: () => PATHS.appRestNodeInfo,
    headers: JSON_HEADERS,
    full: true,
  },
  consensusRpc: {
    node: 'chainB',
    rule: 'NODE-04',
    label: 'consensus RPC',
    method: 'POST',
    path: () => PATHS.consensusRpc,
    headers: JSON_HEADERS,
    body: (id, t) => JSON.stringify({ jsonrpc: '2.0', method: t.nodes.chainB!.consensusRpcMethod, params: [], id }),
    full: false,
  },
  consensusRest: {
    node: 'chainB',
    rule: 'NODE-05',
    label: 'consensus REST status',
    method: 'POST',
    path: () => PATHS.consensusRestStatus,
    headers: JSON_HEADERS,
    full: false,
  },
  feeStats: {
    node: 'horizon',
    rule: 'NODE-07',
    label: 'fee_stats',
    method: 'GET',
    path: () => PATHS.feeStats,
    headers: FEE_STATS_HEADERS,
    full: true,
  },
};

/** The rate-limited node: its wrong-token checks send only what a correct service refuses, so they spend none of its quota. */
export const RATE_LIMITED: ReadonlySet<NodeName> = new Set(['horizon']);

export const NODE_SECTION: Record<NodeName, string> = {
  blockRest: 'nodes.blockRest',
  chainB: 'nodes.chainB',
  horizon: 'nodes.horizon',
};

export function usagesOf(path: NodePath): TokenUsage[] {
  return NODE_TOKEN_USAGES.filter((u) => u.path === path);
}

/** The REST paths the target has, in table order. */
export function restPathsOf(t: ResolvedTarget): RestPath[] {
  return (Object.keys(REST_PATHS) as RestPath[]).filter((p) => t.nodes[REST_PATHS[p].node] !== undefined);
}

/** The rules a REST path's answers are judged by: its forms' rules, its own, NAUTH-07. */
export function restRulesOf(path: RestPath): string[] {
  return [...new Set([...usagesOf(path).map((u) => u.rule), REST_PATHS[path].rule, 'NAUTH-07'])];
}

/** The auth surface row and refusal plan of a REST path. */
export function restRowOf(path: RestPath, seed: number): NodeRow {
  const def = REST_PATHS[path];
  return {
    id: `node.${path}`,
    row: `${def.node} ${def.label}`,
    label: def.label,
    full: def.full,
    index: Object.keys(REST_PATHS).indexOf(path),
    refuseOnly: RATE_LIMITED.has(def.node),
    seed,
  };
}

/** The right token in one listed form, and what it got. */
export interface UsageSent {
  usage: TokenUsage;
  /** The JSON-RPC id the body carried (consensus RPC: NODE-04 wants it echoed). */
  requestId: number;
  got: Outcome<CallResult>;
}

/** What one REST path's requests got. */
export interface RestPathAnswers {
  path: RestPath;
  row: NodeRow;
  /** The right token in each listed form a selected rule reads, in table order. */
  usages: UsageSent[];
  /** HEAD fee_stats (NODE-07). */
  head?: Outcome<CallResult>;
  /** NAUTH-07: no token, then wrong tokens in the forms that took the right one, in plan order. */
  refusals?: SentRefusal<CallResult>[];
}

/**
 * The horizon node sits behind a per-second cap that a proxy may enforce as a minimum spacing
 * (nginx limit_req without burst refuses a request less than 1/cap after the last one): its
 * requests go out one cap interval apart with a margin (src/pacing.ts), as the probes' do. The
 * interval runs from the moment the last one's head was written to its connection: moments
 * reserved ahead let requests go together when a timer fired late on a busy event loop, or when a
 * request was held up after its turn (the HTTP client loading, a connection opening). Seen at the
 * node: four requests within 1 ms, then gaps of 23-29 ms.
 */
let rateLimitedTurn: Promise<void> = Promise.resolve();
let lastRateLimitedHead = -Infinity;

async function paceRateLimited(target: ResolvedTarget, signal: AbortSignal | undefined): Promise<Release> {
  const gap = spacedGapMs(target.nodes.horizon?.perSecondCap ?? DEFAULT_PER_SECOND_CAP);
  const turn = rateLimitedTurn.then(async () => {
    // Read again after each wait: a timer may fire a little early. Bounded: the clock moves on. An
    // interrupted run's turns go at once: each request then ends unsent.
    let wait: number;
    while ((wait = lastRateLimitedHead + gap - performance.now()) > 0 && !signal?.aborted) await pause(wait, signal);
  });
  let release!: Release;
  const headSent = new Promise<void>((r) => (release = r));
  rateLimitedTurn = turn
    .then(() => headSent)
    .then(() => {
      lastRateLimitedHead = performance.now();
    });
  await turn;
  return release;
}

/**
 * Sends one REST path's requests with `api` (on the rate-limited node, a client that answers from
 * the probes' answers where they match): the right token in every form a selected rule reads, all
 * at once, then fee_stats' HEAD; the refusals go as each form's answer shows it accepted.
 */
export async function sendRestPath(
  target: ResolvedTarget,
  api: ApiClient,
  path: RestPath,
  seed: number,
  wants: (...rules: string[]) => boolean,
): Promise<RestPathAnswers> {
  const def = REST_PATHS[path];
  const node = target.nodes[def.node]!;
  const row = restRowOf(path, seed);
  const call = (
    form: FormId | undefined,
    secret: string | readonly string[] | undefined,
    purpose: string,
    cause?: string,
    method: 'GET' | 'POST' | 'HEAD' = def.method,
    id = 1,
  ): Promise<CallResult> =>
    api.call({
      ...(RATE_LIMITED.has(def.node) && { pace: () => paceRateLimited(target, api.signal) }),
      purpose,
      method,
      url: node.endpoint + def.path(target),
      headers: def.headers,
      body: method === 'POST' ? (def.body?.(id, target) ?? '') : undefined,
      auth: form && secret !== undefined ? { form, secret } : undefined,
      cause,
    });
  // NAUTH-07 refuses in every form that took the right token, so it reads every form; the path's
  // own rule reads the documented ones (it is judged on the first that got past auth).
  const usages = usagesOf(path).filter((u) => wants('NAUTH-07', u.rule) || (u.expect === 'accept' && wants(def.rule)));
  const requestIds = usages.map(() => randomInt(1_000_000, 2_000_000_000));
  const sent = usages.map((u, i) =>
    settled(
      call(
        u.form,
        node.token,
        `node.${path}[${u.form}]`,
        u.expect === 'open' ? OPEN_FORM_CAUSE : undefined,
        def.method,
        requestIds[i],
      ),
    ),
  );
  const attempt: NodeAttempt<CallResult> = (form, values, purpose, cause) => call(form, values, purpose, cause);
  // Each form's wrong tokens go out as soon as the right token got data there: a form still
  // waiting for quota (the rate-limited node after the probes) holds up only its own.
  const refusals = wants('NAUTH-07')
    ? sendRefusals(
        row,
        node.token,
        attempt,
        sent.map((p, i) => p.then((r) => (r.ok && r.value.ok ? usages[i]!.form : undefined))),
      )
    : undefined;
  // Awaited below; a defect thrown before then must not leave it unhandled.
  refusals?.catch(() => undefined);
  const answers: RestPathAnswers = {
    path,
    row,
    usages: (await Promise.all(sent)).map((s, i) => ({
      usage: usages[i]!,
      requestId: requestIds[i]!,
      got: outcomeOf(s),
    })),
  };
  // After the forms' answers, as when each was judged before it: on the rate-limited node the HEAD keeps its turn.
  if (path === 'feeStats' && wants('NODE-07'))
    answers.head = outcomeOf(await settled(call('auth-query', node.token, 'node.feeStats[head]', undefined, 'HEAD')));
  if (refusals) answers.refusals = await refusals;
  return answers;
}
