// The longest retry-after a GCRA limiter can honestly announce for a denial: what the recovery
// probe waits for at most (load/probes/recovery.ts) and what RL-07 holds the value to.
import { ceilSeconds, type Interval } from './gcra.js';
import type { ReplayStep } from './replay.js';

/** The longest honest retry-after for a denial, s: the replay's prediction, capped at ceil(T). */
export function retryAfterBound(step: ReplayStep | undefined, T: Interval | undefined): number | undefined {
  const byT = T ? ceilSeconds(T.hi) : undefined;
  const byModel = step?.prediction.denied?.retryAfter.hi;
  if (byModel === undefined || !Number.isFinite(byModel)) return byT;
  return byT === undefined ? byModel : Math.min(byModel, byT);
}
