// A benchmark figure: a measured quantity as a spread over repetitions, with the target it must
// meet (if any). Rendered as a terminal table, a Markdown table (README) and HTML rows.
import { spread, type Spread } from './stats.js';

export interface Target {
  op: '<=' | '<' | '>=';
  value: number;
}

export interface Figure {
  /** Stable id, e.g. `throughput.reference.head-fee-stats`. */
  id: string;
  group: string;
  label: string;
  unit: string;
  /** Absent when the figure could not be measured (see `missing`). */
  value?: Spread;
  target?: Target;
  /** Whether the median meets the target; undefined without a target or a value. */
  met?: boolean;
  /** Whether every repetition met it (the worst of min/max). */
  metEveryRun?: boolean;
  /** How the figure is computed, when it is not obvious (formulas, settings). */
  note?: string;
  /** Why the figure could not be produced. */
  missing?: string;
  /** Shown in the README's short table even without a target. */
  readme?: boolean;
  details?: Record<string, unknown>;
}

function meets(t: Target, v: number): boolean {
  if (!Number.isFinite(v)) return false;
  return t.op === '<=' ? v <= t.value : t.op === '<' ? v < t.value : v >= t.value;
}

export function figure(input: Omit<Figure, 'value' | 'met' | 'metEveryRun'> & { values: readonly number[] }): Figure {
  const { values, ...rest } = input;
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { ...rest, missing: rest.missing ?? 'no successful repetition' };
  const value = spread(finite);
  const out: Figure = { ...rest, value };
  if (rest.target) {
    out.met = meets(rest.target, value.median);
    const worst = rest.target.op === '>=' ? value.min : value.max;
    out.metEveryRun = meets(rest.target, worst);
  }
  return out;
}

export function missingFigure(base: Omit<Figure, 'value' | 'met' | 'metEveryRun' | 'missing'>, why: string): Figure {
  return { ...base, missing: why };
}

/** Per-repetition ratios a[i] / b[i] of two quantities measured side by side. */
export function ratios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((x, i) => x / b[i]!).filter((r) => Number.isFinite(r));
}

export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US');
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

export function targetText(f: Figure): string {
  return f.target
    ? `${f.target.op} ${formatNumber(f.target.value)}${f.unit && f.unit !== 'x' ? ` ${f.unit}` : f.unit === 'x' ? 'x' : ''}`
    : '';
}

export function metText(f: Figure): string {
  if (f.missing) return 'not measured';
  if (f.met === undefined) return '';
  if (f.met && f.metEveryRun) return 'met';
  if (f.met) return 'met (median; not every run)';
  return 'NOT MET';
}

export interface Row {
  figure: string;
  median: string;
  range: string;
  target: string;
  status: string;
}

export function rowsOf(figures: readonly Figure[]): Row[] {
  return figures.map((f) => ({
    figure: `${f.group}: ${f.label}`,
    median: f.value ? `${formatNumber(f.value.median)} ${f.unit}`.trim() : '-',
    range: f.value
      ? f.value.n > 1
        ? `${formatNumber(f.value.min)} .. ${formatNumber(f.value.max)} (n=${f.value.n})`
        : `n=1`
      : (f.missing ?? ''),
    target: targetText(f),
    status: metText(f),
  }));
}

const COLUMNS: [keyof Row, string][] = [
  ['figure', 'figure'],
  ['median', 'median'],
  ['range', 'min .. max'],
  ['target', 'target'],
  ['status', 'status'],
];

export function textTable(figures: readonly Figure[]): string {
  const rows = rowsOf(figures);
  const widths = COLUMNS.map(([k, h]) => Math.max(h.length, ...rows.map((r) => r[k].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    line(COLUMNS.map(([, h]) => h)),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(COLUMNS.map(([k]) => r[k]))),
  ].join('\n');
}

export function markdownTable(figures: readonly Figure[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const rows = rowsOf(figures);
  return [
    `| ${COLUMNS.map(([, h]) => h).join(' | ')} |`,
    `|${COLUMNS.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${COLUMNS.map(([k]) => esc(r[k])).join(' | ')} |`),
  ].join('\n');
}
