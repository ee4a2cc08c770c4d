// A bounded HTTP client for the contract suite: per-request timeout, a cap on how much of a body
// is read (a 50 MB answer never lands in memory), no redirects followed (the suite judges what the
// target answers, not where it points), and failures as one-line causes.
// Playwright's request API buffers whole bodies and has no size cap. Node's own client streams,
// comes with node (nothing to load, no parser to compile at each start of the command) and costs
// less per request than undici's request API with its streams and abort signals.
// Servers and load balancers close idle keep-alive connections on their own clock, often without a
// Keep-Alive hint, so a request may leave on a pooled connection the server is closing: such a
// request, failed before any byte of its answer, is sent once more on a new connection (the
// contract requests are all reads) and its evidence says so. The rate-limit probes have their own
// engine (load/engine/) and keep their own accounting.
import {
  Agent,
  request as plainRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import type { Agent as TlsAgent } from 'node:https';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { rawHeaderRecord } from './headers.js';
import { causeOfFailure, knownCause, whereOf } from '../net/causes.js';
import { heldUpNote, timeoutExcludingHeldUp } from '../net/held-up.js';
import { endDuePauses } from '../net/pause.js';
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
  /**
   * A paced request's resend waits its own turn: the turn's release is called once the resend's
   * head is written (or it fails without one), as the first sending's onHeadSent was.
   */
  resendTurn?: () => Promise<() => void>;
  /**
   * Called once: when the request's head is written to its connection, or when the sending ends
   * without one (a paced request's next one waits for it).
   */
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
  /** The connection had carried an earlier request (known once the request has its connection). */
  reused?: boolean;
  /** A byte of the answer arrived on the connection. */
  answerStarted: boolean;
}

/**
 * The one resend: a network failure (not a timeout, an abort, an oversized body) on a connection
 * that had carried an earlier request, before any byte of the answer. A new connection, or an
 * answer begun, is the server's own doing: not sent again.
 */
export function resendable(kind: HttpFailureKind, trace: SendTrace): boolean {
  return kind === 'network' && trace.reused === true && !trace.answerStarted;
}

/** Idle pooled connections close after this long (a server's shorter Keep-Alive hint wins). */
const IDLE_MS = 4_000;
/**
 * Connections at once to one host; more requests wait for one of them. The run bounds the requests
 * in flight to a host itself (limits.concurrency, 32 unless the target file says): this bound, far
 * above it, only keeps a caller without one from opening connections without end. Tighter, it
 * overruled the target file (at 16, a target 80 ms away got half the concurrency it allows).
 */
export const PER_HOST = 256;

/** Connections that have carried a request. */
const carried = new WeakSet<Socket>();

let plain: Agent | undefined;
let secure: TlsAgent | undefined;
let secureTls: unknown;
const require = createRequire(import.meta.url);

/** One keep-alive pool per scheme and process: the suite talks to few hosts, many times. The TLS pool is rebuilt when the trust changes. */
function agentFor(url: URL): { agent: Agent; send: typeof plainRequest } {
  if (url.protocol !== 'https:') {
    plain ??= new Agent({ keepAlive: true, maxSockets: PER_HOST, timeout: IDLE_MS });
    return { agent: plain, send: plainRequest };
  }
  // Loaded on the first https request: a run over plain HTTP never loads TLS for it.
  const https = require('node:https') as typeof import('node:https');
  if (!secure || secureTls !== currentTls()) {
    secure?.destroy();
    secureTls = currentTls();
    secure = new https.Agent({ keepAlive: true, maxSockets: PER_HOST, timeout: IDLE_MS, ...tlsConnectOptions() });
  }
  return { agent: secure, send: https.request as typeof plainRequest };
}

export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  // An address already known to be unreachable fails at once with the same line (no DNS wait, no handshake).
  const known = knownCause(whereOf(req.url));
  if (known) throw new HttpFailure('network', known.line);
  const trace: SendTrace = { answerStarted: false };
  try {
    return await sendOnce(req, trace);
  } catch (e) {
    if (!(e instanceof HttpFailure) || !resendable(e.kind, trace) || req.signal?.aborted) throw e;
  }
  req.beforeResend?.();
  const release = await req.resendTurn?.();
  // A connection of its own, closed after the answer.
  try {
    const again = { ...req, onHeadSent: release };
    return { ...(await sendOnce(again, { answerStarted: false }, false)), resent: RESENT };
  } catch (e) {
    if (e instanceof HttpFailure) e.resent = RESENT;
    throw e;
  }
}

