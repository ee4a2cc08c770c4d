// A misbehaving target on 127.0.0.1. One HTTP server per misbehaviour, each on its own port and
// answering by the first path segment after `/m/` (so one target file can point each section at
// another misbehaviour, each section another origin, as on a real deployment); a raw TCP server
// plays a gRPC server that accepts connections and never says a word; a closed port refuses (held
// closed for as long as the target lives: support/ports.ts).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { closedPort } from '../../support/ports.js';

export const HOSTILE_MODES = [
  'reset',
  'status-500',
  'status-502',
  'status-503',
  'bad-json',
  'huge',
  'slow',
  'silent',
] as const;
export type HostileMode = (typeof HOSTILE_MODES)[number];

/** Size of the `huge` answer. Streamed from one reused chunk: the server never holds it. */
export const HUGE_BODY_BYTES = 50 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** The `slow` answer: one byte per this many ms. */
export const SLOW_BYTE_INTERVAL_MS = 1000;

export interface HostileStats {
  /** Requests per mode (HTTP), upgrades held (WebSocket), connections held (gRPC). */
  requests: Record<string, number>;
  /** Bytes of the huge body the server got rid of, per request: a client with a cap stops early. */
  hugeBytesWritten: number[];
}

export interface Hostile {
  /** `http://127.0.0.1:<port>/m/<mode>`: a base URL or node endpoint that misbehaves that way. */
  url(mode: HostileMode): string;
  /** A WebSocket URL whose upgrade request is read and never answered. */
  wsHangUrl: string;
  /** host:port of a TCP server that accepts (HTTP/2 or anything) and never answers. */
  grpcHangAddress: string;
  /** A port on 127.0.0.1 nothing listens on (connections are refused). */
  refusedPort: number;
  stats: HostileStats;
  close(): Promise<void>;
}

function bump(stats: HostileStats, key: string): void {
  stats.requests[key] = (stats.requests[key] ?? 0) + 1;
}

function streamHuge(res: ServerResponse, stats: HostileStats): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const index = stats.hugeBytesWritten.push(0) - 1;
  let written = 0;
  let closed = false;
  res.on('close', () => (closed = true));
  res.write('{"data":"');
  const pump = () => {
    while (!closed && written < HUGE_BODY_BYTES) {
      const n = Math.min(CHUNK.length, HUGE_BODY_BYTES - written);
      written += n;
      stats.hugeBytesWritten[index] = written;
      if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', pump);
    }
    if (!closed) res.end('"}');
  };
  pump();
}

function trickle(res: ServerResponse, timers: Set<NodeJS.Timeout>): void {
  const body = Buffer.from('{"data":{"note":"this answer arrives one byte per second"}}');
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || i >= body.length) {
      clearInterval(timer);
      timers.delete(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(body.subarray(i, i + 1));
    i++;
  }, SLOW_BYTE_INTERVAL_MS);
  timers.add(timer);
}

function handle(
  mode: string,
  req: IncomingMessage,
  res: ServerResponse,
  stats: HostileStats,
  timers: Set<NodeJS.Timeout>,
): void {
  switch (mode as HostileMode) {
    case 'reset': {
      // Headers and the start of a body, then a TCP reset.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{"data":{"id":"');
      setTimeout(() => req.socket.resetAndDestroy(), 20);
      return;
    }
    case 'status-500':
      res.writeHead(500, { 'content-type': 'application/json' });
      return void res.end('{"error":{"code":"internal","message":"hostile: internal error"}}');
    case 'status-502':
      // What a proxy in front of a dead upstream sends: HTML.
      res.writeHead(502, { 'content-type': 'text/html' });
      return void res.end(
        '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>\n',
      );
    case 'status-503':
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      return void res.end('{"error":{"code":"unavailable","message":"hostile: try later"}}');
    case 'bad-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end('{"data": {"id": "0f", "jsonrpc": "2.0", "result": [1, 2, {"x": ]}, nul');
    case 'huge':
      return streamHuge(res, stats);
    case 'slow':
      return trickle(res, timers);
    case 'silent':
      return; // never answers; the socket is destroyed on close()
    default:
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"not_found","message":"unknown hostile mode"}}');
  }
}

function listenLocal(server: {
  listen(port: number, host: string, cb: () => void): unknown;
  once(e: 'error', cb: (e: Error) => void): unknown;
  address(): AddressInfo | string | null;
}): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startHostile(): Promise<Hostile> {
  const stats: HostileStats = { requests: {}, hugeBytesWritten: [] };
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };

  // One server per mode, each on a port of its own: each section of a target file is another origin,
  // as on a real deployment, so what one misbehaviour does to a client's view of its origin (the
  // silent-origin breaker, a pool full of 50 MB streams) is not blamed on another.
  const serve = async (upgrades: boolean) => {
    const http = createHttpServer((req, res) => {
      const mode = /^\/m\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '';
      bump(stats, mode);
      // Drain whatever the client sends (a POST body) so the request side never blocks the answer.
      req.resume();
      handle(mode, req, res, stats, timers);
    });
    http.on('connection', track);
    // The upgrade is read and never answered: no 101, no refusal, no close.
    if (upgrades)
      http.on('upgrade', (_req, socket: Socket) => {
        bump(stats, 'ws-hang');
        track(socket);
      });
    http.keepAliveTimeout = 60_000;
    http.headersTimeout = 120_000;
    http.requestTimeout = 0;
    return { http, port: await listenLocal(http) };
  };
  const byMode = new Map<string, { http: Server; port: number }>();
  for (const mode of HOSTILE_MODES) byMode.set(mode, await serve(false));
  const wsHang = await serve(true);
  const servers = [...byMode.values(), wsHang];

  // Accepts, reads and discards, says nothing: a gRPC client waits for the HTTP/2 settings forever.
  const grpc = createNetServer((socket) => {
    bump(stats, 'grpc-hang');
    track(socket);
    socket.resume();
  });
  const grpcPort = await listenLocal(grpc);

  const refused = await closedPort();

  return {
    url: (mode) => `http://127.0.0.1:${byMode.get(mode)!.port}/m/${mode}`,
    wsHangUrl: `ws://127.0.0.1:${wsHang.port}/m/ws-hang/websocket`,
    grpcHangAddress: `127.0.0.1:${grpcPort}`,
    refusedPort: refused.port,
    stats,
    close: async () => {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      for (const { http } of servers) http.closeAllConnections();
      await Promise.all([
        ...servers.map(({ http }) => new Promise<void>((r) => http.close(() => r()))),
        new Promise<void>((r) => grpc.close(() => r())),
        refused.close(),
      ]);
    },
  };
}
