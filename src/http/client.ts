// A bounded HTTP client for the contract suite: per-request timeout, a cap on how much of a body
// is read (a 50 MB answer never lands in memory), no redirects followed (the suite judges what the
// target answers, not where it points), and failures as one-line causes.
// Playwright's request API buffers whole bodies and has no size cap, hence undici here.
import { Agent, request, type Dispatcher } from 'undici';
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
  timeoutMs: number;
  maxBodyBytes?: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  bytes: number;
  /** Date.now() when the request left and when the body was complete. */
  sentAt: number;
  receivedAt: number;
}

let shared: Agent | undefined;
let sharedTls: unknown;

/** One keep-alive pool per process: the suite talks to few hosts, many times. Rebuilt when the trust changes. */
function dispatcher(): Dispatcher {
  if (shared && sharedTls !== currentTls()) void closeHttp();
  sharedTls = currentTls();
  return (shared ??= new Agent({
    keepAliveTimeout: 4_000,
    connections: 16,
    pipelining: 1,
    connect: tlsConnectOptions(),
  }));
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
    let res: Dispatcher.ResponseData;
    try {
      res = await request(req.url, {
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body,
        signal: timer.signal,
        dispatcher: dispatcher(),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
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
  await a?.destroy();
}
