// The default engine: undici keep-alive connections to the node, requests released on an absolute
// schedule. Waiting is a timer until shortly before the due time, then a short bounded busy-wait,
// because timers alone land a millisecond or more late and the cap check reasons in milliseconds.
import { Pool } from 'undici';
import type { Engine, EngineResponse, PacingStats, ProbeMethod, SendOptions } from './types.js';
import { feeStatsRequest } from './types.js';
import { PacingRecorder } from './stats.js';
import { headerRecord } from '../../src/http/headers.js';
import { causeOfFailure, whereOf } from '../../src/net/causes.js';
import { pause } from '../../src/net/pause.js';
import { tlsConnectOptions } from '../../src/tls/trust.js';

export interface NodeEngineOptions {
  endpoint: string;
  token: string;
  timeoutMs: number;
  /** Stops all waiting and sending at once. */
  signal?: AbortSignal;
  connections?: number;
  /** Body bytes kept for evidence; reading stops (and the connection is dropped) past `bodyLimitBytes`. */
  bodyKeepBytes?: number;
  bodyLimitBytes?: number;
  /** How long before a due time the timer hands over to the busy-wait, ms. */
  spinMs?: number;
}

const MAX_SPIN_MS = 5;

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

export class NodeEngine implements Engine {
  readonly name = 'node';
  readonly epochMs: number;
  private readonly t0 = performance.now();
  private readonly pool: Pool;
  private readonly url: string;
  private readonly path: string;
  private readonly pacingRec = new PacingRecorder();
  /** In-flight requests: one listener on the run's signal aborts them all (no listener per request). */
  private readonly inflight = new Set<AbortController>();

  constructor(private readonly opts: NodeEngineOptions) {
    this.epochMs = performance.timeOrigin + this.t0;
    this.url = feeStatsRequest(opts.endpoint, opts.token).url;
    this.path = pathOf(this.url);
    this.pool = new Pool(new URL(this.url).origin, {
      connections: opts.connections ?? 8,
      pipelining: 1,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: opts.timeoutMs, ...tlsConnectOptions() },
    });
    opts.signal?.addEventListener(
      'abort',
      () => {
        for (const c of this.inflight) c.abort();
      },
      { once: true },
    );
  }

  now(): number {
    return performance.now() - this.t0;
  }

  private get aborted(): boolean {
    return this.opts.signal?.aborted ?? false;
  }

  async sleepUntil(t: number): Promise<void> {
    const spin = this.opts.spinMs ?? 1.5;
    const wait = t - this.now() - spin;
    if (wait > 0) await pause(wait, this.opts.signal);
    const stopAt = this.now() + MAX_SPIN_MS;
    while (!this.aborted) {
      const now = this.now();
      if (now >= t || now >= stopAt) break;
    }
  }

  /** When the previous send actually left: sends queue behind it, so two never share a gap. */
  private departed: Promise<number> = Promise.resolve(-Infinity);

  async send(method: ProbeMethod, scheduledAt?: number, minGapMs = 0, opts: SendOptions = {}): Promise<EngineResponse> {
    const variation = opts.variation;
    const request = { method, ...feeStatsRequest(this.opts.endpoint, this.opts.token, variation) };
    const path = variation ? pathOf(request.url) : this.path;
    // An aside request leaves now and is nobody's predecessor: the departures chain passes it by.
    const previous = opts.aside ? Promise.resolve(-Infinity) : this.departed;
    let leave!: (t: number) => void;
    const departs = new Promise<number>((r) => (leave = r));
    if (!opts.aside) this.departed = departs;
    let sentAt = this.now();
    try {
      // The gap is kept between actual send times: after a late send, the next one waits too.
      const last = await previous;
      while (minGapMs > 0 && this.now() < last + minGapMs && !this.aborted) await this.sleepUntil(last + minGapMs);
      sentAt = this.now();
      if (minGapMs > 0 && Number.isFinite(last) && !this.aborted) this.pacingRec.addGap(sentAt - last, minGapMs);
    } finally {
      leave(sentAt);
    }
    if (this.aborted) return { sentAt, receivedAt: sentAt, headers: {}, error: 'interrupted before sending', request };
    if (scheduledAt !== undefined) this.pacingRec.add(scheduledAt, sentAt);
    // The pool's timeouts bound the wait for headers and each gap in the body; a whole-request
    // deadline also bounds a server that dribbles its answer (one byte per second never trips a gap).
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, this.opts.timeoutMs);
    this.inflight.add(ctrl);
    try {
      const res = await this.pool.request({ path, method, headers: request.headers, signal: ctrl.signal });
      const headers = headerRecord(res.headers);
      const { text, bytes } = await this.readBody(res.body);
      return {
        sentAt,
        receivedAt: this.now(),
        status: res.statusCode,
        headers,
        body: method === 'HEAD' ? undefined : text,
        bodyBytes: bytes,
        request,
      };
    } catch (e) {
      const receivedAt = this.now();
      const err = e as Error & { code?: string };
      const poolTimeout =
        err.code === 'UND_ERR_HEADERS_TIMEOUT' ||
        err.code === 'UND_ERR_BODY_TIMEOUT' ||
        err.code === 'UND_ERR_CONNECT_TIMEOUT';
      const why =
        timedOut || poolTimeout
          ? `timeout after ${this.opts.timeoutMs} ms`
          : this.aborted
            ? 'interrupted'
            : (causeOfFailure(e, whereOf(this.url))?.line ?? `${err.code ?? err.name}: ${err.message}`);
      return { sentAt, receivedAt, headers: {}, error: why, request };
    } finally {
      clearTimeout(timer);
      this.inflight.delete(ctrl);
    }
  }

  private async readBody(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<{ text: string; bytes: number }> {
    const keep = this.opts.bodyKeepBytes ?? 4096;
    const limit = this.opts.bodyLimitBytes ?? 1024 * 1024;
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    for await (const chunk of body) {
      bytes += chunk.length;
      if (kept < keep) {
        const part = chunk.subarray(0, keep - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (bytes > limit) {
        body.destroy();
        break;
      }
    }
    return { text: Buffer.concat(chunks).toString('utf8'), bytes };
  }

  pacing(): PacingStats {
    return this.pacingRec.stats();
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
