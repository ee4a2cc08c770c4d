// Charts as SVG generated at write time. Why not an inlined chart library: the report must open
// offline and stay small; the smallest well-kept libraries still add 40-200 kB of script, need JS
// to draw (a screenshot or a browser with scripts off would show nothing), and our charts are
// four simple kinds (lines, markers, stacked bars, reference lines). Plain SVG paths draw
// ~1,000 points in a few kB, print well and can be checked without running any code.
import { esc } from './text.js';

export type Point = readonly [number, number];

export interface LineSeries {
  name: string;
  /** CSS class (colour and dash come from the page's stylesheet). */
  cls: string;
  points: readonly Point[];
  draw: 'line' | 'markers';
}

export interface Bar {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

export interface BarSeries {
  name: string;
  cls: string;
  bars: readonly Bar[];
}

export interface ChartSpec {
  /** Stable name, emitted as data-chart for tests and styling. */
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  lines?: readonly LineSeries[];
  bars?: readonly BarSeries[];
  /** Horizontal reference lines, e.g. the per-second cap. */
  hLines?: readonly { y: number; label: string; cls: string }[];
  /** Shown inside an empty chart. */
  emptyNote?: string;
  /** A fixed time axis, so charts of one run line up; default: the data's extent. */
  xDomain?: readonly [number, number];
}

const W = 760;
const H = 240;
const M = { l: 56, r: 16, t: 14, b: 42 };
const PW = W - M.l - M.r;
const PH = H - M.t - M.b;

const n1 = (v: number) => String(Math.round(v * 10) / 10);

/** Tick positions at 1, 2 or 5 times a power of ten, about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  const span = max - min;
  if (!(span > 0) || !Number.isFinite(span)) return [min];
  const raw = span / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9 && ticks.length < 50; t += step)
    ticks.push(Math.round(t / step) * step);
  return ticks;
}

function tickLabel(v: number): string {
  const a = Math.abs(v);
  if (a >= 10000) return `${Math.round(v / 1000)}k`;
  return String(Number(v.toPrecision(6)));
}

/** The legend's sample of a series: a marker square, a bar, or a line. */
function legendSwatch(cls: string): string {
  if (cls.includes('markers')) return 'M6,2h6v6h-6Z';
  if (cls.startsWith('bars')) return 'M2,1h14v8h-14Z';
  return 'M1,5H17';
}

export function renderChart(spec: ChartSpec): string {
  const lines = spec.lines ?? [];
  const bars = spec.bars ?? [];
  const hLines = spec.hLines ?? [];
  const xs: number[] = [];
  const ys: number[] = [0];
  for (const s of lines)
    for (const [x, y] of s.points) if (Number.isFinite(x) && Number.isFinite(y)) (xs.push(x), ys.push(y));
  for (const s of bars) for (const b of s.bars) (xs.push(b.x0, b.x1), ys.push(b.y1));
  const dataCount = lines.reduce((n, s) => n + s.points.length, 0) + bars.reduce((n, s) => n + s.bars.length, 0);
  for (const h of hLines) ys.push(h.y);

  let x0 = spec.xDomain?.[0] ?? (xs.length ? xs.reduce((a, b) => Math.min(a, b)) : 0);
  let x1 = spec.xDomain?.[1] ?? (xs.length ? xs.reduce((a, b) => Math.max(a, b)) : 1);
  if (x1 <= x0) x1 = x0 + 1;
  x0 = Math.min(x0, Math.floor(x0));
  const yMin = ys.reduce((a, b) => Math.min(a, b));
  let yMax = ys.reduce((a, b) => Math.max(a, b)) * 1.08;
  if (yMax <= yMin) yMax = yMin + 1;
  const sx = (x: number) => M.l + ((x - x0) / (x1 - x0)) * PW;
  const sy = (y: number) => M.t + PH - ((y - yMin) / (yMax - yMin)) * PH;

  const out: string[] = [];
  const data = `data-chart="${esc(spec.id)}" data-points="${dataCount}"`;
  const size = `viewBox="0 0 ${W} ${H}" width="${W}" height="${H}"`;
  const label = `role="img" aria-label="${esc(spec.title)}"`;
  out.push(`<svg class="chart-svg" ${data} ${size} ${label} xmlns="http://www.w3.org/2000/svg">`);
  // Grid and axes.
  const grid: string[] = [];
  const labels: string[] = [];
  for (const t of niceTicks(yMin, yMax)) {
    grid.push(`M${M.l},${n1(sy(t))}H${W - M.r}`);
    labels.push(`<text x="${M.l - 6}" y="${n1(sy(t) + 4)}" text-anchor="end">${esc(tickLabel(t))}</text>`);
  }
  for (const t of niceTicks(x0, x1, 8)) {
    grid.push(`M${n1(sx(t))},${M.t}V${M.t + PH}`);
    labels.push(`<text x="${n1(sx(t))}" y="${M.t + PH + 16}" text-anchor="middle">${esc(tickLabel(t))}</text>`);
  }
  out.push(`<path class="grid" d="${grid.join('')}"/>`);
  out.push(`<path class="axis" d="M${M.l},${M.t}V${M.t + PH}H${W - M.r}"/>`);
  out.push(`<g class="ticks">${labels.join('')}</g>`);
  out.push(`<text class="axis-label" x="${M.l + PW / 2}" y="${H - 6}" text-anchor="middle">${esc(spec.xLabel)}</text>`);
  out.push(
    `<text class="axis-label" transform="translate(14 ${M.t + PH / 2}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text>`,
  );

  for (const s of bars) {
    const d = s.bars
      .map((b) => `M${n1(sx(b.x0))},${n1(sy(b.y0))}V${n1(sy(b.y1))}H${n1(sx(b.x1))}V${n1(sy(b.y0))}Z`)
      .join('');
    out.push(`<path class="bars ${esc(s.cls)}" data-series="${esc(s.name)}" data-points="${s.bars.length}" d="${d}"/>`);
  }
  for (const h of hLines) {
    out.push(`<path class="hline ${esc(h.cls)}" data-series="${esc(h.label)}" d="M${M.l},${n1(sy(h.y))}H${W - M.r}"/>`);
    out.push(
      `<text class="hline-label" x="${W - M.r - 4}" y="${n1(sy(h.y) - 4)}" text-anchor="end">${esc(h.label)}</text>`,
    );
  }
  for (const s of lines) {
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    // Predicted markers are drawn larger and hollow so an exact match still shows both.
    const r = s.cls === 'predicted' ? 3.5 : 2;
    const d =
      s.draw === 'line'
        ? pts.map(([x, y], i) => `${i ? 'L' : 'M'}${n1(sx(x))},${n1(sy(y))}`).join('')
        : pts.map(([x, y]) => `M${n1(sx(x) - r)},${n1(sy(y) - r)}h${2 * r}v${2 * r}h${-2 * r}Z`).join('');
    out.push(
      `<path class="series ${s.draw} ${esc(s.cls)}" data-series="${esc(s.name)}" data-points="${pts.length}" d="${d}"/>`,
    );
  }
  if (dataCount === 0)
    out.push(
      `<text class="empty" x="${M.l + PW / 2}" y="${M.t + PH / 2}" text-anchor="middle">${esc(spec.emptyNote ?? 'no data')}</text>`,
    );
  out.push('</svg>');

  const legend = [
    ...bars.map((s) => [s.name, `bars ${s.cls}`]),
    ...lines.map((s) => [s.name, `series ${s.draw} ${s.cls}`]),
    ...hLines.map((h) => [h.label, `hline ${h.cls}`]),
  ]
    .map(([name, cls]) => {
      const swatch = `<path class="${esc(cls)}" d="${legendSwatch(cls!)}"/>`;
      return `<li><svg width="18" height="10" aria-hidden="true">${swatch}</svg>${esc(name)}</li>`;
    })
    .join('');
  const caption = `<figcaption>${esc(spec.title)}</figcaption>`;
  return `<figure class="chart" id="chart-${esc(spec.id)}">${caption}${out.join('')}<ul class="legend">${legend}</ul></figure>`;
}
