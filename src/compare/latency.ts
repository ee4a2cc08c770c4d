// CMP-12: how long each side's requests took on the network (sent to answered: the recorder's
// durationMs), per family of the catalogue, as a median and a 95th percentile. An exchange that
// several checks rest on counts once.
import { FAMILY_NAMES, familyOf, isRuleId } from '../rules/catalogue.js';
import type { CheckResult } from '../verdict.js';
import type { FamilyLatency, Found, LatencyFigures } from './types.js';
import { LATENCY } from './rules.js';

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number | undefined {
  if (!sorted.length) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms * 10) / 10);

/** Each family's request times of a run. */
export function latencyOf(checks: Iterable<CheckResult>): Map<string, LatencyFigures> {
  const byFamily = new Map<string, Map<string, number>>();
  for (const c of checks) {
    if (!isRuleId(c.rule)) continue;
    const family = familyOf(c.rule);
    const seen = byFamily.get(family) ?? new Map<string, number>();
    byFamily.set(family, seen);
    for (const x of c.evidence?.exchanges ?? []) {
      if (typeof x.durationMs !== 'number' || !Number.isFinite(x.durationMs) || x.status === undefined) continue;
      seen.set(`${x.seq}\u0000${x.sentAt}\u0000${x.method}\u0000${x.url}`, x.durationMs);
    }
  }
  const out = new Map<string, LatencyFigures>();
  for (const [family, times] of byFamily) {
    const sorted = [...times.values()].sort((x, y) => x - y);
    if (!sorted.length) continue;
    out.set(family, {
      requests: sorted.length,
      medianMs: round(percentile(sorted, 50)),
      p95Ms: round(percentile(sorted, 95)),
    });
  }
  return out;
}

/** Whether two figures differ by CMP-12: the slower more than FACTOR times the faster and more than the margin slower. */
const differs = (x: number, y: number, marginMs: number) =>
  Math.max(x, y) > LATENCY.factor * Math.min(x, y) && Math.abs(x - y) > marginMs;

export function diffLatency(
  a: Iterable<CheckResult>,
  b: Iterable<CheckResult>,
  emit: (f: Found) => void,
): FamilyLatency[] {
  const la = latencyOf(a);
  const lb = latencyOf(b);
  const rows: FamilyLatency[] = [];
  for (const family of FAMILY_NAMES) {
    const fa = la.get(family);
    const fb = lb.get(family);
    if (!fa || !fb) continue;
    rows.push({ family, a: fa, b: fb });
    const put = (key: string, x: number, y: number) =>
      emit({ kind: 'latency', cmp: 'CMP-12', key: `${family}: ${key}`, a: x, b: y });
    const requests = Math.min(fa.requests, fb.requests);
    const [ma, mb, pa, pb] = [fa.medianMs, fb.medianMs, fa.p95Ms, fb.p95Ms];
    if (
      requests >= LATENCY.medianMinRequests &&
      ma !== undefined &&
      mb !== undefined &&
      differs(ma, mb, LATENCY.medianMarginMs)
    )
      put('median (ms)', ma, mb);
    if (
      requests >= LATENCY.p95MinRequests &&
      pa !== undefined &&
      pb !== undefined &&
      differs(pa, pb, LATENCY.p95MarginMs)
    )
      put('95th percentile (ms)', pa, pb);
  }
  return rows;
}
