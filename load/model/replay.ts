// Replays observed requests through the GCRA model in the order they were sent, carrying the
// bucket's theoretical arrival time (tat) as an interval on the client's clock. A request's arrival
// lies in [sentAt, receivedAt]; requests whose intervals overlap may reach the server in either
// order, so their own predictions are widened by what the others could have added or not yet added.
import {
  backlogFromAccepted,
  backlogFromDenied,
  intersect,
  predict,
  within,
  type Interval,
  type Prediction,
} from './gcra.js';

/**
 * How the limiter treated a request: `accepted` and `denied` are its answers; `bypassed` never
 * reached it and `counted` used quota without the limiter answering (cap rejections, under either
 * hypothesis); `unknown` may have been counted (network error, timeout, another status).
 */
export type LimiterOutcome = 'accepted' | 'denied' | 'bypassed' | 'counted' | 'unknown';

export interface ReplayInput {
  sentAt: number;
  receivedAt: number;
  outcome: LimiterOutcome;
  remaining?: number;
  reset?: number;
  retryAfter?: number;
}

export type ViolationKind = 'status' | 'remaining' | 'reset' | 'retry-after';

export interface Violation {
  kind: ViolationKind;
  expected: unknown;
  actual: unknown;
}

export interface ReplayStep {
  backlog: Interval;
  prediction: Prediction;
  violations: Violation[];
  /** Requests whose network intervals overlap this one (order at the server unknown). */
  overlapped: boolean;
  tatAfter: Interval;
}

export interface ReplayOptions {
  limit: number;
  T: Interval;
  /** `full`: the bucket is known empty before the first request; `unknown`: anything. */
  start: 'full' | 'unknown' | Interval;
  /** Narrow the state with what each non-overlapped answer reveals (default on). */
  condition?: boolean;
  /** Headers trusted for narrowing (default all): a broken header must not steer the replay. */
  trust?: { remaining: boolean; reset: boolean; retryAfter: boolean };
}

const TRUST_ALL = { remaining: true, reset: true, retryAfter: true };

const mayConsume = (o: LimiterOutcome) => o === 'accepted' || o === 'counted' || o === 'unknown';

/** Per request: how many others that may use quota could reach the server before or after it. */
interface Overlaps {
  late: number[];
  early: number[];
}

// Overlaps do not depend on T, and a T search replays the same inputs hundreds of times.
const overlapCache = new WeakMap<readonly ReplayInput[], Overlaps>();

