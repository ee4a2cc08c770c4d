// The Engine on k6, using only what k6 has offered since v0.48: http.asyncRequest and sleep().
// There are no timers, so waiting is a blocking sleep(); answers that arrived meanwhile are
// delivered when the script awaits their promises, which sleepUntil does for requests that should
// be done by now. Arrival times come from k6's own timings, not from when the promise settled.
// The k6 modules are passed in (structurally typed) so tests can drive this with a double.
import type { Engine, EngineResponse, PacingStats, ProbeMethod, SendOptions } from '../engine/types.js';
import { feeStatsRequest } from '../engine/types.js';
import { PacingRecorder, percentile } from '../engine/stats.js';

/** The parts of a k6 http Response the adapter reads. */
export interface K6Response {
  status: number;
  headers: Record<string, string>;
  body: string | ArrayBuffer | null;
  error: string;
  timings: { blocked: number; connecting: number; tls_handshaking: number; duration: number };
}

export interface K6Api {
  asyncRequest(
    method: string,
    url: string,
    body: null,
    params: {
      headers: Record<string, string>;
      timeout: string;
      responseType: 'text' | 'none';
      tags: Record<string, string>;
    },
  ): Promise<K6Response>;
  /** k6 `sleep`: blocks the VU for this many seconds. */
  sleep(seconds: number): void;
  /** Wall clock, ms (Date.now). */
  now(): number;
}

export interface K6EngineOptions {
  endpoint: string;
  token: string;
  timeoutMs: number;
  bodyKeepChars?: number;
}

interface InFlight {
  sentAt: number;
  done: Promise<unknown>;
  settled: boolean;
}

export class K6Engine implements Engine {
  readonly name = 'k6';
  readonly epochMs: number;
  private readonly pacingRec = new PacingRecorder();
  private readonly inFlight: InFlight[] = [];
  private readonly rtts: number[] = [];

  constructor(
    private readonly api: K6Api,
    private readonly opts: K6EngineOptions,
  ) {
    this.epochMs = api.now();
  }

  now(): number {
    return this.api.now() - this.epochMs;
  }

  async sleepUntil(t: number): Promise<void> {
    const dt = t - this.now();
    if (dt > 0) this.api.sleep(dt / 1000);
    await this.deliver();
  }

  /** Awaits requests old enough to be answered, so the plan sees their answers before it decides. */
  private async deliver(): Promise<void> {
    const typical = this.rtts.length
      ? percentile(
          [...this.rtts].sort((a, b) => a - b),
          90,
        )
      : 0;
    for (const f of [...this.inFlight]) {
      if (!f.settled && this.now() - f.sentAt >= typical) await f.done;
    }
  }

  private lastSentAt = -Infinity;

  async send(method: ProbeMethod, scheduledAt?: number, minGapMs = 0, opts: SendOptions = {}): Promise<EngineResponse> {
    const request = { method, ...feeStatsRequest(this.opts.endpoint, this.opts.token, opts.variation) };
    // The least gap counts between actual send times; sleep() blocks, so one wait is enough.
    const wait = this.lastSentAt + minGapMs - this.now();
    if (minGapMs > 0 && wait > 0) this.api.sleep(wait / 1000);
    const sentAt = this.now();
    if (minGapMs > 0 && Number.isFinite(this.lastSentAt)) this.pacingRec.addGap(sentAt - this.lastSentAt, minGapMs);
    // An aside request is nobody's predecessor: the next paced one keeps its gap from the one before.
    if (!opts.aside) this.lastSentAt = sentAt;
    if (scheduledAt !== undefined) this.pacingRec.add(scheduledAt, sentAt);
    const entry: InFlight = { sentAt, done: Promise.resolve(), settled: false };
    const done = this.api
      .asyncRequest(method, request.url, null, {
        headers: request.headers,
        timeout: `${this.opts.timeoutMs}ms`,
        responseType: method === 'HEAD' ? 'none' : 'text',
        tags: { name: 'fee_stats' },
      })
      .then(
        (res): EngineResponse => {
          const t = res.timings;
          const receivedAt = sentAt + t.blocked + t.connecting + t.tls_handshaking + t.duration;
          this.rtts.push(receivedAt - sentAt);
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers ?? {})) headers[k.toLowerCase()] = v;
          const body = typeof res.body === 'string' ? res.body : undefined;
          if (res.error && !res.status) return { sentAt, receivedAt, headers, error: res.error, request };
          return {
            sentAt,
            receivedAt,
            status: res.status,
            headers,
            body: body?.slice(0, this.opts.bodyKeepChars ?? 4096),
            bodyBytes: body?.length,
            request,
          };
        },
        (e: unknown): EngineResponse => ({ sentAt, receivedAt: this.now(), headers: {}, error: String(e), request }),
      )
      .then((r) => {
        entry.settled = true;
        this.inFlight.splice(this.inFlight.indexOf(entry), 1);
        return r;
      });
    entry.done = done;
    this.inFlight.push(entry);
    return done;
  }

  pacing(): PacingStats {
    return this.pacingRec.stats();
  }

  async close(): Promise<void> {
    await Promise.all(this.inFlight.map((f) => f.done));
  }
}
