// Chain B's WebSocket endpoint. The token is checked on the HTTP upgrade itself, so a refused
// client never gets a WebSocket: it reads an HTTP error and the socket is closed (a variant checks
// it after the upgrade instead, as a server that upgrades first does). Upgraded connections
// answer protocol pings (ws does it unless the fault turns it off) and reply to JSON text messages
// through the handler chain B gives (its JSON-RPC dispatcher).
import { createServer, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { closeServer, listen, requestUrl, sendError } from '../http/kit.js';
import type { ReferenceOptions } from '../options.js';
import {
  decideToken,
  formsWithout,
  presentedTokens,
  refusalMessage,
  refusalStatus,
  type TokenPolicy,
  sharedTokenFaults,
} from './token.js';

export const WEBSOCKET_PATH = '/websocket';

/** Variant: a refused token gets the upgrade, its pings answered, no message, and a 1008 close after REFUSE_CLOSE_MS. */
export const WS_CLOSE_AFTER_UPGRADE_VARIANT = 'ws-refuse-after-upgrade';
const REFUSE_CLOSE_MS = 300;

/** Answers a refused upgrade with a plain HTTP response, then ends the socket. */
function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}

export interface WebSocketNode {
  url: string;
  close(): Promise<void>;
}

/** `onText` maps one text message to its reply (undefined: no reply). */
export async function startWebSocketNode(
  opts: ReferenceOptions,
  token: string,
  onText: (text: string) => string | undefined,
): Promise<WebSocketNode> {
  const policy: TokenPolicy = {
    expected: token,
    // Fault ws-header-rejected: this proxy reads the token only from the `auth` query.
    accepted: opts.faults.has('ws-header-rejected') ? new Set(['auth-query']) : formsWithout([]),
    ...sharedTokenFaults(opts),
  };
  const wss = new WebSocketServer({
    noServer: true,
    autoPong: !opts.faults.has('ws-no-pong'),
    maxPayload: 1024 * 1024,
  });
  wss.on('connection', (ws) => {
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const reply = onText(data.toString());
      if (reply !== undefined) ws.send(reply);
    });
  });

  const server = createServer((req, res) => {
    opts.counters.hit('websocket');
    sendError(res, 426, 'upgrade_required', `this endpoint speaks WebSocket at ${WEBSOCKET_PATH}`, {
      upgrade: 'websocket',
      connection: 'Upgrade',
    });
  });
  server.on('upgrade', (req, socket, head) => {
    opts.counters.hit('websocket');
    const url = requestUrl(req.url);
    if (url.pathname !== WEBSOCKET_PATH)
      return refuseUpgrade(socket, 404, 'not_found', `no WebSocket at ${url.pathname}`);
    const decision = decideToken(presentedTokens(req.headers, url), policy);
    if (!decision.ok && opts.variants.has(WS_CLOSE_AFTER_UPGRADE_VARIANT)) {
      // Upgraded apart from `wss`'s connection handler: this socket never reads a message.
      return wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', () => undefined);
        const timer = setTimeout(() => ws.close(1008, refusalMessage(decision.reason)), REFUSE_CLOSE_MS);
        ws.on('close', () => clearTimeout(timer));
      });
    }
    if (!decision.ok) {
      return refuseUpgrade(
        socket,
        refusalStatus(decision.reason),
        decision.reason === 'missing' ? 'unauthorized' : 'forbidden',
        refusalMessage(decision.reason),
      );
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const port = await listen(server, opts);
  return {
    url: `ws://127.0.0.1:${port}${WEBSOCKET_PATH}`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await closeServer(server);
    },
  };
}
