// A bounded HTTP client for the contract suite: per-request timeout, a cap on how much of a body
// is read (a 50 MB answer never lands in memory), no redirects followed (the suite judges what the
// target answers, not where it points), and failures as one-line causes.
// Playwright's request API buffers whole bodies and has no size cap, hence undici here.
// Servers and load balancers close idle keep-alive connections on their own clock, often without a
// Keep-Alive hint, so a request may leave on a pooled connection the server is closing: such a
// request, failed before any byte of its answer, is sent once more on a new connection (the
// contract requests are all reads) and its evidence says so. The rate-limit probes have their own
// engine (load/engine/) and keep their own accounting.
// undici loads with the first request, not with this module: a command that sends nothing
// (--help, merge, export) never loads it.
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { Agent, Dispatcher } from 'undici';
import { headerRecord } from './headers.js';
import { causeOfFailure, knownCause, whereOf } from '../net/causes.js';
import { currentTls, tlsConnectOptions } from '../tls/trust.js';

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export type HttpFailureKind = 'timeout' | 'network' | 'body-too-large' | 'aborted';

/** Why a request produced no usable answer: the check's verdict is `error` with this cause. */
export class HttpFailure extends Error {
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
    /** Status and headers, when the answer began before the failure (e.g. an oversized body). */
    readonly partial?: { status: number; headers: Record<string, string> },
    /** Set when this is the resend's failure (RESENT). */
    public resent?: string,
  ) {
    super(message);
    this.name = 'HttpFailure';
  }
}

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Bound on one sending; a resend gets its own. */
  timeoutMs: number;
  maxBodyBytes?: number;
  signal?: AbortSignal;
  /** Called before a resend (to take it from the run's budget); a throw stops the resend and propagates. */
  beforeResend?: () => void;
  /** Called when the request's head is written to its connection (a paced request's next one waits for it). */
  onHeadSent?: () => void;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  bytes: number;
  /** Date.now() when the request left and when the body was complete. */
  sentAt: number;
  receivedAt: number;
  /** Set when the answer is the resend's: why the request was sent again (RESENT). */
  resent?: string;
}

/** The evidence line of a resent request. */
export const RESENT = 'connection closed by the server before answering; sent again on a new connection';

/** What one sending saw of its connection. */
export interface SendTrace {
  /** The connection had carried an earlier request (known once the request's head was written). */
  reused?: boolean;
  /** A byte of the answer reached the HTTP parser. */
  answerStarted: boolean;
  onHeadSent?: () => void;
}

/**
 * The one resend: a network failure (not a timeout, an abort, an oversized body) on a connection
 * that had carried an earlier request, before any byte of the answer. A new connection, or an
 * answer begun, is the server's own doing: not sent again.
 */
export function resendable(kind: HttpFailureKind, trace: SendTrace): boolean {
  return kind === 'network' && trace.reused === true && !trace.answerStarted;
}

// Which connection a request's head went out on. undici writes a request's head right after its
// handler's onRequestStart, in the same call, and publishes the socket on this channel between:
// the handler marks its trace as the one being written, the subscriber fills it in.
const socketUses = new WeakMap<Socket, number>();
let writing: SendTrace | undefined;
subscribe('undici:client:sendHeaders', (message) => {
  const { socket } = message as { socket: Socket };
  const uses = socketUses.get(socket) ?? 0;
  socketUses.set(socket, uses + 1);
  if (writing) {
    writing.reused = uses > 0;
    writing.onHeadSent?.();
  }
  writing = undefined;
});

const TRACE = Symbol('chainprobe send trace');
type TracedOptions = Dispatcher.DispatchOptions & { [TRACE]?: SendTrace };

/** Interceptor: the trace given in the options learns whether the connection was reused and whether the answer began. */
const traceSends: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const trace = (opts as TracedOptions)[TRACE];
  if (!trace) return dispatch(opts, handler);
  const traced: Dispatcher.DispatchHandler & { onResponseStarted?(): void } = {
    onRequestStart: (controller, context) => {
      writing = trace;
      // Aborted before its head was written: this trace must not take the next request's socket.
      queueMicrotask(() => {
        if (writing === trace) writing = undefined;
      });
      handler.onRequestStart?.(controller, context);
    },
    onResponseStarted: () => {
      trace.answerStarted = true;
      (handler as { onResponseStarted?(): void }).onResponseStarted?.();
    },
    onRequestUpgrade: (...a) => handler.onRequestUpgrade?.(...a),
    onResponseStart: (...a) => handler.onResponseStart?.(...a),
    onResponseData: (...a) => handler.onResponseData?.(...a),
    onResponseEnd: (...a) => handler.onResponseEnd?.(...a),
    onResponseError: (...a) => handler.onResponseError?.(...a),
  };
  return dispatch(opts, traced);
};

