// The limiter section of index.html: what the rate-limit probes saw (timeline) against what the
// GCRA model predicted, and the estimated parameters.
import type { LimiterEstimates } from '../src/results.js';
import type { TimelineEntry } from '../src/run/types.js';
import { renderChart, type Bar, type Point } from './svg.js';
import { brief, esc, formatDuration, safeRelativeHref } from './text.js';

const accepted = (e: TimelineEntry) => e.status !== undefined && e.status >= 200 && e.status < 300;
const limited = (e: TimelineEntry) => e.status === 429;
/** When the headers were seen: the response's arrival (s), else the send time. */
const seenAt = (e: TimelineEntry) => (e.receivedAt ?? e.sentAt) / 1000;

function pointsOf(entries: readonly TimelineEntry[], pick: (e: TimelineEntry) => number | undefined): Point[] {
  const out: Point[] = [];
  for (const e of entries) {
    const y = pick(e);
    if (typeof y === 'number' && Number.isFinite(y)) out.push([seenAt(e), y]);
  }
  return out;
}

/** Accepted, limited (429) and other answers per second of send time, stacked. */
function perSecondBars(entries: readonly TimelineEntry[]): { accepted: Bar[]; limited: Bar[]; other: Bar[] } {
  const buckets = new Map<number, [number, number, number]>();
  for (const e of entries) {
    const k = Math.floor(e.sentAt / 1000);
    const b = buckets.get(k) ?? [0, 0, 0];
    b[accepted(e) ? 0 : limited(e) ? 1 : 2]++;
    buckets.set(k, b);
  }
  const out = { accepted: [] as Bar[], limited: [] as Bar[], other: [] as Bar[] };
  for (const [k, [a, l, o]] of [...buckets].sort((x, y) => x[0] - y[0])) {
    const x0 = k + 0.08;
    const x1 = k + 0.92;
    if (a) out.accepted.push({ x0, x1, y0: 0, y1: a });
    if (l) out.limited.push({ x0, x1, y0: a, y1: a + l });
    if (o) out.other.push({ x0, x1, y0: a + l, y1: a + l + o });
  }
  return out;
}

/** The charts that set what the probes saw against what the GCRA model predicted, per request. */
const VERSUS_MODEL: readonly {
  id: string;
  title: string;
  yLabel: string;
  observed: (e: TimelineEntry) => number | undefined;
  predicted: (e: TimelineEntry) => number | undefined;
  predictedDraw: 'line' | 'markers';
  emptyNote: string;
}[] = [
  {
    id: 'remaining',
    title: 'X-RateLimit-Remaining over time: observed vs the model',
    yLabel: 'Remaining',
    observed: (e) => e.remaining,
    predicted: (e) => e.predicted?.remaining,
    predictedDraw: 'line',
    emptyNote: 'no response carried X-RateLimit-Remaining',
  },
  {
    id: 'reset',
    title: 'X-RateLimit-Reset over time: observed vs the model',
    yLabel: 'Reset (s)',
    observed: (e) => e.reset,
    predicted: (e) => e.predicted?.reset,
    predictedDraw: 'line',
    emptyNote: 'no response carried X-RateLimit-Reset',
  },
  {
    // Only denials carry retry-after, so these are points, not a line.
    id: 'retry-after',
    title: 'retry-after on 429 answers: observed vs the model',
    yLabel: 'retry-after (s)',
    observed: (e) => e.retryAfter,
    predicted: (e) => e.predicted?.retryAfter,
    predictedDraw: 'markers',
    emptyNote: 'no answer carried retry-after',
  },
];

export function limiterCharts(timeline: readonly TimelineEntry[], limiter: LimiterEstimates | null): string {
  const sorted = [...timeline].sort((a, b) => a.sentAt - b.sentAt);
  const bars = perSecondBars(sorted);
  const limitLine = limiter && limiter.limit > 0 ? [{ y: limiter.limit, label: `Limit ${limiter.limit}`, cls: 'ref' }] : [];
  const capLine = limiter && limiter.perSecondCap > 0 ? [{ y: limiter.perSecondCap, label: `cap ${limiter.perSecondCap}/s`, cls: 'cap' }] : [];
  // One time axis for all four charts, so a moment lines up across them.
  const xDomain: [number, number] = [
    Math.floor(sorted.reduce((m, e) => Math.min(m, e.sentAt), Infinity) / 1000),
    Math.ceil(sorted.reduce((m, e) => Math.max(m, e.receivedAt ?? e.sentAt), -Infinity) / 1000),
  ];
  const axis = sorted.length ? { xDomain } : {};
  const versus = VERSUS_MODEL.map((c) =>
    renderChart({
      id: c.id,
      title: c.title,
      xLabel: 'time since the probes started (s)',
      yLabel: c.yLabel,
      lines: [
        { name: 'predicted', cls: 'predicted', draw: c.predictedDraw, points: pointsOf(sorted, c.predicted) },
        { name: 'observed', cls: 'observed', draw: 'markers', points: pointsOf(sorted, c.observed) },
      ],
      hLines: c.id === 'remaining' ? limitLine : [],
      emptyNote: c.emptyNote,
      ...axis,
    }),
  );
  const rate = renderChart({
    id: 'rate',
    title: 'Requests per second (by send time): accepted vs rejected, against the per-second cap',
    xLabel: 'time since the probes started (s), bars per second',
    yLabel: 'requests',
    bars: [
      { name: 'accepted (2xx)', cls: 'accepted', bars: bars.accepted },
      { name: 'rejected (429)', cls: 'limited', bars: bars.limited },
      { name: 'other status or no answer', cls: 'other', bars: bars.other },
    ],
    hLines: capLine,
    emptyNote: 'no probe requests',
    ...axis,
  });
  // Remaining and Reset side by side, then the rate and retry-after.
  return [versus[0], versus[1], rate, versus[2]].join('');
}

