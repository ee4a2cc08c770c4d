// The limiter section of index.html: what the rate-limit probes saw (timeline) against what the
// GCRA model predicted, and the estimated parameters.
import { is2xx as accepted } from '../src/http/status.js';
import type { LimiterEstimates } from '../src/results.js';
import type { TimelineEntry } from '../src/stages.js';
import { renderChart, type Bar, type Point } from './svg.js';
import { esc, formatDuration, safeRelativeHref } from './text.js';
import { humanKey, num, words } from './words.js';

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
  const limitLine =
    limiter && limiter.limit > 0 ? [{ y: limiter.limit, label: `Limit ${limiter.limit}`, cls: 'ref' }] : [];
  const capLine =
    limiter && limiter.perSecondCap > 0
      ? [{ y: limiter.perSecondCap, label: `cap ${limiter.perSecondCap}/s`, cls: 'cap' }]
      : [];
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

/** One figure of the limiter block: how it reads, in which unit, and what it means. */
interface Figure {
  key: string;
  label: string;
  /** The value in words with its unit; undefined hides the row (nothing to say). */
  show: (v: unknown, l: LimiterEstimates) => string | undefined;
  explain: string;
  /** Unit of its ± value. */
  unit?: string;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const count = (unit: string) => (v: unknown) => (isNum(v) ? `${num(v)} ${unit}` : words(v));
const msText = (v: number) => `${num(v)} ms`;
const perHour = (t: number) => (t > 0 ? `${num(Math.round(3_600_000 / t))} requests/hour` : 'no rate');
const oneOf = (table: Record<string, string>) => (v: unknown) => (typeof v === 'string' ? (table[v] ?? v) : words(v));

const FIGURES: readonly Figure[] = [
  {
    key: 'limit',
    label: 'Limit',
    show: count('requests'),
    explain: 'X-RateLimit-Limit as the node sends it: the size of a full quota.',
    unit: 'requests',
  },
  {
    key: 'burst',
    label: 'Burst',
    show: count('requests'),
    explain: 'Limit − 1: the requests a full quota takes back to back after the first one.',
    unit: 'requests',
  },
  {
    key: 'emissionIntervalMs',
    label: 'Emission interval T (estimated)',
    show: (v) => (isNum(v) ? `${msText(v)} (${perHour(v)})` : words(v)),
    explain: 'The time one request of quota takes to come back; the hourly rate is one hour divided by T.',
    unit: 'ms',
  },
  {
    key: 'emissionIntervalBandMs',
    label: 'T the responses allow',
    show: (v) => {
      const b = v as { lo?: unknown; hi?: unknown } | null;
      return b && isNum(b.lo) && isNum(b.hi) ? `${num(b.lo)} – ${num(b.hi)} ms` : undefined;
    },
    explain: 'Every T in this range explains every status and header the probes saw.',
  },
  {
    key: 'expectedEmissionIntervalMs',
    label: 'Expected T',
    show: (v, l) =>
      isNum(v)
        ? `${msText(v)}${isNum(l.hourlyLimit) ? ` (one hour / ${num(l.hourlyLimit)} requests)` : ''}`
        : undefined,
    explain: "One hour divided by the plan's hourly limit: what RL-09 compares the estimate with.",
  },
  {
    key: 'emissionIntervalTolerance',
    label: 'Tolerance on T',
    show: (v) => (isNum(v) ? `± ${num(v * 100)} %` : undefined),
    explain: 'How far the estimated T may be from the expected T before RL-09 fails.',
  },
  {
    key: 'estimateMethod',
    label: 'T estimated from',
    show: oneOf({
      'all-headers': 'status, Remaining, Reset and retry-after of every response',
      'remaining-only': 'status and Remaining (Reset and retry-after did not fit)',
      'reset-only': 'status, Reset and retry-after (Remaining did not fit)',
      coarse: 'statuses only (a coarse estimate)',
    }),
    explain: 'Which parts of the responses the estimate of T rests on.',
  },
  {
    key: 'modelConsistent',
    label: 'One limiter explains every response',
    show: (v) => words(v),
    explain: 'Whether a single GCRA limiter with these figures reproduces every status and header seen.',
  },
  {
    key: 'verdictEmissionIntervalSource',
    label: 'T the verdicts use',
    show: oneOf({ estimate: 'the estimate above', declared: "the expected T (from the plan's hourly limit)" }),
    explain: 'Which T the rate-limit checks judged the headers against.',
  },
  {
    key: 'perSecondCap',
    label: 'Per-second cap',
    show: count('requests/s'),
    explain: "The proxy's limit on requests per second (RL-10).",
    unit: 'requests/s',
  },
  {
    key: 'perSecondCapSource',
    label: 'Per-second cap from',
    show: (v) => words(v),
    explain: 'Where the cap figure above comes from.',
  },
  {
    key: 'declaredPerSecondCap',
    label: 'Per-second cap in the target file',
    show: count('requests/s'),
    explain: 'The cap the target file states for this node.',
  },
  {
    key: 'capRejectionsUseQuota',
    label: 'Cap refusals use quota',
    show: oneOf({
      yes: 'yes',
      no: 'no',
      undetermined: 'undetermined: the responses fit both',
      'not-seen': 'not seen: no request was refused by the cap',
    }),
    explain:
      'Whether a request the per-second cap refuses still takes a unit of the hourly quota (the description leaves it open).',
  },
  {
    key: 'customer',
    label: 'Plan',
    show: oneOf({ dedicated: 'dedicated node', shared: 'shared node' }),
    explain: 'The customer plan the expected hourly limit comes from.',
  },
  {
    key: 'hourlyLimit',
    label: 'Hourly limit of the plan',
    show: count('requests/hour'),
    explain: 'Requests per hour the plan allows.',
  },
  {
    key: 'requestsSent',
    label: 'Requests sent',
    show: count('requests'),
    explain: 'What the probes sent, all phases together.',
  },
  {
    key: 'durationMs',
    label: 'Probe time',
    show: (v) => (isNum(v) ? formatDuration(v) : words(v)),
    explain: 'From the first probe request to the last answer.',
  },
  {
    key: 'unknown',
    label: 'Not estimated',
    show: (v) =>
      Array.isArray(v) && v.length
        ? v
            .map((x) =>
              x === 'limit'
                ? 'Limit (no response carried X-RateLimit-Limit)'
                : x === 'emissionIntervalMs'
                  ? 'T (the responses did not pin it down)'
                  : words(x),
            )
            .join('; ')
        : undefined,
    explain: 'Figures the probes could not estimate; checks that need them report error.',
  },
  {
    key: 'engine',
    label: 'Load engine',
    show: oneOf({ node: 'Node.js (undici)', k6: 'k6' }),
    explain: 'What sent the probe requests.',
  },
  {
    key: 'pacing',
    label: 'Send delay',
    show: (v) => {
      const p = v as { count?: unknown; p50Ms?: unknown; p99Ms?: unknown; maxMs?: unknown } | null;
      if (!p || !isNum(p.count)) return undefined;
      const ms = (v: unknown) => (isNum(v) ? msText(v) : '-');
      return `median ${ms(p.p50Ms)}, 99th percentile ${ms(p.p99Ms)}, at most ${ms(p.maxMs)} (${num(p.count)} timed sends)`;
    },
    explain: 'How late requests left compared with their planned send time; long delays blur the timing checks.',
  },
];

/** Fields shown elsewhere: as a figure's ± or in the phases and integrity tables. */
const SHOWN_ELSEWHERE = new Set(['uncertainty', 'phases', 'integrity']);

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
  const candidates = [
    u && typeof u === 'object' ? (u as Record<string, unknown>)[key] : undefined,
    ...uncertaintyKeys(key).map((k) => limiter[k]),
  ];
  return candidates.find((v): v is number => typeof v === 'number' && Number.isFinite(v));
}

