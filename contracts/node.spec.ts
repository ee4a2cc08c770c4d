// Dedicated node endpoints (NODE-01..07) and node access tokens (NAUTH-01..07): each REST path
// with every token form NODE_TOKEN_USAGES lists, the WebSocket upgrade with a ping/pong round
// trip, gRPC reflection, and refusals without a token or with a wrong one. The horizon node is
// rate-limited: the suite sends it only a handful of requests.
import { randomInt } from 'node:crypto';
import { NODE_TOKEN_USAGES, type FormId, type NodePath, type TokenUsage } from '../src/auth/forms.js';
import type { GrpcCallError } from '../src/clients/grpc-reflection.js';
import type { WebSocketProbeResult } from '../src/clients/websocket.js';
import { RULES } from '../src/rules/catalogue.js';
import type { Recorder } from '../src/record/recorder.js';
import type { ResolvedTarget } from '../src/target/types.js';
import { UNEXPECTED_CAUSE, type ApiClient, type CallResult } from './api.js';
import { ev, type Checks } from './checks.js';
import { suiteEnv } from './env.js';
import { parseCause } from '../src/net/causes.js';
import { Spec } from './fixtures.js';
import { unknownKeyLike } from './matrix.js';
import { bodyShape, isJsonMedia, mediaType } from './shape.js';
import { JSON_HEADERS, PATHS } from './urls.js';

const spec = new Spec('node');
// gRPC and WebSocket clients load only in the process that runs their tests, not in every worker.
const grpcClient = () => import('../src/clients/grpc-reflection.js');
const grpcHealthClient = () => import('../src/clients/grpc-health.js');
const probeWebSocket: typeof import('../src/clients/websocket.js').probeWebSocket = async (o) => (await import('../src/clients/websocket.js')).probeWebSocket(o);
const target = suiteEnv().target;
const timeoutMs = target.limits.timeoutMs;

/** Statuses that mean "your credentials were not accepted" (RFC 9110 15.5.2 and 15.5.4). */
const AUTH_REFUSALS: readonly number[] = [401, 403];
/** gRPC statuses that mean "your credentials were not accepted". */
const GRPC_REFUSALS: readonly string[] = ['UNAUTHENTICATED', 'PERMISSION_DENIED'];
const NO_TOKEN_CAUSE = 'no node token';
const WRONG_TOKEN_CAUSE = 'a wrong node token';
const OPEN_FORM_CAUSE = 'an auth form the description leaves open';

type NodeName = 'blockRest' | 'chainB' | 'horizon';
type RestPath = Exclude<NodePath, 'websocket' | 'grpc'>;

interface RestPathDef {
  node: NodeName;
  /** The NODE rule this path's answer is judged by. */
  rule: string;
  label: string;
  method: 'GET' | 'POST';
  path(t: ResolvedTarget): string;
  headers?: Record<string, string>;
  body?(id: number, t: ResolvedTarget): string;
  /** The form a wrong token is sent in for NAUTH-07: one this path is documented to read. */
  wrongTokenForm: FormId;
}

/** The REST paths of the node table, with the NODE rule each answers to. */
const REST_PATHS: Record<RestPath, RestPathDef> = {
  blockRest: { node: 'blockRest', rule: 'NODE-01', label: 'block by height', method: 'GET', path: (t) => PATHS.blockByHeight(t.nodes.blockRest!.height), headers: JSON_HEADERS, wrongTokenForm: 'x-auth-token' },
  appRest: { node: 'chainB', rule: 'NODE-03', label: 'app REST node_info', method: 'GET', path: () => PATHS.appRestNodeInfo, headers: JSON_HEADERS, wrongTokenForm: 'auth-query' },
  consensusRpc: {
    node: 'chainB',
    rule: 'NODE-04',
    label: 'consensus RPC',
    method: 'POST',
    path: () => PATHS.consensusRpc,
    headers: JSON_HEADERS,
    body: (id, t) => JSON.stringify({ jsonrpc: '2.0', method: t.nodes.chainB!.consensusRpcMethod, params: [], id }),
    wrongTokenForm: 'auth-query',
  },
  consensusRest: { node: 'chainB', rule: 'NODE-05', label: 'consensus REST status', method: 'POST', path: () => PATHS.consensusRestStatus, headers: JSON_HEADERS, wrongTokenForm: 'auth-query' },
  feeStats: { node: 'horizon', rule: 'NODE-07', label: 'fee_stats', method: 'GET', path: () => PATHS.feeStats, wrongTokenForm: 'auth-query' },
};

