// The WebSocket and gRPC work of chain B's node (NODE-02, NODE-06, NAUTH-05..07), apart from the node
// spec so that the contract stage can send it itself while Playwright loads (contracts/stage-work.ts),
// as it does the REST paths' (node-rest.ts): the upgrade with a ping/pong round trip and gRPC
// reflection with the right token, then NAUTH-07's no token and wrong tokens in every form that
// path took the right token in (node-refusals.ts). The clients load only where the work runs.
import { applyForm, AUTH_FORMS, type FormId, type NodePath } from '../src/auth/forms.js';
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import type { GrpcCallError } from '../src/clients/grpc-reflection.js';
import type { WebSocketProbeResult } from '../src/clients/websocket.js';
import { parseCause } from '../src/net/causes.js';
import type { Recorder } from '../src/record/recorder.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import { UNEXPECTED_CAUSE, type ApiClient } from './api.js';
import { CouldNotTest, ev, type Checks } from './checks.js';
import { usagesOf } from './node-rest.js';
import {
  learnOpenForms,
  NO_TOKEN_CAUSE,
  refuseNode,
  refusalCount,
  type NodeAttempt,
  type NodeRow,
} from './node-refusals.js';
import { hostOf, type FamilyWork } from './work.js';
import { bodyShape } from './shape.js';
import { WS_REFUSAL_EXPECTED, wsRefusal, wsTiming } from './ws-refusal.js';

const grpcClient = () => import('../src/clients/grpc-reflection.js');
const grpcHealthClient = () => import('../src/clients/grpc-health.js');
const probeWebSocket: typeof import('../src/clients/websocket.js').probeWebSocket = async (o) =>
  (await import('../src/clients/websocket.js')).probeWebSocket(o);

/** gRPC statuses that mean "your credentials were not accepted". */
const GRPC_REFUSALS: readonly string[] = ['UNAUTHENTICATED', 'PERMISSION_DENIED'];

/** The forms a WebSocket or gRPC path is not shown with: tried with the right token to learn whether they work. */
const openFormsOf = (path: NodePath) =>
  usagesOf(path)
    .filter((u) => u.expect === 'open')
    .map((u) => u.form);

/** At most the requests of one WebSocket or gRPC test: every form with the right token, then the refusals. */
const nodeRequests = (path: NodePath) =>
  usagesOf(path).length +
  refusalCount(
    usagesOf(path).map((u) => u.form),
    true,
  );

/** The stable part of a probe, for baselines (times go beside it: wsTiming). */
function wsObservation(r: WebSocketProbeResult): Record<string, unknown> {
  return {
    status: r.status ?? 'none',
    upgraded: r.upgraded,
    pong: r.pongMs !== undefined,
    replyShape: r.reply === undefined ? 'none' : bodyShape(r.reply),
    firstMessage: r.firstMessage ? (r.firstMessage.binary ? 'binary' : 'text') : 'none',
    closedByServer: r.closedByServer ?? 'no',
  };
}