const row = (key: string, label: string, value: string, plusMinus: string, explain: string) =>
  `<tr data-param="${esc(key)}"><th>${esc(label)}</th><td>${esc(value)}</td><td>${esc(plusMinus)}</td><td class="explain">${esc(explain)}</td></tr>`;

/** A table in a horizontally scrolling box: its class, its column headings (plain text) and its rows. */
const scrollTable = (cls: string, headings: readonly string[], rows: readonly string[]) =>
  `<div class="scroll"><table class="${cls}"><thead><tr>${headings.map((h) => `<th>${h}</th>`).join('')}</tr></thead>` +
  `<tbody>${rows.join('')}</tbody></table></div>`;

function parametersTable(limiter: LimiterEstimates | null, timeline: readonly TimelineEntry[]): string {
  const rows: string[] = [];
  if (limiter) {
    const known = new Set<string>(SHOWN_ELSEWHERE);
    for (const f of FIGURES) {
      known.add(f.key);
      for (const k of uncertaintyKeys(f.key)) known.add(k);
      if (!(f.key in limiter)) continue;
      const shown = f.show(limiter[f.key], limiter);
      if (shown === undefined) continue;
      const u = uncertaintyOf(limiter, f.key);
      rows.push(
        row(f.key, f.label, shown, u === undefined ? '' : `± ${num(u)}${f.unit ? ` ${f.unit}` : ''}`, f.explain),
      );
    }
    // Fields this page does not know yet: still in words, never as raw JSON.
    for (const [key, v] of Object.entries(limiter)) {
      if (known.has(key)) continue;
      const h = humanKey(key);
      const u = uncertaintyOf(limiter, key);
      rows.push(
        row(
          key,
          h.label.charAt(0).toUpperCase() + h.label.slice(1),
          words(v, h.unit),
          u === undefined ? '' : `± ${num(u)}${h.unit ? ` ${h.unit}` : ''}`,
          'As the probes report it (see results.json).',
        ),
      );
    }
  } else {
    rows.push('<tr><td colspan="4">The probes gave no estimates (see the RL checks).</td></tr>');
  }
  const modelled = timeline.filter((e) => e.predicted !== undefined && e.status !== undefined);
  const disagreed = modelled.filter((e) => e.predicted!.accepted !== accepted(e)).length;
  if (modelled.length)
    rows.push(
      row(
        'model-disagreements',
        'Requests the model called the other way',
        `${disagreed} of ${modelled.length} (${num((100 * disagreed) / modelled.length)} %)`,
        '',
        'Answers (accepted or 429) other than the model predicted from the send times and the estimate. ' +
          'At the accept/deny edge network delay decides, so some occur on a conformant service; ' +
          'the RL checks judge with stated tolerances, not by this count.',
      ),
    );
  return scrollTable('params', ['figure', 'value', 'uncertainty', 'what it means'], rows);
}

