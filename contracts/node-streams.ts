// Chain B's WebSocket and gRPC sending (NODE-02, NODE-06, NAUTH-05..07): the upgrade with a
// ping/pong round trip and gRPC reflection with the right token, then NAUTH-07's no token and wrong
// tokens in every form that path took the right token in (node-refusals.ts). What each call got is
// kept for the judges (node-streams-judge.ts). The clients load only when a call is made.
import { applyForm, AUTH_FORMS, type FormId, type NodePath } from '../src/auth/forms.js';
import type { GrpcCallError } from '../src/clients/grpc-reflection.js';
import type { WebSocketProbeResult } from '../src/clients/websocket.js';
import { parseCause } from '../src/net/causes.js';
import type { Exchange, Recorder } from '../src/record/recorder.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import { UNEXPECTED_CAUSE, type ApiClient } from './api.js';
import { CouldNotTest } from './checks.js';
import { settled } from './in-flight.js';
import {
  NO_TOKEN_CAUSE,
  outcomeOf,
  sendOpenFormsThenRefusals,
  type NodeAttempt,
  type NodeRow,
  type OpenFormSent,
  type Outcome,
  type SentRefusal,
} from './node-refusals.js';
import { usagesOf } from './node-rest.js';
import { wsRefusal } from './ws-refusal.js';

const grpcClient = () => import('../src/clients/grpc-reflection.js');
const grpcHealthClient = () => import('../src/clients/grpc-health.js');
const probeWebSocket: typeof import('../src/clients/websocket.js').probeWebSocket = async (o) =>
  (await import('../src/clients/websocket.js')).probeWebSocket(o);

/** gRPC statuses that mean "your credentials were not accepted". */
export const GRPC_REFUSALS: readonly string[] = ['UNAUTHENTICATED', 'PERMISSION_DENIED'];

/** The forms a WebSocket or gRPC path is not shown with: tried with the right token to learn whether they work. */
const openFormsOf = (path: NodePath) =>
  usagesOf(path)
    .filter((u) => u.expect === 'open')
    .map((u) => u.form);

export const wsRowOf = (seed: number): NodeRow => ({
  id: 'node.websocket',
  row: 'chainB WebSocket',
  label: 'WebSocket',
  full: true,
  index: 0,
  seed,
});

export const grpcRowOf = (seed: number): NodeRow => ({
  id: 'node.grpc',
  row: 'chainB gRPC',
  label: 'gRPC',
  full: true,
  index: 0,
  seed,
});

/** What the WebSocket's upgrades got. */
export interface WebSocketAnswers {
  row: NodeRow;
  /** The probe's time-out, ms (a pong is waited for that long). */
  timeoutMs: number;
  /** The upgrade with the token as X-Auth-Token, a request sent at it and a ping. */
  upgrade: Outcome<WebSocketProbeResult>;
  /** NAUTH-07: the token in the forms not shown there. */
  open?: OpenFormSent<WebSocketProbeResult>[];
  /** NAUTH-07: no token, then wrong tokens in the forms that took the right one. */
  refusals?: SentRefusal<WebSocketProbeResult>[];
}

/** How a gRPC call ended, with what was recorded of it (each reflection version tried is an exchange). */
export type GrpcEnded<T> =
  | { ok: true; value: T; exchanges: Exchange[] }
  | { ok: false; codeName: string; message: string; inBand: boolean; exchanges: Exchange[] };

/** The calls that may show NAUTH-06 when reflection ends UNIMPLEMENTED with the token. */
export interface TokenShown {
  /** Reflection without a token. */
  bare: GrpcEnded<string[]>;
  /** The health check with the token (when reflection without one was not refused). */
  health?: GrpcEnded<string>;
  /** The health check without a token (when it answered with one). */
  healthWithout?: GrpcEnded<string>;
}

/** What chain B's gRPC calls got. */
export interface GrpcAnswers {
  row: NodeRow;
  /** Reflection's service list with the token as x-auth-token metadata; `own`: the services besides reflection. */
  listed: Outcome<GrpcEnded<{ services: string[]; own: string[] }>>;
  /** NAUTH-06 when reflection ended UNIMPLEMENTED: what the other calls showed. */
  tokenShown?: Outcome<TokenShown>;
  open?: OpenFormSent<GrpcEnded<string[]>>[];
  refusals?: SentRefusal<GrpcEnded<string[]>>[];
}