type Undici = typeof import('undici');
let undici: Undici | undefined;
const loadUndici = async (): Promise<Undici> => (undici ??= await import('undici'));

let shared: Agent | undefined;
let sharedTraced: Dispatcher | undefined;
let sharedTls: unknown;

/** One keep-alive pool per process: the suite talks to few hosts, many times. Rebuilt when the trust changes. */
function dispatcher({ Agent }: Undici): Dispatcher {
  if (shared && sharedTls !== currentTls()) void closeHttp();
  sharedTls = currentTls();
  if (!shared) {
    shared = new Agent({
      keepAliveTimeout: 4_000,
      connections: 16,
      pipelining: 1,
      connect: tlsConnectOptions(),
    });
    sharedTraced = shared.compose(traceSends);
  }
  return sharedTraced!;
}

function causeOf(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code;
  const msg = (err.cause?.message ?? err.message ?? String(e)).split('\n')[0]!;
  return code && !msg.includes(code) ? `${code} ${msg}` : msg;
}

export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  // An address already known to be unreachable fails at once with the same line (no DNS wait, no handshake).
  const known = knownCause(whereOf(req.url));
  if (known) throw new HttpFailure('network', known.line);
  const u = await loadUndici();
  const trace: SendTrace = { answerStarted: false, onHeadSent: req.onHeadSent };
  try {
    return await sendOnce(u, req, dispatcher(u), trace);
  } catch (e) {
    if (!(e instanceof HttpFailure) || !resendable(e.kind, trace) || req.signal?.aborted) throw e;
  }
  req.beforeResend?.();
  // A client of its own: one new connection, closed after the answer.
  const fresh = new u.Client(new URL(req.url).origin, { pipelining: 1, connect: tlsConnectOptions() });
  try {
    return { ...(await sendOnce(u, req, fresh)), resent: RESENT };
  } catch (e) {
    if (e instanceof HttpFailure) e.resent = RESENT;
    throw e;
  } finally {
    void fresh.destroy().catch(() => undefined);
  }
}

async function sendOnce(
  { request }: Undici,
  req: HttpRequest,
  via: Dispatcher,
  trace?: SendTrace,
): Promise<HttpResponse> {
  const max = req.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), req.timeoutMs);
  const onOuterAbort = () => timer.abort();
  req.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const sentAt = Date.now();
  const failure = (e: unknown, partial?: HttpFailure['partial']): HttpFailure => {
    if (e instanceof HttpFailure) return e;
    if (req.signal?.aborted) return new HttpFailure('aborted', 'aborted: the run was interrupted', partial);
    if (timer.signal.aborted)
      return new HttpFailure('timeout', `timeout: no complete answer within ${req.timeoutMs} ms`, partial);
    // Before any answer, a connection cause (refused, DNS, TLS) is the whole story: its one line.
    const cause = partial ? undefined : causeOfFailure(e, whereOf(req.url));
    return new HttpFailure('network', cause?.line ?? `network: ${causeOf(e)}`, partial);
  };
  try {
    let res: Dispatcher.ResponseData<unknown>;
    try {
      const opts: Parameters<Undici['request']>[1] & { [TRACE]?: SendTrace } = {
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body,
        signal: timer.signal,
        dispatcher: via,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        ...(trace && { [TRACE]: trace }),
      };
      res = await request(req.url, opts);
    } catch (e) {
      throw failure(e);
    }
    const headers = headerRecord(res.headers);
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of res.body) {
        bytes += (chunk as Buffer).length;
        if (bytes > max) {
          res.body.destroy();
          throw new HttpFailure('body-too-large', `body over ${max} bytes`, { status: res.statusCode, headers });
        }
        chunks.push(chunk as Buffer);
      }
    } catch (e) {
      throw failure(e, { status: res.statusCode, headers });
    }
    return {
      status: res.statusCode,
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      bytes,
      sentAt,
      receivedAt: Date.now(),
    };
  } finally {
    clearTimeout(timeout);
    req.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/** Closes the keep-alive pool (end of a worker or a test). */
export async function closeHttp(): Promise<void> {
  const a = shared;
  shared = undefined;
  sharedTraced = undefined;
  await a?.destroy();
}
