// The hard per-second cap of the proxy in front of the limiter: at most `cap` requests forwarded
// per token in any one-second window (sliding, not per calendar second). A request over the cap is
// answered by the proxy and never reaches the limiter, so it uses no quota. Besides the sliding
// window: nginx's strict spacing (conformant, a variant) and two ways to get the cap wrong (faults
// of RL-10): a counter per calendar second, and a token bucket that refills while it bursts.

/** What the limiter pipeline asks of any cap: may this request go on (and is it counted)? */
export interface Cap {
  admit(key: string, nowMs: number): boolean;
}

/** The reference's cap shapes: `sliding` is the default; `strict-spacing` a variant; the other two faults. */
export type CapShape = 'sliding' | 'strict-spacing' | 'calendar-second' | 'token-bucket';

const WINDOW_MS = 1000;

/** The forwarding times of one token within the last second, oldest first from `head`. */
interface Recent {
  times: number[];
  head: number;
}

export class PerSecondCap implements Cap {
  private readonly recent = new Map<string, Recent>();

  /** `cap` of Infinity switches the cap off (no proxy limit). */
  constructor(readonly cap: number) {
    if (!(cap >= 1)) throw new RangeError(`per-second cap must be at least 1, got ${cap}`);
  }

  /**
   * True when the request may go on to the limiter (and is counted as forwarded): fewer than `cap`
   * forwards in the last second, so no half-open one-second window ever holds more than `cap`.
   * Memory is bounded by the forwards of one second, however large the cap.
   */
  admit(key: string, nowMs: number): boolean {
    if (this.cap === Infinity) return true;
    let r = this.recent.get(key);
    if (!r) {
      r = { times: [], head: 0 };
      this.recent.set(key, r);
    }
    const { times } = r;
    while (r.head < times.length && nowMs - times[r.head]! >= WINDOW_MS) r.head += 1;
    if (times.length - r.head >= this.cap) return false;
    times.push(nowMs);
    if (r.head > 1024 && r.head * 2 > times.length) {
      r.times = times.slice(r.head);
      r.head = 0;
    }
    return true;
  }
}

/**
 * nginx `limit_req rate=<cap>r/s` without burst: a request is forwarded only when at least 1/cap s
 * has passed since the last forwarded one (a leaky bucket of size one). Never more than `cap` in any
 * second, and stricter than that: 20 requests 5 ms apart are mostly refused.
 */
export class StrictSpacingCap implements Cap {
  private readonly last = new Map<string, number>();
  private readonly spacingMs: number;

  constructor(readonly cap: number) {
    if (!(cap >= 1)) throw new RangeError(`per-second cap must be at least 1, got ${cap}`);
    this.spacingMs = WINDOW_MS / cap;
  }

  admit(key: string, nowMs: number): boolean {
    const last = this.last.get(key);
    if (last !== undefined && nowMs - last < this.spacingMs) return false;
    this.last.set(key, nowMs);
    return true;
  }
}

/** Fault: `cap` per calendar second of the server's clock: up to twice the cap inside one second across a boundary. */
export class CalendarSecondCap implements Cap {
  private readonly counts = new Map<string, { second: number; n: number }>();

  constructor(readonly cap: number) {}

  admit(key: string, nowMs: number): boolean {
    const second = Math.floor(nowMs / WINDOW_MS);
    const c = this.counts.get(key);
    if (!c || c.second !== second) {
      this.counts.set(key, { second, n: 1 });
      return true;
    }
    if (c.n >= this.cap) return false;
    c.n++;
    return true;
  }
}

/**
 * Fault: a token bucket of `cap` tokens refilled at `cap` a second, continuously: a burst from a
 * full bucket gets `cap` at once plus what refills meanwhile (nginx `burst=19 nodelay` behaves so).
 */
export class TokenBucketCap implements Cap {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(readonly cap: number) {}

  admit(key: string, nowMs: number): boolean {
    const b = this.buckets.get(key) ?? { tokens: this.cap, at: nowMs };
    b.tokens = Math.min(this.cap, b.tokens + ((nowMs - b.at) * this.cap) / WINDOW_MS);
    b.at = nowMs;
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}

export function createCap(shape: CapShape, cap: number): Cap {
  if (cap === Infinity) return new PerSecondCap(cap);
  switch (shape) {
    case 'strict-spacing':
      return new StrictSpacingCap(cap);
    case 'calendar-second':
      return new CalendarSecondCap(cap);
    case 'token-bucket':
      return new TokenBucketCap(cap);
    default:
      return new PerSecondCap(cap);
  }
}

/** Open-behaviour variant: the proxy spaces requests strictly, like nginx limit_req without burst (RL-13). */
export const CAP_STRICT_SPACING_VARIANT = 'horizon-cap-strict-spacing';
