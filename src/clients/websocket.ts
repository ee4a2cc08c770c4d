// One bounded WebSocket probe: upgrade with the given headers, a protocol ping/pong round trip,
// optionally one text message and its first reply. Whatever happens (refusal, silence, a dead
// port) it resolves within `timeoutMs` (+ a small grace) with what it saw; it never throws.
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { Exchange, Recorder } from '../record/recorder.js';
import { causeOfFailure, knownCause, whereOf } from '../net/causes.js';
import { tlsConnectOptions } from '../tls/trust.js';

export interface WebSocketProbeOptions {
  url: string;
  /** Upgrade request headers, e.g. `{ 'X-Auth-Token': token }`. */
  headers?: Record<string, string>;
  /** Bound on the whole probe: upgrade, ping/pong and the optional message. */
  timeoutMs: number;
  /** Text sent after the pong; the first text message back is returned as `reply`. */
  message?: string;
  recorder?: Recorder;
  purpose?: string;
}

export interface WebSocketProbeResult {
  /** The server answered 101 and the connection opened. */
  upgraded: boolean;
  /** HTTP status of the upgrade answer: 101, or the refusal's status; absent when none came. */
  status?: number;
  /** Ping-to-pong round trip in ms; absent when no pong came. */
  pongMs?: number;
  /** First text message after `message` was sent. */
  reply?: string;
  /** Messages the server sent at all (replies included): data a refused client must not get. */
  serverMessages: number;
  /** Close code when the server closed the connection before the probe was done. */
  closedByServer?: number;
  /** One line: why the probe stopped short (timeout, network); absent when it completed. */
  error?: string;
  /** The upgrade exchange, when a recorder was given. */
  exchange?: Exchange;
}

const REFUSAL_BODY_CAP = 4096;
const GRACE_MS = 250;

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim().slice(0, 200);
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function probeWebSocket(o: WebSocketProbeOptions): Promise<WebSocketProbeResult> {
  return new Promise((resolve) => {
    const sentAt = Date.now();
    const result: WebSocketProbeResult = { upgraded: false, serverMessages: 0 };
    let responseHeaders: Record<string, string> = {};
    let responseBody: string | undefined;
    let pingAt = 0;
    let messageSent = false;
    let done = false;

    let ws: WebSocket;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error && !result.error) result.error = oneLine(o.recorder ? o.recorder.redact(error) : error);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      if (o.recorder) {
        result.exchange = o.recorder.record({
          method: 'GET',
          url: o.url,
          requestHeaders: { ...o.headers, Connection: 'Upgrade', Upgrade: 'websocket' },
          status: result.status,
          responseHeaders,
          responseBody,
          sentAt,
          receivedAt: Date.now(),
          error: result.error,
          purpose: o.purpose,
        });
      }
      resolve(result);
    };
    const timer = setTimeout(() => {
      const stage = !result.upgraded
        ? 'no upgrade answer'
        : result.pongMs === undefined
          ? 'no pong'
          : 'no reply to the message';
      finish(`timeout: ${stage} within ${o.timeoutMs} ms`);
    }, o.timeoutMs);

    // An address known to be unreachable is not tried again: its line, at once.
    const known = knownCause(whereOf(o.url));
    if (known) {
      clearTimeout(timer);
      done = true;
      resolve({ ...result, error: known.line });
      return;
    }
    try {
      ws = new WebSocket(o.url, {
        ...tlsConnectOptions(),
        headers: o.headers,
        handshakeTimeout: o.timeoutMs + GRACE_MS,
        followRedirects: false,
        perMessageDeflate: false,
        maxPayload: 1024 * 1024,
      });
    } catch (e) {
      // Bad URL: ws throws synchronously. Keep the promise contract (resolve, one line).
      clearTimeout(timer);
      done = true;
      resolve({ ...result, error: oneLine(`invalid WebSocket URL: ${(e as Error).message}`) });
      return;
    }

    ws.on('unexpected-response', (req, res) => {
      result.status = res.statusCode;
      responseHeaders = headersOf(res);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < REFUSAL_BODY_CAP) chunks.push(c);
        size += c.length;
      });
      const end = () => {
        responseBody = Buffer.concat(chunks).toString('utf8').slice(0, REFUSAL_BODY_CAP);
        req.destroy();
        finish();
      };
      res.on('end', end);
      res.on('error', end);
      res.on('close', end);
    });
    ws.on('upgrade', (res) => {
      result.status = res.statusCode;
      responseHeaders = headersOf(res);
    });
    ws.on('open', () => {
      result.upgraded = true;
      pingAt = performance.now();
      ws.ping();
    });
    ws.on('pong', () => {
      if (result.pongMs !== undefined) return;
      result.pongMs = Math.round((performance.now() - pingAt) * 1000) / 1000;
      if (o.message === undefined) return finish();
      messageSent = true;
      ws.send(o.message);
    });
    ws.on('message', (data, isBinary) => {
      result.serverMessages++;
      if (messageSent && !isBinary && result.reply === undefined) {
        result.reply = data.toString();
        finish();
      }
    });
    ws.on('close', (code) => {
      result.closedByServer = code;
      finish(result.upgraded ? `closed by the server (code ${code}) before the probe was done` : undefined);
    });
    ws.on('error', (e) => finish(result.upgraded ? e.message : (causeOfFailure(e, whereOf(o.url))?.line ?? e.message)));
  });
}
