// Parameter estimation from the headers themselves. Limit is read from X-RateLimit-Limit. T comes
// in two steps: a coarse interval from each answer alone (Reset is about (Limit - Remaining) x T),
// then the set of T values under which the whole replay has no unexplained answer. That set is the
// estimate with its uncertainty: a verdict later fails only if no T inside it explains what was seen.
import { burstOf, type Interval } from './gcra.js';
import { replay, type ReplayInput, type ReplayOptions, type ViolationKind } from './replay.js';

export type EstimateMethod = 'all-headers' | 'remaining-only' | 'reset-only' | 'coarse';

export interface EmissionEstimate {
  /** Midpoint of the band, ms. */
  emissionIntervalMs: number;
  /** The band of T values that explain the observations (or the coarse interval). */
  band: Interval;
  /** Half the band, ms. */
  uncertaintyMs: number;
  method: EstimateMethod;
  /** Whether one T explains every answer with every header. */
  consistent: boolean;
  /** Answers left unexplained at the best T, when not consistent. */
  unexplained: number;
  /** Replays run (cost of the search). */
  evaluations: number;
}

/** The most common X-RateLimit-Limit and every distinct value seen. */
export function estimateLimit(limits: readonly (number | undefined)[]): { limit?: number; values: number[] } {
  const counts = new Map<number, number>();
  for (const l of limits) if (l !== undefined && Number.isInteger(l) && l > 0) counts.set(l, (counts.get(l) ?? 0) + 1);
  let best: number | undefined;
  for (const [v, n] of counts) if (best === undefined || n > counts.get(best)!) best = v;
  return { limit: best, values: [...counts.keys()].sort((a, b) => a - b) };
}

/** What one accepted answer alone says about T: ttl is (Limit-Remaining-1..Limit-Remaining) x T and (Reset-1..Reset] s. */
export function tFromAnswer(remaining: number, reset: number, limit: number): Interval | undefined {
  const burst = burstOf(limit);
  if (!Number.isInteger(remaining) || !Number.isInteger(reset) || reset < 1 || remaining < 0 || remaining > burst)
    return undefined;
  const k = limit - remaining;
  if (k === 1) return { lo: (reset - 1) * 1000, hi: reset * 1000 };
  return { lo: ((reset - 1) * 1000) / k, hi: (reset * 1000) / (k - 1) };
}

/** Intersection of every accepted answer's interval; when they disagree, the one with most leverage. */
export function coarseT(inputs: readonly ReplayInput[], limit: number): Interval | undefined {
  let acc: Interval | undefined;
  let lever: { k: number; iv: Interval } | undefined;
  let disagree = false;
  for (const x of inputs) {
    if (x.outcome !== 'accepted' || x.remaining === undefined || x.reset === undefined) continue;
    const iv = tFromAnswer(x.remaining, x.reset, limit);
    if (!iv) continue;
    const k = limit - x.remaining;
    if (!lever || k > lever.k) lever = { k, iv };
    if (disagree) continue;
    const lo = Math.max(acc?.lo ?? iv.lo, iv.lo);
    const hi = Math.min(acc?.hi ?? iv.hi, iv.hi);
    if (lo > hi) disagree = true;
    else acc = { lo, hi };
  }
  return disagree ? lever?.iv : acc;
}

interface KindSet {
  method: EstimateMethod;
  kinds: ViolationKind[];
  trust: NonNullable<ReplayOptions['trust']>;
}

const KIND_SETS: KindSet[] = [
  {
    method: 'all-headers',
    kinds: ['status', 'remaining', 'reset', 'retry-after'],
    trust: { remaining: true, reset: true, retryAfter: true },
  },
  {
    method: 'remaining-only',
    kinds: ['status', 'remaining'],
    trust: { remaining: true, reset: false, retryAfter: false },
  },
  {
    method: 'reset-only',
    kinds: ['status', 'reset', 'retry-after'],
    trust: { remaining: false, reset: true, retryAfter: true },
  },
];

/** Where T can be at all: 10 ms (360 000/h) to 60 s (60/h). */
export const T_RANGE: Interval = { lo: 10, hi: 60_000 };

export interface EstimateOptions {
  start: ReplayOptions['start'];
  /** Grid points per pass (default 161); fewer for quick online estimates. */
  points?: number;
}

interface Pass {
  ts: number[];
  /** Indexes of the grid points with no unexplained answer, and of the point with fewest. */
  feasible: number[];
  best: number;
  bestCount: number;
}

