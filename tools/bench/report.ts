// The bench's outputs: results.json, a short index.html and table.md (the README's table).
import { cpus, loadavg, totalmem } from 'node:os';
import { esc, htmlPage, htmlTable } from '../../reports/page.js';
import { markdownTable, rowsOf, type Figure } from './figures.js';

export interface BenchReport {
  tool: 'chainprobe bench';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  quick: boolean;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryMB: number;
    node: string;
    platform: string;
    loadAverageAtStart: number[];
    loadAverageAtEnd?: number[];
  };
  command: string;
  figures: Figure[];
  /** Extra sections' raw data (stability comparison, ...). */
  sections: Record<string, unknown>;
}

export function machine(): BenchReport['machine'] {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model ?? 'unknown',
    memoryMB: Math.round(totalmem() / 1024 / 1024),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    // Other work on the machine distorts every timing figure; the load average says how much there was.
    loadAverageAtStart: loadavg().map((v) => Math.round(v * 100) / 100),
  };
}

/** The README's short table: every figure with a target, and the few marked for it. */
export function benchMarkdown(rep: BenchReport): string {
  const m = rep.machine;
  const table = markdownTable(rep.figures.filter((f) => f.target || f.readme || f.missing));
  const machine = `${m.cpus} cores (${m.cpuModel}), Node ${m.node}, load average ${m.loadAverageAtStart.join(' ')} at the start`;
  return `${table}\n\nMeasured ${rep.finishedAt.slice(0, 10)} with \`${rep.command}\` on ${machine}; all figures in reports/bench/results.json.\n`;
}

export function benchHtml(rep: BenchReport): string {
  const rows = rowsOf(rep.figures);
  const cls = (i: number) => {
    const f = rep.figures[i]!;
    return f.missing ? 'warn' : f.met === false ? 'bad' : f.met ? 'good' : '';
  };
  const table = htmlTable(
    ['figure', 'median', 'min .. max', 'target', 'status', 'how'],
    rows.map((r, i) => [
      esc(r.figure),
      esc(r.median),
      esc(r.range),
      esc(r.target),
      `<span class="status">${esc(r.status)}</span>`,
      `<span class="muted">${esc(rep.figures[i]!.note ?? '')}</span>`,
    ]),
    cls,
  );
  const withTarget = rep.figures.filter((f) => f.target);
  const targets = htmlTable(
    ['figure', 'median', 'target', 'status'],
    rowsOf(withTarget).map((r) => [
      esc(r.figure),
      esc(r.median),
      esc(r.target),
      `<span class="status">${esc(r.status)}</span>`,
    ]),
    (i) => (withTarget[i]!.met === false ? 'bad' : withTarget[i]!.met ? 'good' : 'warn'),
  );
  const m = rep.machine;
  const run = `${rep.quick ? 'Quick run' : 'Full run'} of ${(rep.durationMs / 1000).toFixed(0)} s, ${rep.startedAt}`;
  const machine = `${m.cpus} cores (${m.cpuModel}), ${m.memoryMB} MB, Node ${m.node}`;
  const load = `load average ${m.loadAverageAtStart.join(' ')} at the start, ${(m.loadAverageAtEnd ?? []).join(' ')} at the end`;
  const body = [
    `<p>${esc(`${run}; ${machine}; ${load}.`)} Reproduce with <code>${esc(rep.command)}</code>.</p>`,
    '<p class="muted">Each figure is the median over repeated runs, with min and max; ' +
      'ratios are computed per repetition from quantities measured side by side. ' +
      '"met" judges the median; "not every run" means the worst repetition missed the target.</p>',
    '<h2>Targets</h2>',
    targets,
    '<h2>All figures</h2>',
    table,
  ];
  const stability = rep.sections.stability as { line?: string } | undefined;
  if (stability?.line) body.push(`<h2>Stability</h2><p>${esc(stability.line)}</p>`);
  return htmlPage('chainprobe benchmarks', body.join('\n'));
}
