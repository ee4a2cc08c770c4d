// The scorecard of a fleet report: one row per deployment and per node, one column per rule
// family, each cell the rolled-up verdict of that row's checks in that family and a link to the
// rule whose checks decided it; then the horizon nodes' limiter estimates side by side. Shown only
// when the results name more than one deployment or node (results.fleet).
import type { LimiterEstimates, ResultsFile } from '../src/results.js';
import { RULES, SECTIONS } from '../src/rules/catalogue.js';
import { fleetOf, type FleetNode } from '../src/fleet/rollup.js';
import { rollUp, type CheckResult, type Verdict } from '../src/verdict.js';
import { esc } from './text.js';

// A line ending in a backslash continues on the next: the CSS text is one line, as before.
const CSS = `#scorecard table{border-collapse:collapse;font-size:13px;margin:6px 0 14px}\
#scorecard th,#scorecard td{border:1px solid var(--line,#d0d7de);padding:3px 8px;text-align:left}\
#scorecard td.cell{text-align:center}#scorecard tr.node th{font-weight:normal;padding-left:22px}\
#scorecard .none{color:#6e7781}`;

interface Row {
  label: string;
  kind: 'target' | 'node';
  checks: CheckResult[];
  /** data-row: target, or target/kind/name. */
  key: string;
}

function rowsOf(results: ResultsFile): Row[] {
  const fleet = fleetOf(results)!;
  const rows: Row[] = [];
  for (const t of fleet.targets) {
    const own = results.checks.filter((c) => c.target === t.name);
    rows.push({ label: t.name, kind: 'target', checks: own, key: t.name });
    for (const n of fleet.nodes.filter((x) => x.target === t.name)) {
      rows.push({
        label: `${n.kind} ${n.name}`,
        kind: 'node',
        checks: own.filter((c) => c.node === n.name && c.nodeKind === n.kind),
        key: `${t.name}/${n.kind}/${n.name}`,
      });
    }
  }
  return rows;
}

/** The family's verdict in a row and the first rule (catalogue order) with that verdict: the evidence. */
function cell(checks: readonly CheckResult[], section: string): { verdict: Verdict; rule: string } | undefined {
  const mine = checks.filter((c) => c.rule.split('-')[0] === section);
  if (!mine.length) return undefined;
  const verdict = rollUp(mine.map((c) => c.verdict));
  const rule = RULES.find(
    (r) =>
      r.section === section &&
      rollUp(mine.filter((c) => c.rule === r.id).map((c) => c.verdict)) === verdict &&
      mine.some((c) => c.rule === r.id),
  );
  return { verdict, rule: rule?.id ?? mine[0]!.rule };
}

function matrix(results: ResultsFile): string {
  const rows = rowsOf(results);
  const sections = SECTIONS.filter((s) => rows.some((r) => r.checks.some((c) => c.rule.split('-')[0] === s.key)));
  const head = `<tr><th>deployment / node</th>${sections.map((s) => `<th title="${esc(s.title)}">${esc(s.key)}</th>`).join('')}</tr>`;
  const body = rows
    .map((r) => {
      const cells = sections.map((s) => {
        const c = cell(r.checks, s.key);
        if (!c) return `<td class="cell none" data-section="${esc(s.key)}">–</td>`;
        const link = `<a href="#rule-${esc(c.rule)}" title="${esc(c.rule)}"><span class="verdict v-${c.verdict}">${c.verdict}</span></a>`;
        return `<td class="cell" data-section="${esc(s.key)}" data-verdict="${c.verdict}">${link}</td>`;
      });
      return `<tr class="${r.kind}" data-row="${esc(r.key)}"><th>${esc(r.label)}</th>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<table class="score-matrix"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

const num = (v: unknown, digits = 0) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '–');

function spent(n: FleetNode): string {
  const r = n.requestsSent;
  if (!r || (r.contracts === null && r.probes === null)) return '–';
  return `${(r.contracts ?? 0) + (r.probes ?? 0)} (contracts ${r.contracts ?? '–'}, probes ${r.probes ?? '–'})`;
}

function capText(l: LimiterEstimates): string {
  const uses = l.capRejectionsUseQuota;
  return `${num(l.perSecondCap)}/s${typeof uses === 'boolean' ? `; cap rejections ${uses ? 'use' : 'do not use'} quota` : ''}`;
}

function limiterTable(nodes: readonly FleetNode[]): string {
  const horizons = nodes.filter((n) => n.kind === 'horizon');
  if (!horizons.length) return '';
  const rows = horizons.map((n) => {
    const l = n.limiter ?? undefined;
    const T = l && l.emissionIntervalMs > 0 ? l.emissionIntervalMs : undefined;
    const note = n.sameTokenAs ? `same token as ${n.sameTokenAs}: probed once, there` : l ? '' : 'probes did not run';
    const declared =
      l && typeof l.hourlyLimit === 'number' ? ` <span class="none">(declared ${esc(l.hourlyLimit)})</span>` : '';
    const cells = [
      `<td data-field="limit">${l ? num(l.limit) : '–'}</td>`,
      `<td data-field="T">${T ? `${num(T, 1)} ms` : '–'}</td>`,
      `<td data-field="hourly">${T ? `${num(3_600_000 / T)}/h` : '–'}${declared}</td>`,
      `<td data-field="cap">${l ? esc(capText(l)) : '–'}</td>`,
      `<td data-field="spent">${esc(spent(n))}</td>`,
      `<td>${esc(note)}</td>`,
    ];
    return `<tr data-node="${esc(`${n.target}/${n.name}`)}"><th>${esc(n.target)} / ${esc(n.name)}</th>${cells.join('')}</tr>`;
  });
  const headings = ['node', 'Limit', 'T', 'hourly rate T implies', 'per-second cap', 'requests spent', ''];
  const head = `<thead><tr>${headings.map((h) => `<th>${h}</th>`).join('')}</tr></thead>`;
  return `<h3>Horizon nodes' limiter estimates</h3>
<table class="score-limiter">${head}<tbody>${rows.join('\n')}</tbody></table>`;
}

const CELL_NOTE = "Each cell rolls up the row's checks of a rule family; it links to the rule that decided it.";

/** The scorecard section, or '' when the results are of one deployment with one node of each kind. */
export function scorecardSection(results: ResultsFile): string {
  const fleet = fleetOf(results);
  if (!fleet || (fleet.targets.length < 2 && fleet.nodes.length < 2)) return '';
  const shared = fleet.sharedTokens
    .map((s) => `<li>${esc(s.alsoListedAs.join(', '))}: same token as ${esc(s.probed)}, probed once</li>`)
    .join('');
  return `<section id="scorecard"><style>${CSS}</style><h2>Scorecard</h2>
<p>${fleet.targets.length} deployment(s), ${fleet.nodes.length} node(s). ${CELL_NOTE}</p>
${matrix(results)}
${limiterTable(fleet.nodes)}
${shared ? `<ul class="shared-tokens">${shared}</ul>` : ''}
</section>`;
}
