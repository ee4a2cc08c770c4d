// Who refused a request: the limiter or the proxy in front of it. The evidence is the answer
// itself and the quota: the limiter's answers carry X-RateLimit-* headers; a proxy knows nothing
// of the limiter, so a headerless refusal while quota remains is the proxy's (RL-13). A proxy may
// enforce the per-second cap strictly, as a least spacing between forwarded requests (nginx
// `limit_req rate=20r/s` without burst refuses anything under 50 ms after the last forwarded one):
// its refusals teach the probes the spacing to keep, with a margin.
import { SPACING_MARGIN, spacedGapMs } from '../../src/pacing.js';
import type { Sample } from '../sample.js';

const is2xx = (s: Sample) => s.status !== undefined && s.status >= 200 && s.status < 300;

/** Carries any of the limiter's three headers (retry-after alone is no proof: proxies send it too). */
export const hasLimiterHeaders = (s: Sample): boolean =>
  s.rl.raw.limit !== undefined || s.rl.raw.remaining !== undefined || s.rl.raw.reset !== undefined;

/** A non-2xx answer without the limiter's headers: the proxy's, or a limiter that strips them. */
export const headerlessRefusal = (s: Sample): boolean => s.status !== undefined && !is2xx(s) && !hasLimiterHeaders(s);

/** Went on to the limiter as far as the answer shows (2xx, or a refusal with its headers). */
const forwarded = (s: Sample) => is2xx(s) || (s.status !== undefined && hasLimiterHeaders(s));

/**
 * Quota the client knew was left when it sent s: the freshest limiter answer received before,
 * less every request that may have used quota since (sent before s's answer, answered after that
 * one was sent). Undefined when no answer said.
 */
export function quotaKnownLeft(samples: readonly Sample[], s: Sample): number | undefined {
  let prev: Sample | undefined;
  for (const x of samples)
    if (
      x !== s &&
      forwarded(x) &&
      x.rl.remaining !== undefined &&
      x.receivedAt <= s.sentAt &&
      (!prev || x.receivedAt > prev.receivedAt)
    )
      prev = x;
  if (!prev) return undefined;
  const between = samples.filter(
    (x) => x !== s && x !== prev && x.sentAt < s.receivedAt && x.receivedAt > prev!.sentAt && !headerlessRefusal(x),
  ).length;
  return prev.rl.remaining! - between;
}

/**
 * Some request of `these` was refused without the limiter's headers while fewer than the cap can
 * have been let through in the second before it: no count of a second's requests refused it, so
 * the proxy spaces them (nginx `limit_req` without burst). A sliding or calendar count refuses only
 * once it holds the cap.
 */
export function spacesRequests(samples: readonly Sample[], these: readonly Sample[], cap: number): boolean {
  return these.some(
    (s) =>
      headerlessRefusal(s) &&
      samples.filter((x) => x !== s && forwarded(x) && x.sentAt < s.receivedAt && x.receivedAt > s.sentAt - 1000)
        .length < cap,
  );
}

/** Time since the last request sent before s that went on to the limiter, ms (Infinity if none). */
export function gapSinceForwarded(samples: readonly Sample[], s: Sample): number {
  let last = -Infinity;
  for (const x of samples)
    if (x !== s && x.sentAt <= s.sentAt && x.seq < s.seq && !headerlessRefusal(x)) last = Math.max(last, x.sentAt);
  return s.sentAt - last;
}

/**
 * Time that surely passed at the proxy between the last forwarded request sent before s and s:
 * s left at sentAt, that one had arrived by its receivedAt. A lower bound on the gap the proxy saw,
 * so a refusal never teaches a spacing wider than it showed (a late answer would, with send times).
 */
export function surelyElapsedSinceForwarded(samples: readonly Sample[], s: Sample): number {
  let last = -Infinity;
  for (const x of samples) if (x !== s && x.seq < s.seq && !headerlessRefusal(x)) last = Math.max(last, x.receivedAt);
  return s.sentAt - last;
}

/** How far above what the proxy refused the pacing stays: relative, plus a fixed allowance for jitter (src/pacing.ts). */
export { SPACING_MARGIN };

export interface SpacingSummary {
  /** Refusals the proxy made for spacing (headerless, quota left, fewer than the cap in the second before). */
  refusals: number;
  /** The widest gap that surely passed after a forwarded request and that the proxy still refused, ms. */
  refusedGapMs?: number;
  /** The least gap the probes keep between sends once the proxy has refused one, ms (0: none learned). */
  gapMs: number;
}

/**
 * The least gap that keeps a strict-spacing proxy from refusing: above the widest refused gap and
 * at least one cap interval (a cap of 20 a second spaced evenly is 50 ms), with the margin.
 */
export function pacingGapMs(refusedGapMs: number | undefined, cap: number): number {
  if (refusedGapMs === undefined) return 0;
  return spacedGapMs(cap, refusedGapMs);
}

/** What the proxy's refusals among these samples say about its spacing. `proxyRefusal` says which refusals were the proxy's for spacing. */
export function summarizeSpacing(
  samples: readonly Sample[],
  cap: number,
  spacingRefusal: (s: Sample) => boolean,
): SpacingSummary {
  let refusals = 0;
  let refusedGapMs: number | undefined;
  for (const s of samples) {
    if (!spacingRefusal(s)) continue;
    refusals++;
    const gap = surelyElapsedSinceForwarded(samples, s);
    if (Number.isFinite(gap)) refusedGapMs = Math.max(refusedGapMs ?? 0, gap);
  }
  return { refusals, refusedGapMs, gapMs: pacingGapMs(refusedGapMs, cap) };
}

/**
 * Online: learns the proxy's spacing from each answer as it comes in. A headerless refusal while the
 * last limiter answer said quota remains, with fewer than the cap sent in the second before, was
 * refused for spacing; its gap after the last forwarded request is a lower bound on the spacing.
 */
export class ProxySpacing {
  private refusedGapMs: number | undefined;
  refusals = 0;

  constructor(readonly cap: number) {}

  /** The least gap between sends the probes keep from now on, ms (0 until the proxy refused for spacing). */
  get gapMs(): number {
    return pacingGapMs(this.refusedGapMs, this.cap);
  }

  /** Takes in one answer; true when it was a proxy refusal for spacing (the gap may have grown). */
  observe(samples: readonly Sample[], s: Sample): boolean {
    if (!headerlessRefusal(s)) return false;
    const left = quotaKnownLeft(samples, s);
    if (left === undefined || left <= 0) return false;
    const sentBefore = samples.filter(
      (x) => x !== s && !headerlessRefusal(x) && x.sentAt > s.receivedAt - 1000 && x.sentAt <= s.sentAt,
    ).length;
    if (sentBefore >= this.cap) return false;
    this.refusals++;
    const gap = surelyElapsedSinceForwarded(samples, s);
    if (Number.isFinite(gap)) this.refusedGapMs = Math.max(this.refusedGapMs ?? 0, gap);
    return true;
  }

  summary(): SpacingSummary {
    return { refusals: this.refusals, refusedGapMs: this.refusedGapMs, gapMs: this.gapMs };
  }
}
