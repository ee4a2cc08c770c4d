// Pacing statistics: how late scheduled requests actually left.
import type { PacingStats } from './types.js';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export class PacingRecorder {
  private readonly lateness: number[] = [];
  private gapped = { count: 0, minSlackMs: Infinity, minGapMs: Infinity };

  add(scheduledAt: number, sentAt: number): void {
    this.lateness.push(sentAt - scheduledAt);
  }

  /** A send held for a least gap after the previous one: the gap it got, and the one asked for. */
  addGap(actualMs: number, askedMs: number): void {
    const g = this.gapped;
    g.count++;
    g.minSlackMs = Math.min(g.minSlackMs, actualMs - askedMs);
    g.minGapMs = Math.min(g.minGapMs, actualMs);
  }

  stats(): PacingStats {
    const s = [...this.lateness].sort((a, b) => a - b);
    const round = (v: number) => Math.round(v * 1000) / 1000;
    const g = this.gapped;
    const gapped = g.count
      ? { gapped: { count: g.count, minSlackMs: round(g.minSlackMs), minGapMs: round(g.minGapMs) } }
      : {};
    return {
      count: s.length,
      p50Ms: round(percentile(s, 50)),
      p99Ms: round(percentile(s, 99)),
      maxMs: round(s[s.length - 1] ?? 0),
      ...gapped,
    };
  }
}
