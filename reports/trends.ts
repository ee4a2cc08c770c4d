// Trends over the runs kept by `--history <dir>`: per rule and per node, the verdicts of the last
// runs as a strip of squares (oldest left), and per horizon node the drift of the limiter
// estimates (T and Limit) as small line charts. Plain inline SVG, drawn at write time, like the
// rest of the report: nothing to fetch, nothing to run.
import type { ResultsFile } from '../src/results.js';
import { RULES } from '../src/rules/catalogue.js';
import { fleetOf } from '../src/fleet/rollup.js';
import { mergeResults } from '../src/fleet/merge.js';
import { rollUp, VERDICTS, type Verdict } from '../src/verdict.js';
import { esc } from './text.js';

/** The report's verdict colours (reports/style.ts), as SVG fills. */
const FILL: Record<Verdict | 'none', string> = {
  pass: '#1a7f37',
  fail: '#cf222e',
  observed: '#0969da',
  skipped: '#6e7781',
  error: '#bc4c00',
  none: '#eaeef2',
};
const SQ = 10;
const GAP = 2;

interface RunView {
  startedAt: string;
  rules: Record<string, Verdict>;
  /** node key "target/kind/name" -> its roll-up, its estimates */
  nodes: Map<string, { verdict: Verdict; T?: number; limit?: number }>;
}

/** Each run seen the way a merge sees it, so single runs and fleet runs name their nodes alike. */
function viewOf(r: ResultsFile): RunView {
  const fleet = fleetOf(mergeResults([{ source: 'history', results: r }]).results);
  const nodes = new Map<string, { verdict: Verdict; T?: number; limit?: number }>();
  for (const n of fleet?.nodes ?? []) {
    const verdict = rollUp(VERDICTS.flatMap((v) => Array<Verdict>(n.summary[v]).fill(v)));
    const l = n.limiter;
    nodes.set(`${n.target}/${n.kind}/${n.name}`, {
      verdict,
      ...(l && l.emissionIntervalMs > 0 && { T: l.emissionIntervalMs }),
      ...(l && l.limit > 0 && { limit: l.limit }),
    });
  }
  return { startedAt: r.startedAt, rules: r.rules ?? {}, nodes };
}

function strip(cells: readonly { verdict?: Verdict; at: string }[]): string {
  const w = cells.length * (SQ + GAP);
  const rects = cells
    .map((c, i) => {
      const verdict = c.verdict ?? 'none';
      const box = `x="${i * (SQ + GAP)}" y="0" width="${SQ}" height="${SQ}"`;
      const title = `<title>${esc(c.at)}: ${c.verdict ?? 'not run'}</title>`;
      return `<rect ${box} fill="${FILL[verdict]}" data-verdict="${verdict}">${title}</rect>`;
    })
    .join('');
  const size = `width="${w}" height="${SQ}" viewBox="0 0 ${w} ${SQ}"`;
  return `<svg class="strip" ${size} role="img" aria-label="verdicts of the last runs, oldest first">${rects}</svg>`;
}

/** A small line chart of one estimate across the runs, its first and last values labelled. */
function sparkline(name: string, values: readonly (number | undefined)[], unit: string): string {
  const W = 180;
  const H = 36;
  const known = values.map((v, i) => [i, v] as const).filter((p): p is readonly [number, number] => p[1] !== undefined);
  if (known.length === 0) return `<span class="none">no ${esc(name)} estimate</span>`;
  const lo = Math.min(...known.map(([, v]) => v));
  const hi = Math.max(...known.map(([, v]) => v));
  const x = (i: number) => (values.length === 1 ? W / 2 : 4 + (i * (W - 8)) / (values.length - 1));
  const y = (v: number) => (hi === lo ? H / 2 : 4 + ((hi - v) * (H - 8)) / (hi - lo));
  const path = known.map(([i, v], k) => `${k ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  const dots = known
    .map(
      ([i, v]) =>
        `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2" fill="#0969da"><title>${esc(v)} ${esc(unit)}</title></circle>`,
    )
    .join('');
  const first = known[0]![1];
  const last = known.at(-1)![1];
  const drift = first === 0 ? '' : ` (${last >= first ? '+' : ''}${(((last - first) / first) * 100).toFixed(1)}%)`;
  const size = `width="${W}" height="${H}" viewBox="0 0 ${W} ${H}"`;
  const line = `<path d="${path}" fill="none" stroke="#0969da" stroke-width="1.5"/>`;
  const svg = `<svg class="spark" data-series="${esc(name)}" ${size} role="img" aria-label="${esc(name)} across the last runs">${line}${dots}</svg>`;
  const label = `${esc(+first.toFixed(3))} → ${esc(+last.toFixed(3))} ${esc(unit)}${esc(drift)}`;
  return `${svg} <span class="spark-label">${esc(name)}: ${label}</span>`;
}

const NODE_HEAD = '<thead><tr><th>node</th><th>verdicts</th><th>limiter estimates</th></tr></thead>';

/** The trends section for the runs of a history folder, oldest first, the current run last. */
export function trendsSection(runs: readonly ResultsFile[]): string {
  if (runs.length === 0) return '';
  const views = runs.map(viewOf);
  const ruleRows = RULES.filter((r) => views.some((v) => v.rules[r.id] !== undefined && v.rules[r.id] !== 'skipped'))
    .map((r) => {
      const verdicts = strip(views.map((v) => ({ verdict: v.rules[r.id], at: v.startedAt })));
      return `<tr data-trend-rule="${esc(r.id)}"><th><a href="#rule-${esc(r.id)}">${esc(r.id)}</a></th><td>${verdicts}</td></tr>`;
    })
    .join('\n');
  const nodeKeys = [...new Set(views.flatMap((v) => [...v.nodes.keys()]))].sort();
  const nodeRows = nodeKeys
    .map((key) => {
      const series = views.map((v) => v.nodes.get(key));
      const estimates = series.some((s) => s?.T !== undefined || s?.limit !== undefined)
        ? `${sparkline(
            'T',
            series.map((s) => s?.T),
            'ms',
          )}<br>${sparkline(
            'Limit',
            series.map((s) => s?.limit),
            'requests',
          )}`
        : '';
      const verdicts = strip(views.map((v, i) => ({ verdict: series[i]?.verdict, at: v.startedAt })));
      return `<tr data-trend-node="${esc(key)}"><th>${esc(key)}</th><td>${verdicts}</td><td>${estimates}</td></tr>`;
    })
    .join('\n');
  return `<section id="trends" data-runs="${runs.length}"><h2>Trends</h2>
<p>The last ${runs.length} run(s) kept in the history folder, oldest first (${esc(runs[0]!.startedAt)} to ${esc(runs.at(-1)!.startedAt)}); grey: not run.</p>
${nodeRows ? `<h3>Nodes</h3><table class="trend-nodes">${NODE_HEAD}<tbody>${nodeRows}</tbody></table>` : ''}
<h3>Rules</h3>${ruleRows ? `<table class="trend-rules"><tbody>${ruleRows}</tbody></table>` : '<p class="none">No rule was checked in these runs.</p>'}
</section>`;
}
