// The hard per-second cap of the proxy in front of the limiter: at most `cap` requests forwarded
// per token in any one-second window (sliding, not per calendar second). A request over the cap is
// answered by the proxy and never reaches the limiter, so it uses no quota.

const WINDOW_MS = 1000;

/** The forwarding times of one token within the last second, oldest first from `head`. */
interface Recent {
  times: number[];
  head: number;
}

export class PerSecondCap {
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
