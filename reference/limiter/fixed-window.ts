// A fixed-window counter: the algorithm a misconfigured node runs instead of the GCRA (fault
// `rl-fixed-window`). Windows are aligned to the clock like hourly quotas; the count starts over
// at each boundary, so Remaining jumps back to full at once instead of recovering gradually.
import type { LimitOutcome } from './gcra.js';

export interface WindowState {
  startNs: bigint;
  count: number;
}

export interface WindowParams {
  windowNs: bigint;
  limit: number;
}

export function fixedWindow(state: WindowState | undefined, nowNs: bigint, p: WindowParams): { state: WindowState; outcome: LimitOutcome } {
  const startNs = nowNs - (nowNs % p.windowNs);
  const count = state && state.startNs === startNs ? state.count : 0;
  const resetNs = startNs + p.windowNs - nowNs;
  if (count >= p.limit) {
    return { state: { startNs, count }, outcome: { limited: true, limit: p.limit, remaining: 0, resetNs, retryAfterNs: resetNs } };
  }
  return { state: { startNs, count: count + 1 }, outcome: { limited: false, limit: p.limit, remaining: p.limit - count - 1, resetNs } };
}
