// The kill-rate table: printed, and written as reports/selfcheck/index.html and results.json.
import { esc, htmlPage, htmlTable } from '../../reports/page.js';
import { OUTCOME_TEXT, type CleanRow, type FaultRow, type SelfcheckSummary } from './classify.js';

export interface SelfcheckReport {
  tool: 'chainprobe selfcheck';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  concurrency: number;
  subset: boolean;
  summary: SelfcheckSummary;
  faultFree?: CleanRow;
  faults: FaultRow[];
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function cleanText(c: CleanRow): string {
  if (c.problem) return `run error: ${c.problem}`;
  if (c.clean) return 'clean (no fail, no error)';
  return `NOT CLEAN: ${c.bad.map((b) => `${b.rule} ${b.verdict}`).join(', ')}`;
}

export function summaryLine(s: SelfcheckSummary): string {
  return `${s.caught} of ${s.total} faults caught on their own rule; ${s.elsewhere} caught only elsewhere, ${s.missed} missed, ${s.error} run errors`;
}

export function textReport(rep: SelfcheckReport): string {
  const head = ['fault', 'rule', 'outcome', 'time', 'also failed'];
  const rows = rep.faults.map((r) => [
    r.fault,
    r.rule,
    OUTCOME_TEXT[r.outcome] + (r.problem && r.outcome === 'error' ? ` (${r.problem})` : ''),
    secs(r.durationMs),
    r.alsoFailed.join(' '),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ''];
  if (rep.faultFree) out.push(`fault-free full run: ${cleanText(rep.faultFree)} (${secs(rep.faultFree.durationMs)})`);
  out.push(
    summaryLine(rep.summary),
    `total ${secs(rep.durationMs)}, ${rep.concurrency} at a time${rep.subset ? ', representative subset' : ''}`,
  );
  return out.join('\n');
}

/** A fault not caught on its own rule: its name, the rule and what happened instead. */
const missedFault = (r: FaultRow) => `<code>${esc(r.fault)}</code> (${esc(r.rule)}, ${esc(OUTCOME_TEXT[r.outcome])})`;

const HOW_FAULTS_RAN =
  'Each fault ran against the embedded reference with <code>--fault &lt;name&gt; --only &lt;its family&gt;</code>; ' +
  `"caught on its rule" means that rule's verdict is <code>fail</code>.`;

export function htmlReport(rep: SelfcheckReport): string {
  const cls = (r: FaultRow) => (r.outcome === 'caught' ? 'good' : 'bad');
  const table = htmlTable(
    ['fault', 'rule it breaks', 'outcome', 'time', 'also failed', 'what the fault does', 'first message on the rule'],
    rep.faults.map((r) => [
      `<a href="runs/${esc(encodeURIComponent(r.fault))}/index.html"><code>${esc(r.fault)}</code></a>`,
      `<span class="nowrap">${esc(r.rule)}</span>`,
      `<span class="status">${esc(OUTCOME_TEXT[r.outcome])}</span>${r.problem ? `<br><span class="muted">${esc(r.problem)}</span>` : ''}`,
      `<span class="nowrap">${esc(secs(r.durationMs))}</span>`,
      esc(r.alsoFailed.join(', ')),
      esc(r.description),
      esc(r.message ?? ''),
    ]),
    (i) => cls(rep.faults[i]!),
  );
  const ff = rep.faultFree;
  const notCaught = rep.faults.filter((r) => r.outcome !== 'caught');
  const subset = rep.subset ? ', representative subset (one fault per rule section)' : '';
  const started = `Started ${esc(rep.startedAt)}, ${esc(secs(rep.durationMs))} in all, ${rep.concurrency} variants at a time${subset}`;
  const body = [
    `<p><strong>${esc(summaryLine(rep.summary))}</strong> - ${rep.summary.ok ? 'self-check passed' : 'self-check FAILED'}.</p>`,
    notCaught.length ? `<p>Not caught on their own rule: ${notCaught.map(missedFault).join(', ')}.</p>` : '',
    ff
      ? `<p>Fault-free full run: <a href="runs/fault-free/index.html">${esc(cleanText(ff))}</a> (${esc(secs(ff.durationMs))}).</p>`
      : '<p class="muted">No fault-free run in this self-check.</p>',
    `<p class="muted">${started}. ${HOW_FAULTS_RAN}</p>`,
    table,
  ].join('\n');
  return htmlPage('chainprobe self-check: kill rate', body);
}