/** Chain B's WebSocket and gRPC works; none when the target has no chainB section. */
export function streamWorks(target: ResolvedTarget, seed: number): FamilyWork[] {
  const chainB = target.nodes.chainB;
  if (!chainB) return [];
  const timeoutMs = target.limits.timeoutMs;
  /** How long after a WebSocket upgrade a refusal may take: a close within it, without a message, refuses. */
  const graceMs = target.limits.wsGraceMs;
  const works: FamilyWork[] = [];
  const work = (
    host: string,
    title: string,
    rules: string[],
    run: FamilyWork['run'],
    opts: { requests: number; timeoutMs?: number },
  ) => works.push({ title, rules, run, ...opts, rateLimited: false, hosts: [host] });
  const rpcMessage = JSON.stringify({ jsonrpc: '2.0', id: 1, method: chainB.consensusRpcMethod, params: [] });

  const wsRow: NodeRow = {
    id: 'node.websocket',
    row: 'chainB WebSocket',
    label: 'WebSocket',
    full: true,
    index: 0,
    seed,
  };
  work(
    hostOf(chainB.websocketUrl),
    'WebSocket upgrade and ping/pong, without a token and with wrong ones',
    ['NAUTH-05', 'NODE-02', 'NAUTH-07'],
    async ({ api, check, recorder }) => {
      const id = 'node.websocket[x-auth-token]';
      const accepted: FormId[] = [];
      await check.guard(['NAUTH-05', 'NODE-02'], id, async () => {
        api.take();
        const r = await probeWebSocket({
          url: chainB.websocketUrl,
          headers: applyForm('ws-x-auth-token', chainB.token, chainB.websocketUrl).headers,
          timeoutMs,
          message: rpcMessage,
          recorder,
          purpose: id,
        });
        if (!r.upgraded && r.status === undefined) {
          for (const rule of ['NAUTH-05', 'NODE-02'])
            check.error(rule, id, r.error ?? 'no answer to the upgrade', ev(r.exchange));
          return;
        }
        if (!r.upgraded && r.exchange) api.noteNon2xx(UNEXPECTED_CAUSE, r.exchange);
        if (r.upgraded) accepted.push('ws-x-auth-token');
        const observation = wsObservation(r);
        const authProbe: AuthProbe = {
          row: wsRow.row,
          form: 'ws-x-auth-token',
          probe: 'right',
          documented: true,
          data: r.upgraded,
        };
        check.verdict(
          r.upgraded,
          'NAUTH-05',
          id,
          `upgrade with X-Auth-Token completed (${r.status})`,
          `upgrade with X-Auth-Token refused (${r.status})`,
          ev(r.exchange, { expected: 101, actual: r.status, observation, [AUTH_PROBE_FIELD]: authProbe }),
        );
        if (!r.upgraded)
          check.error('NODE-02', id, 'the upgrade was refused, so no ping/pong could be tried', ev(r.exchange));
        else
          check.verdict(
            r.pongMs !== undefined,
            'NODE-02',
            id,
            `ping/pong round trip in ${r.pongMs} ms`,
            `no pong to a ping within ${timeoutMs} ms`,
            ev(r.exchange, { expected: 'pong', actual: r.error ?? 'no pong', observation }),
          );
      });
      if (!check.wants('NAUTH-07')) return;
      const attempt: NodeAttempt = async (form, values, purpose, cause) => {
        api.take();
        const { url, headers } = form
          ? applyForm(form, values!, chainB.websocketUrl)
          : { url: chainB.websocketUrl, headers: {} };
        // The request goes at the upgrade: a node that took the token answers it within the grace.
        const r = await probeWebSocket({ url, headers, timeoutMs, graceMs, message: rpcMessage, recorder, purpose });
        if (!r.upgraded && r.status === undefined)
          throw new CouldNotTest(r.error ?? 'no answer to the upgrade', r.exchange ? [r.exchange] : []);
        if (!r.upgraded && r.exchange) api.noteNon2xx(cause, r.exchange);
        const { data, what } = wsRefusal(r);
        const timing = wsTiming(r);
        return {
          data,
          what,
          evidence: ev(r.exchange, {
            expected: WS_REFUSAL_EXPECTED,
            observation: wsObservation(r),
            ...(timing && { timing }),
          }),
        };
      };
      await learnOpenForms(check, wsRow, openFormsOf('websocket'), chainB.token, attempt, accepted);
      await refuseNode(check, wsRow, accepted, chainB.token, attempt);
    },
    // A refusal may take the grace on top of the request's time.
    { requests: nodeRequests('websocket'), timeoutMs: nodeRequests('websocket') * (timeoutMs + graceMs) + 5_000 },
  );

  const grpcCall = { address: chainB.grpcAddress, tls: chainB.grpcTls, deadlineMs: timeoutMs };
  const grpcList = async (metadata: Record<string, string>, purpose: string, recorder: Recorder) =>
    (await grpcClient()).listServicesByReflection({ ...grpcCall, metadata, recorder, purpose });
  const grpcHealth = async (metadata: Record<string, string>, purpose: string, recorder: Recorder) =>
    (await grpcHealthClient()).checkHealth({ ...grpcCall, metadata, recorder, purpose });
  const tokenMetadata = { 'x-auth-token': chainB.token };

  /** How one gRPC call ended: its answer, or the GrpcCallError it threw (other throws propagate). */
  async function settle<T>(
    call: () => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; error: GrpcCallError }> {
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
    if (!bare.ok && bareExchange)
      api.noteNon2xx(NO_TOKEN_CAUSE, bareExchange, undefined, `grpc ${bare.error.codeName}`);
    if (!bare.ok && refusedStatus(bare.error.codeName)) {
      check.pass(
        'NAUTH-06',
        id,
        `x-auth-token metadata accepted: reflection ends UNIMPLEMENTED with it and ${bare.error.codeName} without it`,
        ev(recorder.exchanges.slice(-2)),
      );
      return;
    }
    const healthId = 'node.grpc.health[x-auth-token]';
    api.take();
    const withToken = await settle(() => grpcHealth(tokenMetadata, healthId, recorder));
    const healthExchange = recorder.exchanges.at(-1);
    if (!withToken.ok) {
      if (healthExchange)
        api.noteNon2xx(UNEXPECTED_CAUSE, healthExchange, undefined, `grpc ${withToken.error.codeName}`);
      if (refusedStatus(withToken.error.codeName))
        check.fail(
          'NAUTH-06',
          healthId,
          `x-auth-token metadata refused by the health check: ${withToken.error.message}`,
          ev(healthExchange, { expected: 'OK', actual: withToken.error.codeName }),
        );
      else
        check.error(
          'NAUTH-06',
          id,
          `no call could show whether the token was accepted: reflection ends UNIMPLEMENTED with and without it, the health check ${withToken.error.codeName}`,
          ev(recorder.exchanges.slice(-3)),
        );
      return;
    }
    api.take();
    const withoutId = 'node.grpc.health[no-token]';
    const without = await settle(() => grpcHealth({}, withoutId, recorder));
    const withoutExchange = recorder.exchanges.at(-1);
    if (!without.ok && withoutExchange)
      api.noteNon2xx(NO_TOKEN_CAUSE, withoutExchange, undefined, `grpc ${without.error.codeName}`);
    if (!without.ok && refusedStatus(without.error.codeName)) {
      check.pass(
        'NAUTH-06',
        healthId,
        `x-auth-token metadata accepted: the health check answers ${withToken.value} with it and ${without.error.codeName} without it`,
        ev([healthExchange, withoutExchange]),
      );
    } else {
      const seen = without.ok ? `answers ${without.value}` : `ends ${without.error.codeName}`;
      check.error(
        'NAUTH-06',
        id,
        'no call could show whether the token was accepted: reflection ends UNIMPLEMENTED with and without it, ' +
          `and the health check ${seen} without a token too`,
        ev(recorder.exchanges.slice(-3)),
      );
    }
  }

  const grpcRow: NodeRow = { id: 'node.grpc', row: 'chainB gRPC', label: 'gRPC', full: true, index: 0, seed };
  work(
    chainB.grpcAddress,
    'gRPC reflection, without a token and with wrong ones',
    ['NAUTH-06', 'NODE-06', 'NAUTH-07'],
    async ({ api, check, recorder }) => {
      const id = 'node.grpc[x-auth-token]';
      const { GrpcCallError, isReflectionService } = await grpcClient();
      const accepted: FormId[] = [];
      const metadataOf = (form: FormId, value: string) => ({ [AUTH_FORMS[form].name]: AUTH_FORMS[form].value(value) });
      // Several calls may be in flight: an exchange is found by its purpose (the check id), not by position.
      const exchangeOf = (purpose: string) => recorder.exchanges.findLast((x) => x.purpose === purpose);
      await check.guard(['NAUTH-06', 'NODE-06'], id, async () => {
        api.take();
        const listed = await settle(() => grpcList(metadataOf('grpc-metadata', chainB.token), id, recorder));
        const exchange = recorder.exchanges.at(-1);
        if (listed.ok) {
          const services = listed.value;
          accepted.push('grpc-metadata');
          const authProbe: AuthProbe = {
            row: grpcRow.row,
            form: 'grpc-metadata',
            probe: 'right',
            documented: true,
            data: true,
          };
          check.pass(
            'NAUTH-06',
            id,
            `x-auth-token metadata accepted: ${services.length} service(s) listed`,
            ev(exchange, { [AUTH_PROBE_FIELD]: authProbe }),
          );
          const own = services.filter((s) => !isReflectionService(s));
          check.verdict(
            own.length > 0,
            'NODE-06',
            id,
            `reflection lists ${own.join(', ')}`,
            `reflection lists only ${services.join(', ') || 'nothing'}`,
            ev(exchange, {
              expected: 'a service besides reflection',
              actual: services,
              observation: { services: [...services].sort() },
            }),
          );
          return;
        }
        const e = listed.error;
        // A call that never connected (refused, TLS) is no answer of the target, so not ERR-01 material.
        if (exchange && !parseCause(e.message))
          api.noteNon2xx(UNEXPECTED_CAUSE, exchange, undefined, `grpc ${e.codeName}`);
        const unimplemented = e.codeName === 'UNIMPLEMENTED';
        // An answer from the reflection service itself (in the stream) or UNIMPLEMENTED (no such service): no list.
        if (unimplemented || e.inBand)
          check.fail(
            'NODE-06',
            id,
            `services not listed: ${e.message}`,
            ev(recorder.exchanges.slice(unimplemented ? -2 : -1), {
              expected: 'a list_services answer',
              actual: e.codeName,
            }),
          );
        else check.error('NODE-06', id, `no service list: ${e.message}`, ev(exchange));
        if (refusedStatus(e.codeName))
          check.fail(
            'NAUTH-06',
            id,
            `x-auth-token metadata refused: ${e.message}`,
            ev(exchange, { expected: 'OK', actual: e.codeName }),
          );
        else if (e.inBand) {
          accepted.push('grpc-metadata');
          check.pass(
            'NAUTH-06',
            id,
            `x-auth-token metadata accepted: the reflection service itself answered (${e.message})`,
            ev(exchange),
          );
        } else if (unimplemented) await tokenShownWithoutReflection(check, api, recorder);
        else check.error('NAUTH-06', id, e.message, ev(exchange));
      });
      if (!check.wants('NAUTH-07')) return;
      const attempt: NodeAttempt = async (form, values, purpose, cause) => {
        api.take();
        try {
          const services = await grpcList(form ? metadataOf(form, values![0]!) : {}, purpose, recorder);
          return {
            data: true,
            what: `status OK, ${services.length} service(s) listed`,
            evidence: ev(exchangeOf(purpose), { expected: 'a status other than OK', actual: 'OK' }),
          };
        } catch (e) {
          if (!(e instanceof GrpcCallError)) throw e;
          const exchange = exchangeOf(purpose);
          if (e.code === undefined || e.codeName === 'UNAVAILABLE' || e.codeName === 'DEADLINE_EXCEEDED')
            throw new CouldNotTest(e.message, exchange ? [exchange] : []);
          if (exchange) api.noteNon2xx(cause, exchange, undefined, `grpc ${e.codeName}`);
          return {
            data: false,
            what: e.codeName ?? 'refused',
            evidence: ev(exchange, { observation: { status: e.codeName } }),
          };
        }
      };
      await learnOpenForms(check, grpcRow, openFormsOf('grpc'), chainB.token, attempt, accepted);
      await refuseNode(check, grpcRow, accepted, chainB.token, attempt);
    },
    { requests: nodeRequests('grpc') + 3 },
  ); // + the calls that show NAUTH-06 when reflection is not served
  return works;
}
