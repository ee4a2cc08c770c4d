// A virtual-time horizon node for tests: the throttled GCRA written the way rate.go writes it (tat,
// newTat, allowAt, ttl, trunc), behind a proxy cap on passed requests per sliding second. It shares
// no code with load/model (the probes' own model), so agreement between the two means something.
// Faults mirror a few of the reference's, to exercise the probe logic fast on a fake clock. Answers
// carry a Date header on the virtual clock (FAKE_EPOCH + virtual ms), as a real server's do.
import { FAKE_EPOCH } from './k6-double.js';

export interface SimOptions {
  hourlyLimit: number;
  burst: number;
  perSecondCap: number;
  /** Network: one-way delay before the limiter sees the request, and after it answers (ms). */
  delay?: (seq: number) => { in: number; out: number };
  faults?: ReadonlySet<SimFault>;
}

export type SimFault =
  | 'reset-static'
  | 'remaining-overstated'
  | 'retry-after-missing'
  | 'no-cap'
  | 'fixed-window'
  | 'calendar-cap'
  /** HEAD answered as a counted request would be, but never counted. */
  | 'head-free'
  /** Reset written as a Unix timestamp (the second the bucket is full again), as reference fault rl-reset-epoch. */
  | 'reset-epoch'
  /** Reset written in milliseconds. */
  | 'reset-ms'
  /**
   * A cache in front of the limiter keeps its first 429 for that 429's retry-after and replays it once
   * to the first request the limiter would take meanwhile (reference fault rl-replayed-refusal).
   */
  | 'replayed-refusal'
  /** The same cache, replaying the 429 to the next two such requests, however late (rl-replayed-refusal-stale). */
  | 'replayed-refusal-stale';

export interface SimAnswer {
  status: number;
  headers: Record<string, string>;
  /** Virtual time the limiter decided, and the time the answer is complete. */
  decidedAt: number;
  doneAt: number;
}

export class SimHorizon {
  private tat: number | undefined;
  private passed: number[] = [];
  private windowStart = 0;
  private windowCount = 0;
  private seq = 0;
  readonly T: number;
  readonly tau: number;
  readonly limit: number;
  arrivals: { at: number; status: number }[] = [];
  /** The first 429 a replaying cache keeps (faults replayed-refusal, -stale), and how often it was replayed. */
  private kept: { at: number; headers: Record<string, string>; replays: number } | undefined;

  constructor(readonly opts: SimOptions) {
    this.T = 3_600_000 / opts.hourlyLimit;
    this.limit = opts.burst + 1;
    this.tau = this.T * this.limit;
  }

  private has(f: SimFault): boolean {
    return this.opts.faults?.has(f) ?? false;
  }

  /**
   * The answer to a request sent at `sentAt` (virtual ms). `pastCap`: the proxy neither counts nor
   * refuses it (a cap keyed on something the request lacks, as RL-14's defect); the GCRA still does.
   */
  request(sentAt: number, method: string, pastCap = false): SimAnswer {
    const d = this.opts.delay?.(this.seq++) ?? { in: 0.3, out: 0.3 };
    const now = sentAt + d.in;
    const done = now + d.out;
    this.passed = this.passed.filter((t) => t > now - 1000);
    const date = new Date(FAKE_EPOCH + now).toUTCString();
    if (!pastCap && !this.has('no-cap') && this.overCap(now)) {
      this.arrivals.push({ at: now, status: 429 });
      return { status: 429, headers: { 'content-type': 'text/plain', date }, decidedAt: now, doneAt: done };
    }
    if (!pastCap) this.passed.push(now);
    const replayed = this.replay(now);
    if (replayed) {
      this.arrivals.push({ at: now, status: 429 });
      return { status: 429, headers: { ...replayed, Date: date }, decidedAt: now, doneAt: done };
    }
    const h = this.has('fixed-window')
      ? this.fixedWindow(now)
      : this.gcra(now, !(method === 'HEAD' && this.has('head-free')));
    if (h.status === 429 && !this.kept) this.kept = { at: now, headers: { ...h.headers }, replays: 0 };
    h.headers['Date'] = date;
    this.arrivals.push({ at: now, status: h.status });
    if (method === 'HEAD') h.headers['content-length'] = '0';
    return { ...h, decidedAt: now, doneAt: done };
  }

  /** The kept 429's headers when the replaying cache answers this request (the limiter would take it). */
  private replay(now: number): Record<string, string> | undefined {
    const stale = this.has('replayed-refusal-stale');
    if (!this.kept || !(stale || this.has('replayed-refusal'))) return undefined;
    if (this.kept.replays >= (stale ? 2 : 1)) return undefined;
    const holdMs = stale ? Infinity : Number(this.kept.headers['Retry-After'] ?? 0) * 1000;
    if (now >= this.kept.at + holdMs || this.gcra(now, false).status !== 200) return undefined;
    this.kept.replays++;
    return this.kept.headers;
  }

  /** Sliding second, or (fault) per calendar second of the server's clock. */
  private overCap(now: number): boolean {
    if (!this.has('calendar-cap')) return this.passed.length >= this.opts.perSecondCap;
    const second = (t: number) => Math.floor((FAKE_EPOCH + t) / 1000);
    return this.passed.filter((t) => second(t) === second(now)).length >= this.opts.perSecondCap;
  }

  private gcra(now: number, count = true): { status: number; headers: Record<string, string> } {
    const T = this.T;
    const tat = this.tat ?? now;
    const newTat = Math.max(tat, now) + T;
    const allowAt = newTat - this.tau;
    let ttl: number;
    let retryAfter = -1;
    let limited = false;
    if (now < allowAt) {
      limited = true;
      retryAfter = allowAt - now;
      ttl = tat - now;
    } else {
      ttl = newTat - now;
      if (count) this.tat = newTat;
    }
    const next = this.tau - ttl;
    let remaining = next > -T ? Math.trunc(next / T) : 0;
    if (this.has('remaining-overstated')) remaining += 3;
    const headers: Record<string, string> = {
      'X-Ratelimit-Limit': String(this.limit),
      'X-Ratelimit-Remaining': String(remaining),
      'X-Ratelimit-Reset': String(
        this.has('reset-static')
          ? 1
          : this.has('reset-epoch')
            ? Math.ceil((FAKE_EPOCH + now + ttl) / 1000)
            : this.has('reset-ms')
              ? Math.ceil(ttl)
              : Math.ceil(ttl / 1000),
      ),
    };
    if (limited && !this.has('retry-after-missing')) headers['Retry-After'] = String(Math.ceil(retryAfter / 1000));
    return { status: limited ? 429 : 200, headers };
  }

  private fixedWindow(now: number): { status: number; headers: Record<string, string> } {
    const len = this.limit * this.T;
    if (now - this.windowStart >= len) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    const reset = Math.ceil((this.windowStart + len - now) / 1000);
    const ok = this.windowCount < this.limit;
    if (ok) this.windowCount++;
    const headers: Record<string, string> = {
      'X-Ratelimit-Limit': String(this.limit),
      'X-Ratelimit-Remaining': String(this.limit - this.windowCount),
      'X-Ratelimit-Reset': String(reset),
    };
    if (!ok) headers['Retry-After'] = String(reset);
    return { status: ok ? 200 : 429, headers };
  }
}
