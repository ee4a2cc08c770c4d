// One bounded WebSocket probe: upgrade with the given headers, a protocol ping/pong round trip,
// optionally one text message and its first reply. Whatever happens (refusal, silence, a dead
// port) it resolves within `timeoutMs` (+ `graceMs` in the refusal mode, + a small margin; each
// wait longer by the time a busy machine held the process up, src/net/held-up.ts) with what it
// saw; it never throws. What it saw after the upgrade is kept apart by kind: text and binary
// messages (data) and control frames (ping, pong, close), which carry none.
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { Exchange, Recorder } from '../record/recorder.js';
import { causeOfFailure, knownCause, whereOf } from '../net/causes.js';
import { heldUpNote, timeoutExcludingHeldUp, type Timeout } from '../net/held-up.js';
import { tlsConnectOptions } from '../tls/trust.js';

export interface WebSocketProbeOptions {
  url: string;
  /** Upgrade request headers, e.g. `{ 'X-Auth-Token': token }`. */
  headers?: Record<string, string>;
  /** Bound on the upgrade, ping/pong and the optional message (in the refusal mode: on the upgrade). */
  timeoutMs: number;
  /** Text sent after the pong (in the refusal mode: at the upgrade); the first text message back is `reply`. */
  message?: string;
  /**
   * The refusal mode: after the upgrade the probe waits up to this long for the first text or
   * binary message or the server's close, whichever comes first (a node may refuse a token after
   * the upgrade by closing it); pings and pongs do not end the wait.
   */
  graceMs?: number;
  recorder?: Recorder;
  purpose?: string;
  /** Aborted: the probe ends at once, its connection dropped (an upgrade not yet sent is never sent). */
  signal?: AbortSignal;
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
  /** Text and binary messages the server sent (replies included): data a refused client must not get. */
  serverMessages: number;
  /** The first text or binary message: its kind and ms after the upgrade. */
  firstMessage?: { binary: boolean; afterMs: number };
  /** Close code when the server closed the connection before the probe was done. */
  closedByServer?: number;
  /** Ms after the upgrade when the server's close came. */
  closedAfterMs?: number;
  /** The refusal mode's grace, when it applied. */
  graceMs?: number;
  /** One line: why the probe stopped short (timeout, network); absent when it completed. */
  error?: string;
  /** The upgrade exchange, when a recorder was given. */
  exchange?: Exchange;
}

const REFUSAL_BODY_CAP = 4096;

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
    const refusalMode = o.graceMs !== undefined;
    const result: WebSocketProbeResult = {
      upgraded: false,
      serverMessages: 0,
      ...(refusalMode && { graceMs: o.graceMs }),
    };
    let responseHeaders: Record<string, string> = {};
    let responseBody: string | undefined;
    let pingAt = 0;
    let openAt = 0;
    let messageSent = false;
    let done = false;

    let ws: WebSocket;
    let timer: Timeout;
    const onAbort = () => finish('interrupted');
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      timer.clear();
      o.signal?.removeEventListener('abort', onAbort);
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
    timer = timeoutExcludingHeldUp(o.timeoutMs, () => {
      const stage = !result.upgraded
        ? 'no upgrade answer'
        : result.pongMs === undefined
          ? 'no pong'
          : 'no reply to the message';
      finish(`timeout: ${stage} within ${o.timeoutMs} ms${heldUpNote(timer)}`);
    });

    // An address known to be unreachable is not tried again: its line, at once.
    const known = knownCause(whereOf(o.url));
    if (known || o.signal?.aborted) {
      timer.clear();
      done = true;
      resolve({ ...result, error: known?.line ?? 'interrupted' });
      return;
    }
    try {
      // No handshakeTimeout: our timer alone bounds the upgrade, and names the stage it ended in
      // (a second timer of ws's raced it on a machine that held this process up, with its own words).
      ws = new WebSocket(o.url, {
        ...tlsConnectOptions(),
        headers: o.headers,
        followRedirects: false,
        perMessageDeflate: false,
        maxPayload: 1024 * 1024,
      });
    } catch (e) {
      // Bad URL: ws throws synchronously. Keep the promise contract (resolve, one line).
      timer.clear();
      done = true;
      resolve({ ...result, error: oneLine(`invalid WebSocket URL: ${(e as Error).message}`) });
      return;
    }

    o.signal?.addEventListener('abort', onAbort, { once: true });
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
    const sinceOpen = () => Math.round((performance.now() - openAt) * 1000) / 1000;
    ws.on('open', () => {
      result.upgraded = true;
      openAt = pingAt = performance.now();
      ws.ping();
      if (!refusalMode) return;
      // The wait for data or a close starts at the upgrade; an upgrade still open at its end is done.
      timer.clear();
      timer = timeoutExcludingHeldUp(o.graceMs ?? 0, () => finish());
      if (o.message !== undefined) {
        messageSent = true;
        ws.send(o.message);
      }
    });
    ws.on('pong', () => {
      if (result.pongMs !== undefined) return;
      result.pongMs = Math.round((performance.now() - pingAt) * 1000) / 1000;
      if (refusalMode) return;
      if (o.message === undefined) return finish();
      messageSent = true;
      ws.send(o.message);
    });
    ws.on('message', (data, isBinary) => {
      result.serverMessages++;
      result.firstMessage ??= { binary: isBinary, afterMs: sinceOpen() };
      if (messageSent && !isBinary && result.reply === undefined) result.reply = data.toString();
      if (refusalMode || result.reply !== undefined) finish();
    });
    ws.on('close', (code) => {
      result.closedByServer = code;
      if (result.upgraded) result.closedAfterMs = sinceOpen();
      // In the refusal mode a close is an answer, not a probe cut short.
      finish(
        result.upgraded && !refusalMode ? `closed by the server (code ${code}) before the probe was done` : undefined,
      );
    });
    ws.on('error', (e) => finish(result.upgraded ? e.message : (causeOfFailure(e, whereOf(o.url))?.line ?? e.message)));
  });
}