/** Sends the WebSocket's upgrades: the token as X-Auth-Token, then NAUTH-07's in every form it took. */
export async function sendWebSocket(
  target: ResolvedTarget,
  api: ApiClient,
  recorder: Recorder,
  seed: number,
  wants: (...rules: string[]) => boolean,
): Promise<WebSocketAnswers> {
  const chainB = target.nodes.chainB!;
  const timeoutMs = target.limits.timeoutMs;
  /** How long after a WebSocket upgrade a refusal may take: a close within it, without a message, refuses. */
  const graceMs = target.limits.wsGraceMs;
  const rpcMessage = JSON.stringify({ jsonrpc: '2.0', id: 1, method: chainB.consensusRpcMethod, params: [] });
  const row = wsRowOf(seed);
  const id = 'node.websocket[x-auth-token]';
  const upgrade = outcomeOf(
    await settled(
      (async () => {
        api.take();
        const r = await probeWebSocket({
          url: chainB.websocketUrl,
          headers: applyForm('ws-x-auth-token', chainB.token, chainB.websocketUrl).headers,
          timeoutMs,
          message: rpcMessage,
          recorder,
          purpose: id,
          signal: api.signal,
        });
        api.stopIfInterrupted(r.exchange);
        if (!r.upgraded && r.status === undefined)
          throw new CouldNotTest(r.error ?? 'no answer to the upgrade', r.exchange ? [r.exchange] : []);
        if (!r.upgraded && r.exchange) api.noteNon2xx(UNEXPECTED_CAUSE, r.exchange);
        return r;
      })(),
    ),
  );
  const answers: WebSocketAnswers = { row, timeoutMs, upgrade };
  if (!wants('NAUTH-07')) return answers;
  const attempt: NodeAttempt<WebSocketProbeResult> = async (form, values, purpose, cause) => {
    api.take();
    const { url, headers } = form
      ? applyForm(form, values!, chainB.websocketUrl)
      : { url: chainB.websocketUrl, headers: {} };
    // The request goes at the upgrade: a node that took the token answers it within the grace.
    const r = await probeWebSocket({
      url,
      headers,
      timeoutMs,
      graceMs,
      message: rpcMessage,
      recorder,
      purpose,
      signal: api.signal,
    });
    api.stopIfInterrupted(r.exchange);
    if (!r.upgraded && r.status === undefined)
      throw new CouldNotTest(r.error ?? 'no answer to the upgrade', r.exchange ? [r.exchange] : []);
    if (!r.upgraded && r.exchange) api.noteNon2xx(cause, r.exchange);
    return r;
  };
  const accepted: FormId[] = 'reply' in upgrade && upgrade.reply.upgraded ? ['ws-x-auth-token'] : [];
  const dataOf = (r: WebSocketProbeResult) => wsRefusal(r).data;
  ({ open: answers.open, refusals: answers.refusals } = await sendOpenFormsThenRefusals(
    row,
    openFormsOf('websocket'),
    chainB.token,
    attempt,
    dataOf,
    accepted,
  ));
  return answers;
}