function causeOf(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code;
  const msg = (err.cause?.message ?? err.message ?? String(e)).split('\n')[0]!;
  return code && !msg.includes(code) ? `${code} ${msg}` : msg;
}

/** The moment a request's head leaves: at once on a connected socket, else once it connects (its write waits for that). */
function whenWritten(socket: Socket, done: () => void): void {
  if (!socket.connecting) return queueMicrotask(done);
  socket.once('encrypted' in socket ? 'secureConnect' : 'connect', done);
}

function sendOnce(req: HttpRequest, trace: SendTrace, pooled = true): Promise<HttpResponse> {
  const max = req.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const sentAt = Date.now();
  return new Promise<HttpResponse>((resolve, reject) => {
    let outgoing: ClientRequest | undefined;
    let socket: Socket | undefined;
    let partial: HttpFailure['partial'];
    let timedOut = false;
    let settled = false;
    let headSent = false;
    const onHeadSent = () => {
      if (headSent) return;
      headSent = true;
      req.onHeadSent?.();
    };
    const onData = () => {
      trace.answerStarted = true;
    };
    const finish = (r: HttpResponse | HttpFailure) => {
      if (settled) return;
      settled = true;
      // A paced turn due meanwhile goes now, not once the loop reaches its timer (src/net/pause.ts).
      endDuePauses();
      timer.clear();
      req.signal?.removeEventListener('abort', onAbort);
      socket?.removeListener('data', onData);
      onHeadSent();
      if (r instanceof HttpFailure) {
        outgoing?.destroy();
        reject(r);
      } else resolve(r);
    };
    const failure = (e: unknown): HttpFailure => {
      if (e instanceof HttpFailure) return e;
      if (req.signal?.aborted) return new HttpFailure('aborted', 'aborted: the run was interrupted', partial);
      if (timedOut)
        return new HttpFailure(
          'timeout',
          `timeout: no complete answer within ${req.timeoutMs} ms${heldUpNote(timer)}`,
          partial,
        );
      // Before any answer, a connection cause (refused, DNS, TLS) is the whole story: its one line.
      const cause = partial ? undefined : causeOfFailure(e, whereOf(req.url));
      return new HttpFailure('network', cause?.line ?? `network: ${causeOf(e)}`, partial);
    };
    const onAbort = () => finish(failure(new Error('aborted')));
    const timer = timeoutExcludingHeldUp(req.timeoutMs, () => {
      timedOut = true;
      finish(failure(new Error('timeout')));
    });
    if (req.signal?.aborted) return onAbort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const url = new URL(req.url);
      const { agent, send } = agentFor(url);
      const options: RequestOptions = { method: req.method, headers: req.headers, agent: pooled ? agent : false };
      if (!pooled && url.protocol === 'https:') Object.assign(options, tlsConnectOptions());
      outgoing = send(url, options);
    } catch (e) {
      return finish(failure(e));
    }
    outgoing.on('socket', (s: Socket) => {
      socket = s;
      // Counted here: node marks a pooled connection reused only when it was idle, not when a
      // queued request takes it straight from the answer before.
      trace.reused = carried.has(s);
      carried.add(s);
      s.on('data', onData);
      if (req.onHeadSent) whenWritten(s, onHeadSent);
    });
    outgoing.on('error', (e) => finish(failure(e)));
    outgoing.on('response', (res: IncomingMessage) => {
      const headers = rawHeaderRecord(res.rawHeaders);
      const status = res.statusCode ?? 0;
      partial = { status, headers };
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > max) return finish(new HttpFailure('body-too-large', `body over ${max} bytes`, partial));
        chunks.push(chunk);
      });
      res.on('error', (e) => finish(failure(e)));
      res.on('end', () =>
        finish({
          status,
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          bytes,
          sentAt,
          receivedAt: Date.now(),
        }),
      );
      // Closed before its end: the connection went mid-body.
      res.on('close', () => {
        if (!res.complete) finish(failure(new Error('the connection closed before the answer was complete')));
      });
    });
    outgoing.end(req.body);
  });
}

/** Closes the keep-alive pools (end of a worker or a test). */
export async function closeHttp(): Promise<void> {
  plain?.destroy();
  secure?.destroy();
  plain = undefined;
  secure = undefined;
}
