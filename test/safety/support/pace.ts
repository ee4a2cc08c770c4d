// Pace checks on a probe run: requests per sliding second (client send times or server arrival
// times) against the plan's stated rate, and whether each retry-after was waited out.
import type { TimelineEntry } from '../../../src/stages.js';

export const WINDOW_MS = 1000;

/** The most times of `times` that fall in one window [t, t + W), and where that window starts. */
export function busiestWindow(times: readonly number[], windowMs = WINDOW_MS): { count: number; from: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let best = { count: 0, from: sorted[0] ?? 0 };
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - windowMs + 1e-9) j++;
    // window ending at sorted[i] (inclusive) and starting just after sorted[i] - W
    if (i - j + 1 > best.count) best = { count: i - j + 1, from: sorted[j]! };
  }
  return best;
}

/**
 * The timeline phases the probes label as sending before a retry-after has run out on purpose:
 * the burst above the per-second cap (RL-10, RL-13) keeps going through the proxy's 429s; the
 * recovery sends a request right after the first 429 (RL-07, before the edge) and one a single T
 * after the last acceptance (RL-05: recovery is gradual, so it comes before the rounded-up
 * retry-after); RL-14's integrity phase sends its varied requests while the bucket is empty, which
 * is what it tests. load/ marks these only by their phase labels, which is what is matched here.
 */
export const DELIBERATE_EARLY_PHASES: ReadonlySet<string> = new Set([
  'drain: burst above the cap',
  'recovery: before the retry-after edge',
  'recovery: one T after the last acceptance',
  'integrity: variations of the request while the bucket is empty',
  'integrity: variations of the request while the bucket is about empty',
]);
export const BURST_PHASE = 'drain: burst above the cap';

export interface RetryAfterViolation {
  /** The answer that asked for the wait. */
  after: { index: number; probe: string; status?: number; receivedAt: number; retryAfter: number };
  /** The request sent too early. */
  early: { index: number; probe: string; sentAt: number };
  /** How much earlier than allowed, ms. */
  shortByMs: number;
}

/**
 * Every request sent after an answer carrying retry-after R was received, and less than R seconds
 * after it, unless the request belongs to a deliberate phase, or a newer answer received before it
 * was sent was an acceptance (the limiter's state changed since, so the old wait no longer applies).
 */
export function retryAfterViolations(
  timeline: readonly TimelineEntry[],
  deliberate: ReadonlySet<string> = DELIBERATE_EARLY_PHASES,
  slackMs = 1,
): RetryAfterViolation[] {
  const out: RetryAfterViolation[] = [];
  timeline.forEach((a, ai) => {
    const { retryAfter, receivedAt } = a;
    if (retryAfter === undefined || receivedAt === undefined) return;
    const allowedAt = receivedAt + retryAfter * 1000;
    timeline.forEach((x, xi) => {
      if (deliberate.has(x.probe)) return;
      const lifted = timeline.some(
        (y) =>
          y.status !== undefined &&
          y.status >= 200 &&
          y.status < 300 &&
          y.receivedAt !== undefined &&
          y.receivedAt > receivedAt &&
          y.receivedAt < x.sentAt,
      );
      if (!lifted && x.sentAt > receivedAt && x.sentAt < allowedAt - slackMs) {
        out.push({
          after: { index: ai, probe: a.probe, status: a.status, receivedAt, retryAfter },
          early: { index: xi, probe: x.probe, sentAt: x.sentAt },
          shortByMs: Math.round(allowedAt - x.sentAt),
        });
      }
    });
  });
  return out;
}