const KNOWN: readonly [keyof LimiterEstimates & string, string, (v: number) => string][] = [
  ['limit', 'Limit (X-RateLimit-Limit)', String],
  ['burst', 'Burst (Limit - 1)', String],
  ['emissionIntervalMs', 'T, the emission interval', (v) => `${v} ms (${v > 0 ? Math.round(3_600_000 / v) : '-'} requests/hour)`],
  ['perSecondCap', 'Per-second cap', (v) => `${v} requests/s`],
  ['requestsSent', 'Requests sent', String],
  ['durationMs', 'Duration', (v) => formatDuration(v)],
];

/**
 * Where the probes may put a ± value (in the field's own unit): `uncertainty: { emissionIntervalMs: 40 }`,
 * or beside the field as `<field>Uncertainty` / `<name>UncertaintyMs`; `uncertaintyMs` alone is T's.
 */
function uncertaintyKeys(key: string): string[] {
  const keys = [`${key}Uncertainty`, `${key.replace(/Ms$/, '')}UncertaintyMs`];
  return key === 'emissionIntervalMs' ? [...keys, 'uncertaintyMs'] : keys;
}

function uncertaintyOf(limiter: LimiterEstimates, key: string): number | undefined {
  const u = limiter.uncertainty;
  const candidates = [u && typeof u === 'object' ? (u as Record<string, unknown>)[key] : undefined, ...uncertaintyKeys(key).map((k) => limiter[k])];
  return candidates.find((v): v is number => typeof v === 'number' && Number.isFinite(v));
}

function parametersTable(limiter: LimiterEstimates | null, timeline: readonly TimelineEntry[]): string {
  const rows: string[] = [];
  if (limiter) {
    for (const [key, label, fmt] of KNOWN) {
      const v = limiter[key];
      const u = uncertaintyOf(limiter, key);
      const shown = typeof v === 'number' ? fmt(v) : brief(v);
      rows.push(`<tr data-param="${esc(key)}"><th>${esc(label)}</th><td>${esc(shown)}</td><td>${u === undefined ? '' : `± ${esc(u)}`}</td></tr>`);
    }
    const known = new Set<string>([...KNOWN.flatMap(([k]) => [k, ...uncertaintyKeys(k)]), 'uncertainty']);
    for (const [key, v] of Object.entries(limiter)) {
      if (known.has(key)) continue;
      const u = uncertaintyOf(limiter, key);
      rows.push(`<tr data-param="${esc(key)}"><th>${esc(key)}</th><td>${esc(typeof v === 'number' || typeof v === 'string' ? String(v) : brief(v, 400))}</td><td>${u === undefined ? '' : `± ${esc(u)}`}</td></tr>`);
    }
  } else {
    rows.push('<tr><td colspan="3">The probes gave no estimates (see the RL checks).</td></tr>');
  }
  const modelled = timeline.filter((e) => e.predicted !== undefined && e.status !== undefined);
  const disagreed = modelled.filter((e) => e.predicted!.accepted !== accepted(e)).length;
  if (modelled.length)
    rows.push(`<tr data-param="model-disagreements"><th>Requests where the model predicted the other outcome</th><td>${disagreed} of ${modelled.length}</td><td></td></tr>`);
  return `<table class="params"><thead><tr><th>estimate</th><th>value</th><th>uncertainty</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function probesTable(timeline: readonly TimelineEntry[]): string {
  const byProbe = new Map<string, TimelineEntry[]>();
  for (const e of timeline) {
    const list = byProbe.get(e.probe);
    if (list) list.push(e);
    else byProbe.set(e.probe, [e]);
  }
  if (!byProbe.size) return '';
  const rows = [...byProbe].map(([probe, es]) => {
    const start = es.reduce((m, e) => Math.min(m, e.sentAt), Infinity);
    const end = es.reduce((m, e) => Math.max(m, e.receivedAt ?? e.sentAt), -Infinity);
    const a = es.filter(accepted).length;
    const l = es.filter(limited).length;
    return `<tr data-probe="${esc(probe)}"><td>${esc(probe)}</td><td>${es.length}</td><td>${a}</td><td>${l}</td><td>${es.length - a - l}</td><td>${esc((start / 1000).toFixed(1))}–${esc((end / 1000).toFixed(1))} s</td></tr>`;
  });
  return `<table class="probes"><thead><tr><th>probe</th><th>requests</th><th>accepted</th><th>429</th><th>other</th><th>time</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function limiterSection(limiter: LimiterEstimates | null, timeline: readonly TimelineEntry[], timelineHref: string): string {
  const href = safeRelativeHref(timelineHref) ?? 'timeline.json';
  return `<section id="limiter" data-limiter="${limiter ? 'estimated' : 'none'}">
<h2>Rate limiter</h2>
<p>Estimated from the rate-limit probes' ${timeline.length} requests. Raw data: <a href="${esc(href)}" data-link="timeline">timeline.json</a>.</p>
<div class="limiter-grid"><div>${parametersTable(limiter, timeline)}${probesTable(timeline)}</div></div>
<div class="charts">${limiterCharts(timeline, limiter)}</div>
</section>`;
}
