// Where the server's seconds begin, on the client's clock, from the `Date` header of its answers.
// A cap that counts per calendar second accepts up to twice the cap inside one second across a
// boundary; a burst placed across one shows it, a burst inside one second does not. Each answer
// says its arrival (somewhere in [sentAt, receivedAt]) fell in second D of the server's clock, so
// the offset o = server time - client time lies in [D s - receivedAt, D s + 1 s + stale - sentAt).
import type { Interval } from './gcra.js';

/** A server may stamp Date from a clock cached for a few ms after the second turned (nginx, Node). */
export const DATE_STALE_MS = 30;

export interface Dated {
  sentAt: number;
  receivedAt: number;
  /** The Date header's value, when there was one. */
  date?: string;
}

/** The offset interval every dated answer agrees with; undefined when there is none or they disagree (a clock stepped). */
export function serverClockOffset(answers: readonly Dated[], staleMs = DATE_STALE_MS): Interval | undefined {
  let lo = -Infinity;
  let hi = Infinity;
  let seen = false;
  for (const a of answers) {
    const ms = a.date === undefined ? NaN : Date.parse(a.date);
    if (!Number.isFinite(ms)) continue;
    seen = true;
    lo = Math.max(lo, ms - a.receivedAt);
    hi = Math.min(hi, ms + 1000 + staleMs - a.sentAt);
  }
  return seen && lo < hi ? { lo, hi } : undefined;
}

/**
 * The next server-second boundary after `after` (client ms), as the client-time interval it falls in.
 * Only meaningful when the offset is known to well under a second.
 */
export function nextBoundary(offset: Interval, after: number): Interval {
  const mid = (offset.lo + offset.hi) / 2;
  const k = Math.ceil((after + mid) / 1000);
  return { lo: k * 1000 - offset.hi, hi: k * 1000 - offset.lo };
}
