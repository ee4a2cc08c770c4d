// Pacing statistics: how late scheduled requests actually left.
import type { PacingStats } from './types.js';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export class PacingRecorder {
  private readonly lateness: number[] = [];

  add(scheduledAt: number, sentAt: number): void {
    this.lateness.push(sentAt - scheduledAt);
  }

  stats(): PacingStats {
    const s = [...this.lateness].sort((a, b) => a - b);
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return { count: s.length, p50Ms: round(percentile(s, 50)), p99Ms: round(percentile(s, 99)), maxMs: round(s[s.length - 1] ?? 0) };
  }
}
