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
 * How many other requests may have reached the server within the second before request i did. A
 * proxy refuses a request only for what came before it, so when this is below the cap, no
 * per-second cap (sliding or calendar windows) can have refused request i.
 */
export function possiblyBefore(spans: readonly Span[], i: number, windowMs = WINDOW_MS): number {
  const me = spans[i]!;
  let n = 0;
  for (let j = 0; j < spans.length; j++)
    if (j !== i && spans[j]!.sentAt < me.receivedAt && spans[j]!.receivedAt > me.sentAt - windowMs) n++;
  return n;
}

export const surelyUnderCap = (spans: readonly Span[], i: number, cap: number): boolean =>
  possiblyBefore(spans, i) < cap;

/**
 * Spacing that keeps every request surely under the cap whatever the network delays: the requests
 * that may arrive within the second before one of them were sent within W plus two round trips,
 * so at most (W + 2 rtt) / spacing of them, which must stay below the cap.
 */
export function underCapSpacingMs(cap: number, rttMs: number, windowMs = WINDOW_MS): number {
  return (windowMs + 2 * rttMs) / Math.max(cap - 1, 1) + 0.01;
}