const NODE_SECTION: Record<NodeName, string> = { blockRest: 'nodes.blockRest', chainB: 'nodes.chainB', horizon: 'nodes.horizon' };

function nodeOf(t: ResolvedTarget, name: NodeName): { endpoint: string; token: string } | undefined {
  return t.nodes[name];
}

function usagesOf(path: NodePath): TokenUsage[] {
  return NODE_TOKEN_USAGES.filter((u) => u.path === path);
}

/** A 2xx whose body is JSON: what "answers 2xx JSON" means. */
function jsonProblem(res: CallResult): string | undefined {
  if (!res.ok) return `answered ${res.status}`;
  if (res.json === undefined) return `answered ${res.status} with a body that is not JSON (${mediaType(res.headers) ?? 'no content type'})`;
  return undefined;
}

function restCall(api: ApiClient, def: RestPathDef, node: { endpoint: string }, form: FormId | undefined, secret: string | undefined, purpose: string, cause?: string, method: 'GET' | 'POST' | 'HEAD' = def.method, id = 1): Promise<CallResult> {
  return api.call({
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
  const observation = { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) };
  let problem = jsonProblem(res);
  if (!problem && def.rule === 'NODE-04') {
    const got = (res.json as { id?: unknown } | null)?.id;
    if (got !== requestId) problem = `the response id is ${JSON.stringify(got)}, not the request's ${requestId}`;
  }
  check.verdict(!problem, def.rule, id, `${def.label}: ${res.status} JSON${def.rule === 'NODE-04' ? ', request id echoed' : ''}`, `${def.label}: ${problem}`, ev(res.exchange, { expected: '2xx JSON', actual: res.status, observation }));
}

for (const [path, def] of Object.entries(REST_PATHS) as [RestPath, RestPathDef][]) {
  const node = nodeOf(target, def.node);
  if (!node) continue;
  const usages = usagesOf(path);
  // fee_stats also gets a HEAD (NODE-07); the horizon node is rate-limited, so that is all.
  const rules = [...new Set([...usages.map((u) => u.rule), def.rule])];
  spec.contract(
    `${def.label} with each token form`,
    rules,
    async ({ api, check }) => {
      let judged = false;
      let answered = false;
      for (const u of usages) {
        const id = `node.${path}[${u.form}]`;
        const requestId = randomInt(1_000_000, 2_000_000_000);
        await check.guard(judged ? [u.rule] : [u.rule, def.rule], id, async () => {
          const res = await restCall(api, def, node, u.form, node.token, id, u.expect === 'open' ? OPEN_FORM_CAUSE : undefined, def.method, requestId);
          answered = true;
          const refused = AUTH_REFUSALS.includes(res.status);
          const observation = { status: res.status, accepted: res.ok };
          const what = `${def.label}, token as ${u.form}`;
          if (u.expect === 'open') check.observe(u.rule, id, `${what}: ${res.ok ? 'accepted' : refused ? 'refused' : 'answered'} (${res.status})`, observation, res.exchange);
          else if (res.ok || refused) check.verdict(res.ok, u.rule, id, `${what}: accepted (${res.status})`, `${what}: refused with ${res.status}`, ev(res.exchange, { expected: '2xx', actual: res.status, observation }));
          // Neither data nor an auth refusal (a 404, a 500): whether the token was taken cannot be told.
          else check.error(u.rule, id, `${what}: answered ${res.status}, neither data nor an auth refusal`, ev(res.exchange, { observation }));
          // The path's own rule is judged on the first answer to a documented form that got past auth.
          if (!judged && u.expect === 'accept' && !refused) {
            judged = true;
            judgePath(check, def, res, requestId);
          }
        });
      }
      // No answer at all: the path's rule already carries the cause (the guard above), not "refused".
      if (!judged && answered) check.error(def.rule, `node.${path}`, `${def.label}: every documented token form was refused, so the answer could not be judged`);
      if (path === 'feeStats') {
        const id = 'node.feeStats[head]';
        await check.guard('NODE-07', id, async () => {
          const res = await restCall(api, def, node, 'auth-query', node.token, id, undefined, 'HEAD');
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
    },
    { requests: usages.length + 2 },
  );

  spec.contract(
    `${def.label} without a token or with a wrong one`,
    ['NAUTH-07'],
    async ({ api, check }) => {
      for (const [what, form, secret, cause] of [
        ['no token', undefined, undefined, NO_TOKEN_CAUSE],
        [`a wrong token as ${def.wrongTokenForm}`, def.wrongTokenForm, unknownKeyLike(node.token), WRONG_TOKEN_CAUSE],
      ] as const) {
        const id = `node.${path}[${form ? 'wrong-token' : 'no-token'}]`;
        await check.guard('NAUTH-07', id, async () => {
          const res = await restCall(api, def, node, form, secret, id, cause);
          check.verdict(!res.ok, 'NAUTH-07', id, `${def.label} with ${what}: refused (${res.status})`, `${def.label} with ${what}: answered ${res.status}`, ev(res.exchange, { expected: 'not 2xx', actual: res.status, observation: { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) } }));
        });
      }
    },
  );
}

// ---- WebSocket and gRPC (chain B).

const chainB = target.nodes.chainB;

/** A refused or silent-then-closed WebSocket gives no data: no upgrade, or closed before anything came. */
function gotNoData(r: WebSocketProbeResult): boolean {
  return !r.upgraded || (r.closedByServer !== undefined && r.serverMessages === 0 && r.pongMs === undefined);
}

function wsObservation(r: WebSocketProbeResult): Record<string, unknown> {
  return { status: r.status ?? 'none', upgraded: r.upgraded, pong: r.pongMs !== undefined, replyShape: r.reply === undefined ? 'none' : bodyShape(r.reply), closedByServer: r.closedByServer ?? 'no' };
}

if (chainB) {
  const rpcMessage = JSON.stringify({ jsonrpc: '2.0', id: 1, method: chainB.consensusRpcMethod, params: [] });

  spec.contract('WebSocket upgrade and ping/pong', ['NAUTH-05', 'NODE-02'], async ({ api, check, recorder }) => {
    const id = 'node.websocket[x-auth-token]';
    await check.guard(['NAUTH-05', 'NODE-02'], id, async () => {
      api.take();
      const r = await probeWebSocket({ url: chainB.websocketUrl, headers: { 'X-Auth-Token': chainB.token }, timeoutMs, message: rpcMessage, recorder, purpose: id });
      if (!r.upgraded && r.status === undefined) {
        for (const rule of ['NAUTH-05', 'NODE-02']) check.error(rule, id, r.error ?? 'no answer to the upgrade', ev(r.exchange));
        return;
      }
      if (!r.upgraded && r.exchange) api.noteNon2xx(UNEXPECTED_CAUSE, r.exchange);
      const observation = wsObservation(r);
      check.verdict(r.upgraded, 'NAUTH-05', id, `upgrade with X-Auth-Token completed (${r.status})`, `upgrade with X-Auth-Token refused (${r.status})`, ev(r.exchange, { expected: 101, actual: r.status, observation }));
      if (!r.upgraded) check.error('NODE-02', id, 'the upgrade was refused, so no ping/pong could be tried', ev(r.exchange));
      else check.verdict(r.pongMs !== undefined, 'NODE-02', id, `ping/pong round trip in ${r.pongMs} ms`, `no pong to a ping within ${timeoutMs} ms`, ev(r.exchange, { expected: 'pong', actual: r.error ?? 'no pong', observation }));
    });
  });

  spec.contract('WebSocket without a token or with a wrong one', ['NAUTH-07'], async ({ api, check, recorder }) => {
    for (const [what, headers, cause] of [
      ['no token', {}, NO_TOKEN_CAUSE],
      ['a wrong token', { 'X-Auth-Token': unknownKeyLike(chainB.token) }, WRONG_TOKEN_CAUSE],
    ] as const) {
      const id = `node.websocket[${Object.keys(headers).length ? 'wrong-token' : 'no-token'}]`;
      await check.guard('NAUTH-07', id, async () => {
        api.take();
        const r = await probeWebSocket({ url: chainB.websocketUrl, headers, timeoutMs, recorder, purpose: id });
        if (!r.upgraded && r.status === undefined) return check.error('NAUTH-07', id, r.error ?? 'no answer to the upgrade', ev(r.exchange));
        if (!r.upgraded && r.exchange) api.noteNon2xx(cause, r.exchange);
        check.verdict(gotNoData(r), 'NAUTH-07', id, `WebSocket with ${what}: ${r.upgraded ? 'closed before any data' : `upgrade refused (${r.status})`}`, `WebSocket with ${what}: upgraded and ${r.pongMs !== undefined ? 'answered a ping' : 'kept open'}`, ev(r.exchange, { expected: 'no upgrade, or closed before any data', observation: wsObservation(r) }));
      });
    }
  });

  const grpcCall = { address: chainB.grpcAddress, tls: chainB.grpcTls, deadlineMs: timeoutMs };
  const grpcList = async (metadata: Record<string, string>, purpose: string, recorder: Recorder) =>
    (await grpcClient()).listServicesByReflection({ ...grpcCall, metadata, recorder, purpose });
  const grpcHealth = async (metadata: Record<string, string>, purpose: string, recorder: Recorder) =>
    (await grpcHealthClient()).checkHealth({ ...grpcCall, metadata, recorder, purpose });
  const tokenMetadata = { 'x-auth-token': chainB.token };

  /** How one gRPC call ended: its answer, or the GrpcCallError it threw (other throws propagate). */
  async function settle<T>(call: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: GrpcCallError }> {
    const { GrpcCallError } = await grpcClient();
    try {
      return { ok: true, value: await call() };
    } catch (e) {
      if (!(e instanceof GrpcCallError)) throw e;
      return { ok: false, error: e };
    }
  }
  const refusedStatus = (codeName: string) => GRPC_REFUSALS.includes(codeName);

  /**
   * NAUTH-06 when reflection is not served: UNIMPLEMENTED may come before or after the auth layer,
   * so it shows nothing by itself. What can show it: the same call refused without the token, or
   * the health check answering with the token and refused without it.
   */
  async function tokenShownWithoutReflection(check: Checks, api: ApiClient, recorder: Recorder): Promise<void> {
    const id = 'node.grpc[x-auth-token]';
    const bareId = 'node.grpc[reflection-no-token]';
    api.take();
    const bare = await settle(() => grpcList({}, bareId, recorder));
    const bareExchange = recorder.exchanges.at(-1);
    if (!bare.ok && bareExchange) api.noteNon2xx(NO_TOKEN_CAUSE, bareExchange, undefined, `grpc ${bare.error.codeName}`);
    if (!bare.ok && refusedStatus(bare.error.codeName)) {
      check.pass('NAUTH-06', id, `x-auth-token metadata accepted: reflection ends UNIMPLEMENTED with it and ${bare.error.codeName} without it`, ev(recorder.exchanges.slice(-2)));
      return;
    }
    const healthId = 'node.grpc.health[x-auth-token]';
    api.take();
    const withToken = await settle(() => grpcHealth(tokenMetadata, healthId, recorder));
    const healthExchange = recorder.exchanges.at(-1);
    if (!withToken.ok) {
      if (healthExchange) api.noteNon2xx(UNEXPECTED_CAUSE, healthExchange, undefined, `grpc ${withToken.error.codeName}`);
      if (refusedStatus(withToken.error.codeName)) check.fail('NAUTH-06', healthId, `x-auth-token metadata refused by the health check: ${withToken.error.message}`, ev(healthExchange, { expected: 'OK', actual: withToken.error.codeName }));
      else check.error('NAUTH-06', id, `no call could show whether the token was accepted: reflection ends UNIMPLEMENTED with and without it, the health check ${withToken.error.codeName}`, ev(recorder.exchanges.slice(-3)));
      return;
    }
    api.take();
    const withoutId = 'node.grpc.health[no-token]';
    const without = await settle(() => grpcHealth({}, withoutId, recorder));
    const withoutExchange = recorder.exchanges.at(-1);
    if (!without.ok && withoutExchange) api.noteNon2xx(NO_TOKEN_CAUSE, withoutExchange, undefined, `grpc ${without.error.codeName}`);
    if (!without.ok && refusedStatus(without.error.codeName)) {
      check.pass('NAUTH-06', healthId, `x-auth-token metadata accepted: the health check answers ${withToken.value} with it and ${without.error.codeName} without it`, ev([healthExchange, withoutExchange]));
    } else {
      const seen = without.ok ? `answers ${without.value}` : `ends ${without.error.codeName}`;
      check.error('NAUTH-06', id, `no call could show whether the token was accepted: reflection ends UNIMPLEMENTED with and without it, and the health check ${seen} without a token too`, ev(recorder.exchanges.slice(-3)));
    }
  }

  spec.contract(
    'gRPC reflection',
    ['NAUTH-06', 'NODE-06'],
    async ({ api, check, recorder }) => {
      const id = 'node.grpc[x-auth-token]';
      const { isReflectionService } = await grpcClient();
      await check.guard(['NAUTH-06', 'NODE-06'], id, async () => {
        api.take();
        const listed = await settle(() => grpcList(tokenMetadata, id, recorder));
        const exchange = recorder.exchanges.at(-1);
        if (listed.ok) {
          const services = listed.value;
          check.pass('NAUTH-06', id, `x-auth-token metadata accepted: ${services.length} service(s) listed`, ev(exchange));
          const own = services.filter((s) => !isReflectionService(s));
          check.verdict(own.length > 0, 'NODE-06', id, `reflection lists ${own.join(', ')}`, `reflection lists only ${services.join(', ') || 'nothing'}`, ev(exchange, { expected: 'a service besides reflection', actual: services, observation: { services: [...services].sort() } }));
          return;
        }
        const e = listed.error;
        // A call that never connected (refused, TLS) is no answer of the target, so not ERR-01 material.
        if (exchange && !parseCause(e.message)) api.noteNon2xx(UNEXPECTED_CAUSE, exchange, undefined, `grpc ${e.codeName}`);
        const unimplemented = e.codeName === 'UNIMPLEMENTED';
        // An answer from the reflection service itself (in the stream) or UNIMPLEMENTED (no such service): no list.
        if (unimplemented || e.inBand) check.fail('NODE-06', id, `services not listed: ${e.message}`, ev(recorder.exchanges.slice(unimplemented ? -2 : -1), { expected: 'a list_services answer', actual: e.codeName }));
        else check.error('NODE-06', id, `no service list: ${e.message}`, ev(exchange));
        if (refusedStatus(e.codeName)) check.fail('NAUTH-06', id, `x-auth-token metadata refused: ${e.message}`, ev(exchange, { expected: 'OK', actual: e.codeName }));
        else if (e.inBand) check.pass('NAUTH-06', id, `x-auth-token metadata accepted: the reflection service itself answered (${e.message})`, ev(exchange));
        else if (unimplemented) await tokenShownWithoutReflection(check, api, recorder);
        else check.error('NAUTH-06', id, e.message, ev(exchange));
      });
    },
    { requests: 4 },
  );

  spec.contract('gRPC without a token or with a wrong one', ['NAUTH-07'], async ({ api, check, recorder }) => {
    const { GrpcCallError } = await grpcClient();
    for (const [what, metadata, cause] of [
      ['no token', {}, NO_TOKEN_CAUSE],
      ['a wrong token', { 'x-auth-token': unknownKeyLike(chainB.token) }, WRONG_TOKEN_CAUSE],
    ] as const) {
      const id = `node.grpc[${Object.keys(metadata).length ? 'wrong-token' : 'no-token'}]`;
      await check.guard('NAUTH-07', id, async () => {
        api.take();
        try {
          const services = await grpcList(metadata, id, recorder);
          check.fail('NAUTH-07', id, `gRPC with ${what}: status OK, ${services.length} service(s) listed`, ev(recorder.exchanges.at(-1), { expected: 'a status other than OK', actual: 'OK' }));
        } catch (e) {
          if (!(e instanceof GrpcCallError)) throw e;
          const exchange = recorder.exchanges.at(-1);
          if (e.code === undefined || e.codeName === 'UNAVAILABLE' || e.codeName === 'DEADLINE_EXCEEDED') return check.error('NAUTH-07', id, e.message, ev(exchange));
          if (exchange) api.noteNon2xx(cause, exchange, undefined, `grpc ${e.codeName}`);
          check.pass('NAUTH-07', id, `gRPC with ${what}: ${e.codeName}`, ev(exchange, { observation: { status: e.codeName } }));
        }
      });
    }
  });
}

spec.coverRest(
  RULES.filter((r) => r.section === 'NODE' || r.section === 'NAUTH').map((r) => r.id),
  (rule, t) => {
    const need = (name: NodeName) => (t.nodes[name] ? 'not testable with this target' : `target has no ${NODE_SECTION[name]} section`);
    if (['NAUTH-01', 'NAUTH-02', 'NAUTH-03', 'NODE-01'].includes(rule)) return need('blockRest');
    if (rule === 'NODE-07') return need('horizon');
    if (rule === 'NAUTH-04' || rule === 'NAUTH-07') return 'target has no nodes section (blockRest, chainB or horizon)';
    return need('chainB');
  },
);
