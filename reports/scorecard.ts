// The scorecard of a fleet report: one row per deployment and per node, one column per rule
// family, each cell the rolled-up verdict of that row's checks in that family and a link to the
// rule whose checks decided it; then the horizon nodes' limiter estimates side by side. Shown only
// when the results name more than one deployment or node (results.fleet).
import type { LimiterEstimates, ResultsFile } from '../src/results.js';
import { RULES, SECTIONS } from '../src/rules/catalogue.js';
import { fleetOf, type FleetNode } from '../src/fleet/rollup.js';
import type { CheckResult, Verdict } from '../src/verdict.js';
import { checkSetOf, rollUpSet, type CheckSet } from '../src/check-set.js';
import { esc } from './text.js';

// A line ending in a backslash continues on the next: the CSS text is one line, as before.
const CSS = `#scorecard table{border-collapse:collapse;font-size:13px;margin:6px 0 14px}\
#scorecard th,#scorecard td{border:1px solid var(--line,#d0d7de);padding:3px 8px;text-align:left}\
#scorecard td.cell{text-align:center}#scorecard tr.node th{font-weight:normal;padding-left:22px}\
#scorecard .none{color:#6e7781}`;

/** A row's checks of one rule family, folded: which verdicts each rule has, and the rule met first. */
interface FamilyFold {
  first: string;
  byRule: Map<string, Set<Verdict>>;
}

interface Row {
  label: string;
  kind: 'target' | 'node';
  /** Its checks by rule family (the part of the rule id before the dash). */
  families: Map<string, FamilyFold>;
  /** data-row: target, or target/kind/name. */
  key: string;
}

const familyOf = (rule: string) => rule.split('-')[0]!;

/** The rows, each folded over its checks in one pass: a merge reads its checks once, rule by rule. */
function rowsOf(results: ResultsFile, checks: CheckSet): Row[] {
  const fleet = fleetOf(results)!;
  const rows: Row[] = [];
  const byTarget = new Map<string, Row>();
  const byNode = new Map<string, Row>();
  const nodeKey = (target: unknown, kind: unknown, name: unknown) => JSON.stringify([target, kind, name]);
  for (const t of fleet.targets) {
    const row: Row = { label: t.name, kind: 'target', families: new Map(), key: t.name };
    rows.push(row);
    byTarget.set(t.name, row);
    for (const n of fleet.nodes.filter((x) => x.target === t.name)) {
      const key = `${t.name}/${n.kind}/${n.name}`;
      const nodeRow: Row = { label: `${n.kind} ${n.name}`, kind: 'node', families: new Map(), key };
      rows.push(nodeRow);
      byNode.set(nodeKey(t.name, n.kind, n.name), nodeRow);
    }
  }
  const fold = (row: Row | undefined, c: CheckResult) => {
    if (!row) return;
    const family = familyOf(c.rule);
    const f = row.families.get(family) ?? row.families.set(family, { first: c.rule, byRule: new Map() }).get(family)!;
    const seen = f.byRule.get(c.rule);
    if (seen) seen.add(c.verdict);
    else f.byRule.set(c.rule, new Set([c.verdict]));
  };
  for (const c of checks.all()) {
    if (typeof c.target !== 'string') continue;
    fold(byTarget.get(c.target), c);
    if (c.node !== undefined) fold(byNode.get(nodeKey(c.target, c.nodeKind, c.node)), c);
  }
  return rows;
}

/** The family's verdict in a row and the first rule (catalogue order) with that verdict: the evidence. */
function cell(row: Row, section: string): { verdict: Verdict; rule: string } | undefined {
  const f = row.families.get(section);
  if (!f) return undefined;
  const verdict = rollUpSet(new Set([...f.byRule.values()].flatMap((v) => [...v])));
  const rule = RULES.find(
    (r) => r.section === section && f.byRule.has(r.id) && rollUpSet(f.byRule.get(r.id)!) === verdict,
  );
  return { verdict, rule: rule?.id ?? f.first };
}

function matrix(results: ResultsFile, checks: CheckSet): string {
  const rows = rowsOf(results, checks);
  const sections = SECTIONS.filter((s) => rows.some((r) => r.families.has(s.key)));
  const head = `<tr><th>deployment / node</th>${sections.map((s) => `<th title="${esc(s.title)}">${esc(s.key)}</th>`).join('')}</tr>`;
  const body = rows
    .map((r) => {
      const cells = sections.map((s) => {
        const c = cell(r, s.key);
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
export function scorecardSection(results: ResultsFile, checks = checkSetOf(results.checks)): string {
  const fleet = fleetOf(results);
  if (!fleet || (fleet.targets.length < 2 && fleet.nodes.length < 2)) return '';
  const shared = fleet.sharedTokens
    .map((s) => `<li>${esc(s.alsoListedAs.join(', '))}: same token as ${esc(s.probed)}, probed once</li>`)
    .join('');
  return `<section id="scorecard"><style>${CSS}</style><h2>Scorecard</h2>
<p>${fleet.targets.length} deployment(s), ${fleet.nodes.length} node(s). ${CELL_NOTE}</p>
${matrix(results, checks)}
${limiterTable(fleet.nodes)}
${shared ? `<ul class="shared-tokens">${shared}</ul>` : ''}
</section>`;
}