/** The probes' phases (results.json limiter.phases): when each ran and how many requests it sent. */
function phasesTable(limiter: LimiterEstimates | null): string {
  const phases = Array.isArray(limiter?.phases) ? (limiter!.phases as Record<string, unknown>[]) : [];
  if (!phases.length) return '';
  const sec = (v: unknown) => (isNum(v) ? `${(v / 1000).toFixed(1)} s` : '-');
  const rows = phases.map((p) => {
    const when = `${esc(sec(p.startedAt))} – ${esc(sec(p.endedAt))}`;
    const requests = esc(isNum(p.requests) ? num(p.requests) : '-');
    const cells = `<td>${esc(words(p.name))}</td><td>${esc(words(p.status))}</td><td>${when}</td><td>${requests}</td>`;
    return `<tr data-phase="${esc(p.name)}">${cells}</tr>`;
  });
  const table = scrollTable('phases', ['phase', 'status', 'time since the probes started', 'requests'], rows);
  return `<h3>Probe phases</h3>${table}`;
}

/**
 * RL-14's varied requests (results.json limiter.integrity, load/checks/integrity.ts): each with its
 * answer, Remaining and verdict against the token's bucket.
 */
function integrityTable(limiter: LimiterEstimates | null): string {
  const rows = Array.isArray(limiter?.integrity) ? (limiter!.integrity as Record<string, unknown>[]) : [];
  if (!rows.length) return '';
  const text = (v: unknown) => esc(v === null || v === undefined ? '-' : String(v));
  // The verdict badges of the checks; a variation not tested looks like a skipped check.
  const badge = (v: unknown) =>
    `<span class="verdict v-${v === 'pass' || v === 'fail' ? v : 'skipped'}">${text(v)}</span>`;
  const body = rows.map((r) => {
    const cells = [r.variation, r.when, r.plainBefore, r.answer, r.remaining]
      .map((v) => `<td>${text(v)}</td>`)
      .join('');
    return `<tr data-variation="${text(r.id)}">${cells}<td>${badge(r.verdict)}</td><td class="explain">${text(r.why)}</td></tr>`;
  });
  const headings = ['variation', 'sent', 'plain request just before', 'answer', 'Remaining', 'verdict', 'why'];
  const intro =
    "<p>RL-14: the request varied one way at a time (the token's form, the query, client-address headers). " +
    "Each must be limited as the token's: refused like the plain request, or accepted as its bucket allows then.</p>";
  return `<h3>Integrity of the limit (RL-14)</h3>${intro}${scrollTable('integrity', headings, body)}`;
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
    const counts = `<td>${es.length}</td><td>${a}</td><td>${l}</td><td>${es.length - a - l}</td>`;
    const when = `${esc((start / 1000).toFixed(1))}–${esc((end / 1000).toFixed(1))} s`;
    return `<tr data-probe="${esc(probe)}"><td>${esc(probe)}</td>${counts}<td>${when}</td></tr>`;
  });
  const headings = ['probe', 'requests', 'accepted (2xx)', 'refused (429)', 'other', 'time since the probes started'];
  return `<h3>Requests by probe</h3>${scrollTable('probes', headings, rows)}`;
}

export function limiterSection(
  limiter: LimiterEstimates | null,
  timeline: readonly TimelineEntry[],
  timelineHref: string,
): string {
  const href = safeRelativeHref(timelineHref) ?? 'timeline.json';
  const seen = `What the rate-limit probes saw (${timeline.length} requests) against what a GCRA limiter with the estimated figures predicts.`;
  return `<section id="limiter" data-limiter="${limiter ? 'estimated' : 'none'}">
<h2>Rate limiter</h2>
<p>${seen} Raw data: <a href="${esc(href)}" data-link="timeline">timeline.json</a>.</p>
<div class="charts">${limiterCharts(timeline, limiter)}</div>
<h3>Estimated figures</h3>
${parametersTable(limiter, timeline)}
${phasesTable(limiter)}
${integrityTable(limiter)}
${probesTable(timeline)}
</section>`;
}
