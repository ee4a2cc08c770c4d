// Small statistics for the benchmarks: every figure is a median over repeated runs with its
// min and max, and pacing figures are percentiles over one run's samples.

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** How many repetitions the spread is over. */
  n: number;
}

/** Nearest-rank percentile of already sorted values (p in 0..100). */
export function percentileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function percentile(values: readonly number[], p: number): number {
  return percentileSorted(
    [...values].sort((a, b) => a - b),
    p,
  );
}

/** Median (mean of the middle two for even counts), min and max. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

/** The most timestamps (ms) that fall in any half-open window [t, t + windowMs). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const s = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < s.length; hi++) {
    while (s[hi]! - s[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** Runs `fn` n times one after another and returns every result. */
export async function repeat<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}
