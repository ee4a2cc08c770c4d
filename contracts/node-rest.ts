// The REST paths of the dedicated nodes and their work for the node tests (contracts/node.spec.ts),
// apart from the spec so that the contract stage can send it itself (contracts/stage-work.ts): the
// rate-limited node's at once or after the probes, the others' while Playwright loads.
import { randomInt } from 'node:crypto';
import { NODE_TOKEN_USAGES, type FormId, type NodePath, type TokenUsage } from '../src/auth/forms.js';
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import { spacedGapMs } from '../src/pacing.js';
import { FEE_STATS_HEADERS } from '../src/service/fee-stats.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { ApiClient, CallResult } from './api.js';
import { ev, type Checks } from './checks.js';
import { settled, valueOf } from './in-flight.js';
import {
  judgeRefusals,
  OPEN_FORM_CAUSE,
  refusalCount,
  sendRefusals,
  type NodeAttempt,
  type NodeRow,
} from './node-refusals.js';
import { hostOf, type FamilyWork } from './work.js';
import { bodyShape, mediaType } from './shape.js';
import { JSON_HEADERS, PATHS } from './urls.js';

/** Statuses that mean "your credentials were not accepted" (RFC 9110 15.5.2 and 15.5.4). */
export const AUTH_REFUSALS: readonly number[] = [401, 403];

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

export function nodeOf(t: ResolvedTarget, name: NodeName): { endpoint: string; token: string } | undefined {
  return t.nodes[name];
}

export function usagesOf(path: NodePath): TokenUsage[] {
  return NODE_TOKEN_USAGES.filter((u) => u.path === path);
}

function restObservation(res: CallResult): Record<string, unknown> {
  return { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) };
}

/** A 2xx whose body is JSON: what "answers 2xx JSON" means. */
function jsonProblem(res: CallResult): string | undefined {
  if (!res.ok) return `answered ${res.status}`;
  if (res.json === undefined)
    return `answered ${res.status} with a body that is not JSON (${mediaType(res.headers) ?? 'no content type'})`;
  return undefined;
}

/**
 * The horizon node sits behind a per-second cap that a proxy may enforce as a minimum spacing
 * (nginx limit_req without burst refuses a request less than 1/cap after the last one): its
 * requests go out one cap interval apart with a margin (src/pacing.ts), as the probes' do.
 */
