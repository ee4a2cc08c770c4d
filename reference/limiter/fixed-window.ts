// A fixed-window counter: the algorithm a misconfigured node runs instead of the GCRA (fault
// `rl-fixed-window`). As with the common counter-with-expiry implementation, a window opens at the
// first request after the previous one expired; the count starts over then, so Remaining jumps
// back to full at once instead of recovering gradually. (Opening windows at the first request
// rather than at clock boundaries also keeps the fault's timing independent of the wall clock.)
import type { LimitOutcome } from './gcra.js';

export interface WindowState {
  startNs: bigint;
  count: number;
}

export interface WindowParams {
  windowNs: bigint;
  limit: number;
}

export function fixedWindow(
  state: WindowState | undefined,
  nowNs: bigint,
  p: WindowParams,
): { state: WindowState; outcome: LimitOutcome } {
  const open = state !== undefined && nowNs < state.startNs + p.windowNs;
  const startNs = open ? state.startNs : nowNs;
  const count = open ? state.count : 0;
  const resetNs = startNs + p.windowNs - nowNs;
  if (count >= p.limit) {
    return {
      state: { startNs, count },
      outcome: { limited: true, limit: p.limit, remaining: 0, resetNs, retryAfterNs: resetNs },
    };
  }
  return {
    state: { startNs, count: count + 1 },
    outcome: { limited: false, limit: p.limit, remaining: p.limit - count - 1, resetNs },
  };
}
