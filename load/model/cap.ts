// The per-second cap, judged on the client's clock: a request's arrival lies somewhere in
// [sentAt, receivedAt], which is the allowance for network delay. "Certain" counts only requests
// that arrived inside a window whatever the delays were; "possible" counts any that might have.

export interface Span {
  sentAt: number;
  receivedAt: number;
}

export const WINDOW_MS = 1000;

export interface WindowCount {
  count: number;
  /** Indexes into the given spans. */
  members: number[];
  from: number;
  to: number;
}

/** The largest set of spans whose arrivals all lie within one window (max receivedAt - min sentAt < window). */
export function mostCertainInWindow(spans: readonly Span[], windowMs = WINDOW_MS): WindowCount {
  let best: WindowCount = { count: 0, members: [], from: 0, to: 0 };
  const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.sentAt - spans[b]!.sentAt);
  for (const k of order) {
    const start = spans[k]!.sentAt;
    const members = order.filter((j) => spans[j]!.sentAt >= start && spans[j]!.receivedAt < start + windowMs);
    if (members.length > best.count) {
      best = { count: members.length, members, from: start, to: Math.max(...members.map((j) => spans[j]!.receivedAt)) };
    }
  }
  return best;
}

/**
 * The most requests that could have arrived in one window containing request i's arrival. When this
 * is at most the cap, no proxy counting arrivals per sliding second can have rejected request i.
 */
export function mostPossibleAround(spans: readonly Span[], i: number, windowMs = WINDOW_MS): number {
  const me = spans[i]!;
  const near = spans.filter((s) => s.receivedAt >= me.sentAt - 2 * windowMs && s.sentAt <= me.receivedAt + 2 * windowMs);
  // Window [w, w+W) may hold i's arrival for w in (sentAt - W, receivedAt]; counts change only where
  // a span enters (w = sentAt_j - W) or leaves (w = receivedAt_j).
  const candidates = [me.sentAt - windowMs + 1e-6, me.receivedAt];
  for (const s of near) candidates.push(s.receivedAt, s.sentAt - windowMs + 1e-6);
  let best = 0;
  for (const w of candidates) {
    if (w <= me.sentAt - windowMs || w > me.receivedAt) continue;
    let n = 0;
    for (const s of near) if (s.sentAt < w + windowMs && s.receivedAt >= w) n++;
    best = Math.max(best, n);
  }
  return best;
}

/**
 * Spacing that keeps every window at or under the cap even if each request's arrival sits anywhere
 * in its round trip: a window of W plus one round trip holds at most floor((W + rtt) / spacing) + 1.
 */
export function underCapSpacingMs(cap: number, rttMs: number, windowMs = WINDOW_MS): number {
  return (windowMs + rttMs) / Math.max(cap - 1, 1);
}