/** Sends chain B's gRPC calls: reflection with the token (and what shows the token without it), then NAUTH-07's. */
export async function sendGrpc(
  target: ResolvedTarget,
  api: ApiClient,
  recorder: Recorder,
  seed: number,
  wants: (...rules: string[]) => boolean,
): Promise<GrpcAnswers> {
  const chainB = target.nodes.chainB!;
  const grpcCall = {
    address: chainB.grpcAddress,
    tls: chainB.grpcTls,
    deadlineMs: target.limits.timeoutMs,
    signal: api.signal,
  };
  const row = grpcRowOf(seed);
  const id = 'node.grpc[x-auth-token]';
  const { GrpcCallError, isReflectionService } = await grpcClient();
  // Several calls may be in flight: a call's exchanges are found by its purpose (the check id), not by position.
  const exchangesOf = (purpose: string) => recorder.exchanges.filter((x) => x.purpose === purpose);
  /** How one gRPC call ended (other throws propagate). */
  const end = async <T>(purpose: string, call: () => Promise<T>): Promise<GrpcEnded<T>> => {
    try {
      const value = await call();
      return { ok: true, value, exchanges: exchangesOf(purpose) };
    } catch (e) {
      if (!(e instanceof GrpcCallError)) throw e;
      api.stopIfInterrupted(exchangesOf(purpose).at(-1));
      return { ok: false, ...endOf(e), exchanges: exchangesOf(purpose) };
    }
  };
  const list = (metadata: Record<string, string>, purpose: string) =>
    end(purpose, async () =>
      (await grpcClient()).listServicesByReflection({ ...grpcCall, metadata, recorder, purpose }),
    );
  const health = (metadata: Record<string, string>, purpose: string) =>
    end(purpose, async () => (await grpcHealthClient()).checkHealth({ ...grpcCall, metadata, recorder, purpose }));
  const refused = (codeName: string) => GRPC_REFUSALS.includes(codeName);
  const metadataOf = (form: FormId, value: string) => ({ [AUTH_FORMS[form].name]: AUTH_FORMS[form].value(value) });
  /** A refusal of another client's call, for ERR-01. */
  const note = (cause: string, ended: GrpcEnded<unknown>) => {
    const exchange = ended.exchanges.at(-1);
    if (!ended.ok && exchange) api.noteNon2xx(cause, exchange, undefined, `grpc ${ended.codeName}`);
  };

  /**
   * NAUTH-06 when reflection is not served: UNIMPLEMENTED may come before or after the auth layer,
   * so it shows nothing by itself. What can show it: the same call refused without the token, or
   * the health check answering with the token and refused without it.
   */
  const showToken = async (): Promise<TokenShown> => {
    api.take();
    const bare = await list({}, 'node.grpc[reflection-no-token]');
    note(NO_TOKEN_CAUSE, bare);
    if (!bare.ok && refused(bare.codeName)) return { bare };
    api.take();
    const withToken = await health({ 'x-auth-token': chainB.token }, 'node.grpc.health[x-auth-token]');
    note(UNEXPECTED_CAUSE, withToken);
    if (!withToken.ok) return { bare, health: withToken };
    api.take();
    const without = await health({}, 'node.grpc.health[no-token]');
    note(NO_TOKEN_CAUSE, without);
    return { bare, health: withToken, healthWithout: without };
  };

  const listed = outcomeOf(
    await settled(
      (async () => {
        api.take();
        const got = await list(metadataOf('grpc-metadata', chainB.token), id);
        if (got.ok)
          return { ...got, value: { services: got.value, own: got.value.filter((s) => !isReflectionService(s)) } };
        // A call that never connected (refused, TLS) is no answer of the target, so not ERR-01 material.
        if (!parseCause(got.message)) note(UNEXPECTED_CAUSE, got);
        return got;
      })(),
    ),
  );
  const answers: GrpcAnswers = { row, listed };
  const accepted: FormId[] = [];
  if ('reply' in listed) {
    const l = listed.reply;
    if (l.ok || (!refused(l.codeName) && l.inBand)) accepted.push('grpc-metadata');
    if (!l.ok && !refused(l.codeName) && !l.inBand && l.codeName === 'UNIMPLEMENTED' && wants('NAUTH-06'))
      answers.tokenShown = outcomeOf(await settled(showToken()));
  }
  if (!wants('NAUTH-07')) return answers;
  const attempt: NodeAttempt<GrpcEnded<string[]>> = async (form, values, purpose, cause) => {
    api.take();
    try {
      const services = await (
        await grpcClient()
      ).listServicesByReflection({
        ...grpcCall,
        metadata: form ? metadataOf(form, values![0]!) : {},
        recorder,
        purpose,
      });
      return { ok: true, value: services, exchanges: exchangesOf(purpose) };
    } catch (e) {
      if (!(e instanceof GrpcCallError)) throw e;
      const exchanges = exchangesOf(purpose);
      if (e.code === undefined || e.codeName === 'UNAVAILABLE' || e.codeName === 'DEADLINE_EXCEEDED')
        throw new CouldNotTest(e.message, exchanges.slice(-1));
      const ended: GrpcEnded<string[]> = { ok: false, ...endOf(e), exchanges };
      note(cause, ended);
      return ended;
    }
  };
  ({ open: answers.open, refusals: answers.refusals } = await sendOpenFormsThenRefusals(
    row,
    openFormsOf('grpc'),
    chainB.token,
    attempt,
    (r) => r.ok,
    accepted,
  ));
  return answers;
}

const endOf = (e: GrpcCallError) => ({ codeName: e.codeName, message: e.message, inBand: e.inBand });
