// The least gap between requests to a node behind a per-second cap that a proxy may enforce as a
// spacing (nginx limit_req without burst refuses a request less than 1/cap after the last one):
// one cap interval with a margin. The probes (load/model/proxy.ts) and the contract checks of the
// rate-limited node keep it, so neither needs a refusal to learn it.

/** Widening of a spacing, for clocks and network jitter. */
export const SPACING_MARGIN = { factor: 1.05, plusMs: 1 } as const;

/** At least one cap interval (a cap of 20 a second spaced evenly is 50 ms) and `refusedGapMs`, with the margin. */
export function spacedGapMs(cap: number, refusedGapMs = 0): number {
  return Math.max(refusedGapMs, 1000 / cap) * SPACING_MARGIN.factor + SPACING_MARGIN.plusMs;
}