export function estimateEmissionInterval(
  inputs: readonly ReplayInput[],
  limit: number,
  opts: EstimateOptions,
): EmissionEstimate | undefined {
  if (!inputs.some((x) => x.outcome === 'accepted' || x.outcome === 'denied')) return undefined;
  const points = opts.points ?? 161;
  let evaluations = 0;
  /**
   * Unexplained answers at T = t, counted up to `atMost`: a pass needs a point's exact count only
   * while it is below the best so far (or zero), so a point stops replaying once it cannot be either.
   */
  const violationsAt = (t: number, set: KindSet, atMost: number): number => {
    evaluations++;
    let n = 0;
    replay(inputs, { limit, T: { lo: t, hi: t }, start: opts.start, trust: set.trust }, (s) => {
      for (const v of s.violations) if (set.kinds.includes(v.kind)) n++;
      return n >= atMost;
    });
    return n;
  };
  const scan = (ts: number[], set: KindSet): Pass => {
    const pass: Pass = { ts, feasible: [], best: 0, bestCount: Infinity };
    ts.forEach((t, i) => {
      const n = violationsAt(t, set, Math.max(pass.bestCount, 1));
      if (n === 0) pass.feasible.push(i);
      if (n < pass.bestCount) Object.assign(pass, { best: i, bestCount: n });
    });
    return pass;
  };
  const linear = (w: Interval) => Array.from({ length: points }, (_, i) => w.lo + ((w.hi - w.lo) * i) / (points - 1));
  const logarithmic = (w: Interval) =>
    Array.from({ length: points }, (_, i) => w.lo * Math.pow(w.hi / w.lo, i / (points - 1)));
  /** The grid points either side of indexes i..j: the interval a finer pass must cover. */
  const around = (p: Pass, i: number, j: number): Interval => ({
    lo: p.ts[Math.max(i - 1, 0)]!,
    hi: p.ts[Math.min(j + 1, p.ts.length - 1)]!,
  });

  // A consistent band can be narrower than one grid step, so a pass without a feasible point zooms
  // in around its best point a few times before giving up on that set of headers.
  const search = (first: number[], set: KindSet) => {
    let pass = scan(first, set);
    const best = { t: pass.ts[pass.best]!, n: pass.bestCount };
    for (let zoom = 0; zoom < 4 && pass.feasible.length === 0; zoom++)
      pass = scan(linear(around(pass, pass.best, pass.best)), set);
    if (pass.feasible.length === 0) return { best };
    const fine = scan(linear(around(pass, pass.feasible[0]!, pass.feasible[pass.feasible.length - 1]!)), set);
    const use = fine.feasible.length ? fine : pass;
    // The band's true edges lie between the outermost feasible points and their neighbours.
    const band = around(use, use.feasible[0]!, use.feasible[use.feasible.length - 1]!);
    return { best, band };
  };

  const coarse = coarseT(inputs, limit);
  let fallbackBest: { t: number; n: number } | undefined;
  for (const set of KIND_SETS) {
    // All headers: around what each answer says on its own. A broken header makes that useless,
    // so the single-header sets search the whole range of T on a logarithmic grid.
    const first =
      set.method === 'all-headers' && coarse
        ? linear({ lo: Math.max(coarse.lo * 0.9, 1), hi: Math.max(coarse.hi * 1.1, coarse.lo + 1) })
        : logarithmic(T_RANGE);
    let found = search(first, set);
    if (!found.band && set.method === 'all-headers' && coarse) found = search(logarithmic(T_RANGE), set);
    if (set.method === 'all-headers') fallbackBest = found.best;
    if (!found.band) continue;
    return {
      emissionIntervalMs: (found.band.lo + found.band.hi) / 2,
      band: found.band,
      uncertaintyMs: (found.band.hi - found.band.lo) / 2,
      method: set.method,
      consistent: set.method === 'all-headers',
      unexplained: set.method === 'all-headers' ? 0 : (fallbackBest?.n ?? 0),
      evaluations,
    };
  }
  const band = coarse ?? T_RANGE;
  return {
    emissionIntervalMs: (band.lo + band.hi) / 2,
    band,
    uncertaintyMs: (band.hi - band.lo) / 2,
    method: 'coarse',
    consistent: false,
    unexplained: fallbackBest?.n ?? 0,
    evaluations,
  };
}
