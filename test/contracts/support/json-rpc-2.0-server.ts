// A real JSON-RPC 2.0 server from npm (`json-rpc-2.0`'s JSONRPCServer) as a native endpoint of the
// service: node:http on 127.0.0.1, the native path `/{protocol}/{network}/native`, and an API-key
// gate (Bearer or X-API-Key) in front. The gate only admits or refuses; what comes back to an
// admitted request is the library's own answer, serialized the way its README's HTTP example does
// (the Response value as JSON, status 200; nothing to send, as for a notification: 204, no body).
// So the library, not us, decides every JSON-RPC answer the native checks judge.
//
// `glue` switches on known non-conformances of hand-written HTTP glue around the same library, to
// prove the checks fail on a real server that breaks a rule.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JSONRPCServer } from 'json-rpc-2.0';

export interface JsonRpc20Glue {
  /** Body sent where the library has nothing to send (a notification), instead of 204 and no body. */
  notificationBody?: string;
  /** The glue splits batches itself (each element to the library, answers collected in an array), so `[]` gets `[]`. */
  splitBatches?: boolean;
}

export interface JsonRpc20Options {
  apiKey: string;
  protocol: string;
  networks: readonly string[];
  blockNumberMethod: string;
  glue?: JsonRpc20Glue;
}

export interface JsonRpc20Service {
  baseUrl: string;
  /** Requests received, admitted or not. */
  received: () => number;
  close: () => Promise<void>;
}

/** Bodies above this are refused (413) rather than buffered: the suite's requests are small. */
const MAX_BODY = 64 * 1024;
/** A plausible chain height; it grows by one a second from here. */
const FIRST_BLOCK = 19_000_000;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size <= MAX_BODY ? Buffer.concat(chunks).toString('utf8') : undefined));
    req.on('error', reject);
  });
}

/** The new key, as a Bearer token or in X-API-Key. */
function admitted(req: IncomingMessage, apiKey: string): boolean {
  const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer === apiKey || req.headers['x-api-key'] === apiKey;
}

function send(res: ServerResponse, status: number, body?: string): void {
  if (body === undefined) res.writeHead(status).end();
  else res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
}

export async function startJsonRpc20(o: JsonRpc20Options): Promise<JsonRpc20Service> {
  const rpc = new JSONRPCServer({ errorListener: () => undefined });
  const t0 = Date.now();
  rpc.addMethod(o.blockNumberMethod, () => `0x${(FIRST_BLOCK + Math.floor((Date.now() - t0) / 1000)).toString(16)}`);
  const paths = new Set(o.networks.map((n) => `/${encodeURIComponent(o.protocol)}/${encodeURIComponent(n)}/native`));

  /** The library's answer to one HTTP body: a Response value, or null when it sends nothing. */
  const answer = async (body: string): Promise<unknown> => {
    if (o.glue?.splitBatches) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return rpc.receiveJSON(body);
      }
      if (Array.isArray(parsed))
        return (await Promise.all(parsed.map((r) => rpc.receiveJSON(JSON.stringify(r))))).filter((r) => r !== null);
    }
    return rpc.receiveJSON(body);
  };

  let received = 0;
  const server: Server = createServer((req, res) => {
    received++;
    void (async () => {
      // 401 before anything else, with no body: nothing of the service leaks to a caller without the key.
      if (!admitted(req, o.apiKey)) return send(res, 401);
      const path = (req.url ?? '').split('?')[0]!;
      if (!paths.has(path)) return send(res, 404, JSON.stringify({ error: 'not found' }));
      if (req.method !== 'POST') return send(res, 405);
      const body = await readBody(req);
      if (body === undefined) return send(res, 413);
      const response = await answer(body);
      if (response === null)
        return o.glue?.notificationBody === undefined ? send(res, 204) : send(res, 200, o.glue.notificationBody);
      send(res, 200, JSON.stringify(response));
    })().catch(() => {
      // The library throws on a batch element it cannot read a member of (`[null]`): a server error, as an HTTP framework would answer.
      if (!res.headersSent) send(res, 500);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