let nextRateLimitedSend = 0;
async function paceRateLimited(target: ResolvedTarget): Promise<void> {
  // Each caller takes the next free moment at once, so requests waiting together keep the gap too.
  const at = Math.max(Date.now(), nextRateLimitedSend);
  nextRateLimitedSend = at + spacedGapMs(target.nodes.horizon?.perSecondCap ?? 20);
  const wait = at - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

/** 429 is the rate limit's documented answer: it says "not now", nothing about the path. */
const RATE_LIMITED_STATUS = 429;

async function restCall(
  target: ResolvedTarget,
  api: ApiClient,
  def: RestPathDef,
  node: { endpoint: string },
  form: FormId | undefined,
  secret: string | readonly string[] | undefined,
  purpose: string,
  cause?: string,
  method: 'GET' | 'POST' | 'HEAD' = def.method,
  id = 1,
): Promise<CallResult> {
  return api.call({
    ...(RATE_LIMITED.has(def.node) && { pace: () => paceRateLimited(target) }),
    purpose,
    method,
    url: node.endpoint + def.path(target),
    headers: def.headers,
    body: method === 'POST' ? (def.body?.(id, target) ?? '') : undefined,
    auth: form && secret !== undefined ? { form, secret } : undefined,
    cause,
  });
}

/** Judges the path's own NODE rule on an accepted answer. */
function judgePath(check: Checks, def: RestPathDef, res: CallResult, requestId: number): void {
  const id = `node.${def.node}.${def.label.replace(/\s+/g, '-')}`;
  const observation = restObservation(res);
  let problem = jsonProblem(res);
  if (!problem && def.rule === 'NODE-04') {
    const got = (res.json as { id?: unknown } | null)?.id;
    if (got !== requestId) problem = `the response id is ${JSON.stringify(got)}, not the request's ${requestId}`;
  }
  check.verdict(
    !problem,
    def.rule,
    id,
    `${def.label}: ${res.status} JSON${def.rule === 'NODE-04' ? ', request id echoed' : ''}`,
    `${def.label}: ${problem}`,
    ev(res.exchange, { expected: '2xx JSON', actual: res.status, observation }),
  );
}

/**
 * The work of each REST path the target has: the right token in every form the table lists (all
 * at once; paced on the rate-limited node), the path's own NODE rule judged on the first documented
 * form that got past auth, a HEAD on fee_stats, and NAUTH-07's refusals (each form's as soon as that
 * form is known to be accepted).
 */
export function restWorks(target: ResolvedTarget, seed: number): FamilyWork[] {
  const works: FamilyWork[] = [];
  for (const [path, def] of Object.entries(REST_PATHS) as [RestPath, RestPathDef][]) {
    const node = nodeOf(target, def.node);
    if (!node) continue;
    const usages = usagesOf(path);
    // fee_stats also gets a HEAD (NODE-07); the horizon node is rate-limited, so that is all it is served.
    const rules = [...new Set([...usages.map((u) => u.rule), def.rule, 'NAUTH-07'])];
    const row: NodeRow = {
      id: `node.${path}`,
      row: `${def.node} ${def.label}`,
      label: def.label,
      full: def.full,
      index: Object.keys(REST_PATHS).indexOf(path),
      refuseOnly: RATE_LIMITED.has(def.node),
      seed,
    };
    const work = (
      title: string,
      rules: string[],
      run: FamilyWork['run'],
      opts: { requests: number },
      rateLimited: boolean,
    ) => works.push({ title, rules, run, requests: opts.requests, rateLimited, hosts: [hostOf(node.endpoint)] });
    work(
      `${def.label} with each token form, without one and with wrong ones`,
      rules,
      async ({ api, check }) => {
        // The right token in each form, all at once (paced on the rate-limited node); judged in order.
        const requestIds = usages.map(() => randomInt(1_000_000, 2_000_000_000));
        const sendUsage = (u: TokenUsage, i: number) =>
          restCall(
            target,
            api,
            def,
            node,
            u.form,
            node.token,
            `node.${path}[${u.form}]`,
            u.expect === 'open' ? OPEN_FORM_CAUSE : undefined,
            def.method,
            requestIds[i],
          );
        const sent = usages.map((u, i) => settled(sendUsage(u, i)));
        const attempt: NodeAttempt = async (form, values, purpose, cause) => {
          const res = await restCall(target, api, def, node, form, values, purpose, cause);
          return {
            data: res.ok,
            what: res.ok ? `answered ${res.status}` : `refused (${res.status})`,
            evidence: ev(res.exchange, { expected: 'not 2xx', actual: res.status, observation: restObservation(res) }),
          };
        };
        // Each form's wrong tokens go out as soon as the right token got data there: a form still
        // waiting for quota (the rate-limited node after the probes) holds up only its own.
        const refusals = check.wants('NAUTH-07')
          ? sendRefusals(
              row,
              node.token,
              attempt,
              sent.map((p, i) => p.then((r) => (r.ok && r.value.ok ? usages[i]!.form : undefined))),
            )
          : undefined;
        let judged = false;
        let answered = false;
        for (const [i, u] of usages.entries()) {
          const id = `node.${path}[${u.form}]`;
          const requestId = requestIds[i]!;
          await check.guard(judged ? [u.rule] : [u.rule, def.rule], id, async () => {
            const res = valueOf(await sent[i]!);
            answered = true;
            const refused = AUTH_REFUSALS.includes(res.status);
            const observation = { status: res.status, accepted: res.ok };
            const what = `${def.label}, token as ${u.form}`;
            const authProbe = {
              [AUTH_PROBE_FIELD]: {
                row: row.row,
                form: u.form,
                probe: 'right',
                documented: u.expect === 'accept',
                data: res.ok,
              } satisfies AuthProbe,
            };
            if (res.status === RATE_LIMITED_STATUS && RATE_LIMITED.has(def.node)) {
              check.error(
                u.rule,
                id,
                `${what}: rate-limited (429) before the answer could be judged`,
                ev(res.exchange, { observation }),
              );
              return;
            }
            if (u.expect === 'open')
              check.add(
                u.rule,
                id,
                'observed',
                `${what}: ${res.ok ? 'accepted' : refused ? 'refused' : 'answered'} (${res.status})`,
                ev(res.exchange, { observation, ...authProbe }),
              );
            else if (res.ok || refused)
              check.verdict(
                res.ok,
                u.rule,
                id,
                `${what}: accepted (${res.status})`,
                `${what}: refused with ${res.status}`,
                ev(res.exchange, { expected: '2xx', actual: res.status, observation, ...authProbe }),
              );
            // Neither data nor an auth refusal (a 404, a 500): whether the token was taken cannot be told.
            else
              check.error(
                u.rule,
                id,
                `${what}: answered ${res.status}, neither data nor an auth refusal`,
                ev(res.exchange, { observation }),
              );
            // The path's own rule is judged on the first answer to a documented form that got past auth.
            if (!judged && u.expect === 'accept' && !refused) {
              judged = true;
              judgePath(check, def, res, requestId);
            }
          });
        }
        // No answer at all: the path's rule already carries the cause (the guard above), not "refused".
        if (!judged && answered)
          check.error(
            def.rule,
            `node.${path}`,
            `${def.label}: every documented token form was refused, so the answer could not be judged`,
          );
        if (path === 'feeStats' && check.wants('NODE-07')) {
          const id = 'node.feeStats[head]';
          await check.guard('NODE-07', id, async () => {
            const res = await restCall(target, api, def, node, 'auth-query', node.token, id, undefined, 'HEAD');
            if (res.status === RATE_LIMITED_STATUS)
              return check.error(
                'NODE-07',
                id,
                'HEAD fee_stats: rate-limited (429) before the answer could be judged',
                ev(res.exchange),
              );
            check.verdict(
              res.ok && res.bytes === 0,
              'NODE-07',
              id,
              `HEAD fee_stats: ${res.status}, no body`,
              `HEAD fee_stats: ${res.ok ? `${res.status} with a ${res.bytes}-byte body` : `answered ${res.status}`}`,
              ev(res.exchange, { expected: '2xx without body', actual: { status: res.status, bytes: res.bytes } }),
            );
          });
        }
        if (refusals) await judgeRefusals(check, row, await refusals);
      },
      {
        requests:
          usages.length +
          2 +
          refusalCount(
            usages.map((u) => u.form),
            def.full,
          ),
      },
      RATE_LIMITED.has(def.node),
    );
  }
  return works;
}
