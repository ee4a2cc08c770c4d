// Small HTTP helpers every reference server shares: bounded body reading, JSON answers with
// the configured latency, request counting. Hand-written because each is a few lines on node:http.
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ReferenceOptions } from '../options.js';
import { seededRandom } from '../../src/random.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLarge extends Error {}

/** Reads the request body up to a cap; past the cap it stops reading and rejects. */
export function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        req.pause();
        reject(new BodyTooLarge(`body over ${maxBytes} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The request target as a URL, for its path and query. Never throws: `new URL(req.url, base)`
 * reads a target starting with `//` as a host (`GET //a%zz:b@[x]/` throws, and would crash the
 * server from inside its request listener), so the raw target is appended to a fixed origin.
 */
export function requestUrl(raw: string | undefined): URL {
  const target = raw ?? '/';
  try {
    return new URL(`http://node.invalid${target.startsWith('/') ? '' : '/'}${target}`);
  } catch {
    return new URL('http://node.invalid/');
  }
}

/** Seeded jitter source (mulberry32), so latency runs are repeatable. */
export { seededRandom };

export function latencyOf(opts: ReferenceOptions): () => number {
  if (!opts.latency) return () => 0;
  const rnd = seededRandom(opts.seed ^ 0x5eed);
  const { baseMs, jitterMs } = opts.latency;
  return () => baseMs + (jitterMs ? (rnd() * 2 - 1) * jitterMs : 0);
}

export function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
  head = false,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(head ? undefined : text);
}

/** The JSON error body every reference server uses. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string | number> = {},
  head = false,
): void {
  sendJson(res, status, { error: { code, message } }, headers, head);
}

/** Variant: every HTTP server closes a keep-alive connection idle for IDLE_CLOSE_MS, and gives no Keep-Alive hint. */
export const IDLE_CLOSE_VARIANT = 'http-idle-close';
const IDLE_CLOSE_MS = 300;

/**
 * Closes connections idle for IDLE_CLOSE_MS on a clock of its own, as servers and load balancers
 * do: node's keep-alive timer is off, so no `Keep-Alive: timeout` header tells a client when.
 */
function closeIdleConnections(server: Server): void {
  server.keepAliveTimeout = 0;
  const idle = new WeakMap<Socket, { timer?: NodeJS.Timeout; inFlight: number }>();
  const arm = (socket: Socket) => {
    const s = idle.get(socket);
    if (!s || s.inFlight > 0) return;
    clearTimeout(s.timer);
    s.timer = setTimeout(() => socket.destroy(), IDLE_CLOSE_MS);
  };
  // Armed once a connection has answered a request (a keep-alive connection, idle): a new one waits
  // for its first request as node's own servers do (headersTimeout). Armed at connect, a server whose
  // loop is busy for IDLE_CLOSE_MS would close a new connection whose request is already on the wire,
  // which no server does, and the client's one resend on a new connection could fail too.
  server.on('connection', (socket: Socket) => {
    idle.set(socket, { inFlight: 0 });
    socket.on('close', () => clearTimeout(idle.get(socket)?.timer));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const s = idle.get(req.socket);
    if (!s) return;
    clearTimeout(s.timer);
    s.inFlight++;
    res.once('close', () => {
      s.inFlight--;
      arm(req.socket);
    });
  });
  // An upgraded connection (the WebSocket) is no longer HTTP: not idle-closed.
  server.on('upgrade', (req: IncomingMessage) => {
    clearTimeout(idle.get(req.socket)?.timer);
    idle.delete(req.socket);
  });
}

/** Listens on 127.0.0.1 at a port the OS picks; the variants of the HTTP layer apply. */
export function listen(server: Server, opts: Pick<ReferenceOptions, 'variants'>): Promise<number> {
  if (opts.variants.has(IDLE_CLOSE_VARIANT)) closeIdleConnections(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}