/** Counts of inserted values below a bound, over a fixed sorted set of values (a Fenwick tree). */
class RankCounter {
  private tree: number[];
  constructor(private readonly sorted: readonly number[]) {
    this.tree = new Array<number>(sorted.length + 1).fill(0);
  }
  /** How many values are < v (or <= v with `inclusive`). */
  private rank(v: number, inclusive: boolean): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.sorted[mid]!;
      if (m < v || (inclusive && m === v)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  add(v: number): void {
    for (let k = this.rank(v, false) + 1; k < this.tree.length; k += k & -k) this.tree[k]!++;
  }
  countBelow(v: number, inclusive = false): number {
    let n = 0;
    for (let k = this.rank(v, inclusive); k > 0; k -= k & -k) n += this.tree[k]!;
    return n;
  }
}

// Every neighbour counts, however far away in send order: one slow answer can overlap any number of
// later requests, and missing one would make the widening too narrow.
function overlapsOf(inputs: readonly ReplayInput[]): Overlaps {
  const cached = overlapCache.get(inputs);
  if (cached) return cached;
  const n = inputs.length;
  const consuming = inputs.map((x) => mayConsume(x.outcome));
  const late = new Array<number>(n).fill(0);
  const early = new Array<number>(n).fill(0);
  const byReceived = new RankCounter(
    inputs
      .filter((_, i) => consuming[i])
      .map((x) => x.receivedAt)
      .sort((a, b) => a - b),
  );
  let inserted = 0;
  for (let i = 0; i < n; i++) {
    const x = inputs[i]!;
    // Sent before, still unanswered when this one left: receivedAt > sentAt.
    late[i] = inserted - byReceived.countBelow(x.sentAt, true);
    if (consuming[i]) {
      byReceived.add(x.receivedAt);
      inserted++;
    }
  }
  const bySent = new RankCounter(
    inputs
      .filter((_, i) => consuming[i])
      .map((x) => x.sentAt)
      .sort((a, b) => a - b),
  );
  for (let i = n - 1; i >= 0; i--) {
    // Sent after, but before this one's answer came back: sentAt < receivedAt.
    early[i] = bySent.countBelow(inputs[i]!.receivedAt);
    if (consuming[i]) bySent.add(inputs[i]!.sentAt);
  }
  const out = { late, early };
  overlapCache.set(inputs, out);
  return out;
}

const FULL: Interval = { lo: -Infinity, hi: -Infinity };
const UNKNOWN: Interval = { lo: -Infinity, hi: Infinity };

function narrow(range: Interval, constraints: Interval[]): Interval {
  let r = range;
  for (const c of constraints) r = intersect(r, c) ?? r;
  return r;
}

function violationsOf(x: ReplayInput, p: Prediction): Violation[] {
  const out: Violation[] = [];
  if (x.outcome === 'accepted') {
    if (!p.acceptPossible || !p.accepted) return [{ kind: 'status', expected: 'denied (429)', actual: 'accepted' }];
    if (x.remaining !== undefined && !within(x.remaining, p.accepted.remaining))
      out.push({ kind: 'remaining', expected: p.accepted.remaining, actual: x.remaining });
    if (x.reset !== undefined && !within(x.reset, p.accepted.reset))
      out.push({ kind: 'reset', expected: p.accepted.reset, actual: x.reset });
  } else if (x.outcome === 'denied') {
    if (!p.denyPossible || !p.denied) return [{ kind: 'status', expected: 'accepted', actual: 'denied (429)' }];
    if (x.remaining !== undefined && !within(x.remaining, p.denied.remaining))
      out.push({ kind: 'remaining', expected: p.denied.remaining, actual: x.remaining });
    if (x.reset !== undefined && !within(x.reset, p.denied.reset))
      out.push({ kind: 'reset', expected: p.denied.reset, actual: x.reset });
    if (x.retryAfter !== undefined && !within(x.retryAfter, p.denied.retryAfter))
      out.push({ kind: 'retry-after', expected: p.denied.retryAfter, actual: x.retryAfter });
  }
  return out;
}

/** The replay's steps in order; `enough`, when given, ends it after the first step it says yes to. */
export function replay(
  inputs: readonly ReplayInput[],
  opts: ReplayOptions,
  enough?: (step: ReplayStep) => boolean,
): ReplayStep[] {
  const { limit, T } = opts;
  const condition = opts.condition ?? true;
  const trust = opts.trust ?? TRUST_ALL;
  const { late: lates, early: earlies } = overlapsOf(inputs);
  let state: Interval = opts.start === 'full' ? FULL : opts.start === 'unknown' ? UNKNOWN : opts.start;
  const steps: ReplayStep[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const x = inputs[i]!;
    const late = lates[i]!;
    const early = earlies[i]!;
    const overlapped = late > 0 || early > 0;
    // Lipschitz bounds of GCRA: taking one accepted request out lowers tat by at most T; adding one
    // that arrives by receivedAt raises it to at most max(tat, receivedAt) + T.
    const prior: Interval = {
      lo: state.lo - late * T.hi,
      hi: early > 0 ? Math.max(state.hi, x.receivedAt) + early * T.hi : state.hi,
    };
    const backlog = { lo: prior.lo - x.receivedAt, hi: prior.hi - x.sentAt };
    const prediction = predict(backlog, T, limit);
    const violations = violationsOf(x, prediction);

    let seen = backlog;
    if (condition && !overlapped) {
      const told = {
        remaining: trust.remaining ? x.remaining : undefined,
        reset: trust.reset ? x.reset : undefined,
        retryAfter: trust.retryAfter ? x.retryAfter : undefined,
      };
      if (x.outcome === 'accepted') seen = narrow(backlog, backlogFromAccepted(told, T, limit));
      else if (x.outcome === 'denied') seen = narrow(backlog, backlogFromDenied(told, T, limit));
    }
    const before: Interval = overlapped
      ? state
      : narrow(state, [{ lo: x.sentAt + seen.lo, hi: x.receivedAt + seen.hi }]);
    let after: Interval;
    switch (x.outcome) {
      case 'counted':
      case 'accepted': {
        after = { lo: Math.max(before.lo, x.sentAt) + T.lo, hi: Math.max(before.hi, x.receivedAt) + T.hi };
        if (condition && !overlapped && x.outcome === 'accepted') {
          after = narrow(after, [
            { lo: x.sentAt + Math.max(seen.lo, 0) + T.lo, hi: x.receivedAt + Math.max(seen.hi, 0) + T.hi },
          ]);
        }
        break;
      }
      case 'unknown':
        after = { lo: before.lo, hi: Math.max(before.hi, x.receivedAt) + T.hi };
        break;
      default:
        after = before;
    }
    state = after;
    const step = { backlog, prediction, violations, overlapped, tatAfter: after };
    steps.push(step);
    if (enough?.(step)) break;
  }
  return steps;
}

export interface AcceptanceForecast {
  /** Accepted requests before the first 429: fewest and most the model allows. */
  countLo: number;
  countHi: number;
}

/**
 * Forward prediction without looking at answers: how many of these requests (in send order, each
 * reaching the limiter) a GCRA accepts before its first denial, starting from `start`. When the
 * model would still accept after the last one, the run goes on at the same pace (`then`) until
 * the model denies for sure, so a limiter that denied early is not excused by the drain stopping.
 */
export function forecastAcceptedRun(
  start: Interval,
  requests: readonly { sentAt: number; receivedAt: number }[],
  T: Interval,
  limit: number,
  then?: { everyMs: number; rttMs: number },
): AcceptanceForecast {
  let lo = start.lo;
  let hi = start.hi;
  let countLo: number | undefined;
  let count = 0;
  const n = requests.length;
  const last = requests[n - 1];
  const more = (i: number) => {
    const sentAt = last!.sentAt + (i - n + 1) * then!.everyMs;
    return { sentAt, receivedAt: sentAt + then!.rttMs };
  };
  const extra = then && last ? limit + 1000 : 0;
  for (let i = 0; i < n + extra; i++) {
    const r = i < n ? requests[i]! : more(i);
    const p = predict({ lo: lo - r.receivedAt, hi: hi - r.sentAt }, T, limit);
    // Until the first possible denial every request is accepted for sure (countLo); past it,
    // assuming each uncertain one accepted carries the count to the first certain denial (countHi).
    if (!p.acceptPossible) return { countLo: countLo ?? count, countHi: count };
    if (p.denyPossible && countLo === undefined) countLo = count;
    count++;
    lo = Math.max(lo, r.sentAt) + T.lo;
    hi = Math.max(hi, r.receivedAt) + T.hi;
  }
  return { countLo: countLo ?? count, countHi: count };
}
