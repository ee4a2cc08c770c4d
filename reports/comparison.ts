// index.html's comparison of two deployments (results.json `comparison`: --compare, or `chainprobe
// compare`): first the differences table, one row per difference with where it was found, then the
// rules side by side, the latency per family, and the rules of the comparison the rows name. On a
// phone each table row becomes a card (reports/style.ts), so the page never scrolls sideways.
import type { ResultsFile } from '../src/results.js';
import { RULES } from '../src/rules/catalogue.js';
import type { Comparison, Difference, RuleComparison } from '../src/compare/types.js';
import { differenceWhat, shownValue } from '../src/compare/compare.js';
import { comparisonHeadline, sideVerdict, unwaivedDifferences } from '../src/compare/lines.js';
import { esc } from './text.js';
import { humanTime } from './words.js';

/** The comparison a results file carries, if any. */
export function comparisonOf(results: ResultsFile): Comparison | undefined {
  const c = results.comparison as Comparison | undefined;
  return c && Array.isArray(c.differences) && c.a && c.b ? c : undefined;
}

const badge = (v: string) => `<span class="verdict v-${esc(v)}">${esc(v)}</span>`;
const titleOf = new Map(RULES.map((r) => [r.id, r.title]));
const ruleLink = (id: string) => `<a href="#rule-${esc(id)}">${esc(id)}</a>`;
const cmpLink = (id: string) => `<a class="cmp" href="#${esc(id)}">${esc(id)}</a>`;

/** Places of a row listed under it; the count says how many there were. */
const LISTED = 8;

function whereCell(d: Difference): string {
  const rules = d.rules.length ? d.rules.map(ruleLink).join(', ') : '';
  const places = `${d.count} place${d.count === 1 ? '' : 's'}`;
  const items = [
    ...d.subjects.map((s) => `<li><code>${esc(s)}</code></li>`),
    ...d.checks.map((c) => `<li><code>${esc(c)}</code></li>`),
  ];
  const list = items.length
    ? `<details class="places"><summary>${esc(places)}</summary><ul>${items.slice(0, LISTED * 2).join('')}</ul></details>`
    : `<span class="counts">${esc(places)}</span>`;
  const waiver = d.waiver
    ? `<p class="waived" data-waived="${esc(d.waiver.rule)}">waived (${esc(d.waiver.rule)}) until ${esc(d.waiver.expires)}: ${esc(d.waiver.reason)}${
        d.waiver.link ? ` <a href="${esc(d.waiver.link)}" rel="noreferrer">${esc(d.waiver.link)}</a>` : ''
      }</p>`
    : '';
  return `${rules ? `${rules} · ` : ''}${list}${waiver}`;
}

function differenceRow(d: Difference, c: Comparison): string {
  const cell = (label: string, html: string, cls = '') =>
    `<td data-label="${esc(label)}"${cls ? ` class="${cls}"` : ''}>${html}</td>`;
  const value = (v: unknown) =>
    v === undefined ? '<span class="absent">absent</span>' : `<code>${esc(shownValue(v))}</code>`;
  return `<tr id="${esc(d.id)}" data-difference="${esc(d.id)}" data-kind="${esc(d.kind)}" data-cmp="${esc(d.cmp)}"${d.waiver ? ' class="waived"' : ''}>${[
    cell('#', esc(d.id), 'did'),
    cell('what differs', `${esc(differenceWhat(d))} ${cmpLink(d.cmp)}`),
    cell(c.a.label, value(d.a)),
    cell(c.b.label, value(d.b)),
    cell('where', whereCell(d)),
  ].join('')}</tr>`;
}

function differencesTable(c: Comparison): string {
  if (!c.differences.length)
    return (
      '<p class="none" data-differences="0">No difference: every rule compared has the same verdicts, ' +
      'and every request compared the same answers, by the rules below.</p>'
    );
  // Differences no waiver covers first: they are what needs looking at.
  const rows = [...unwaivedDifferences(c), ...c.differences.filter((d) => d.waiver)];
  const head = `<thead><tr><th>#</th><th>what differs</th><th>${esc(c.a.label)}</th><th>${esc(c.b.label)}</th><th>where</th></tr></thead>`;
  return `<table class="diffs" data-differences="${c.differences.length}">${head}<tbody>${rows
    .map((d) => differenceRow(d, c))
    .join('')}</tbody></table>`;
}

function ruleRow(r: RuleComparison, c: Comparison): string {
  const diffs = r.differences.length
    ? r.differences.map((id) => `<a href="#${esc(id)}">${esc(id)}</a>`).join(', ')
    : '';
  const note = r.notCompared ? `<span class="none">not compared: ${esc(r.notCompared)}</span>` : diffs;
  const moved = r.a !== r.b ? ' class="moved"' : '';
  return (
    `<tr data-rule-compared="${esc(r.rule)}"${moved}><td data-label="rule">${ruleLink(r.rule)} <span class="title">${esc(
      titleOf.get(r.rule) ?? '',
    )}</span></td>` +
    `<td data-label="${esc(c.a.label)}">${badge(r.a)}</td><td data-label="${esc(c.b.label)}">${badge(r.b)}</td>` +
    `<td data-label="differences">${note}</td></tr>`
  );
}

function rulesTable(c: Comparison): string {
  const notable = c.byRule.filter((r) => r.a !== r.b || r.differences.length || r.notCompared);
  const same = c.byRule.filter((r) => !notable.includes(r));
  const head = `<thead><tr><th>rule</th><th>${esc(c.a.label)}</th><th>${esc(c.b.label)}</th><th>differences</th></tr></thead>`;
  const table = notable.length
    ? `<table class="rulecmp">${head}<tbody>${notable.map((r) => ruleRow(r, c)).join('')}</tbody></table>`
    : '';
  const rest = same.length
    ? `<details class="same-rules"><summary>${same.length} rule${same.length === 1 ? '' : 's'} the same on both sides</summary><p>${same
        .map((r) => `${ruleLink(r.rule)} ${badge(r.a)}`)
        .join(' · ')}</p></details>`
    : '';
  return `<h3>The rules side by side</h3>${table}${rest}`;
}

function latencyTable(c: Comparison): string {
  if (!c.latency.length) return '';
  const fig = (n: number | undefined) => (n === undefined ? '-' : `${n} ms`);
  const rows = c.latency
    .map(
      (l) =>
        `<tr data-family="${esc(l.family)}"><td data-label="family">${esc(l.family)}</td><td data-label="${esc(c.a.label)}">${fig(
          l.a.medianMs,
        )} / ${fig(l.a.p95Ms)} <span class="counts">(${l.a.requests})</span></td><td data-label="${esc(c.b.label)}">${fig(
          l.b.medianMs,
        )} / ${fig(l.b.p95Ms)} <span class="counts">(${l.b.requests})</span></td></tr>`,
    )
    .join('');
  return `<h3>Latency per family</h3><p class="meta">Median / 95th percentile of the requests' time on the network (requests timed), compared by ${cmpLink(
    'CMP-12',
  )}.</p><table class="latency"><thead><tr><th>family</th><th>${esc(c.a.label)}</th><th>${esc(
    c.b.label,
  )}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function rulesOfComparison(c: Comparison): string {
  const items = c.rules
    .map((r) => `<dt id="${esc(r.id)}">${esc(r.id)} ${esc(r.title)}</dt><dd>${esc(r.description)}</dd>`)
    .join('');
  return `<h3>How the two are compared</h3><p class="meta">Block numbers within ${esc(
    c.blockNumberTolerance,
  )} (CMP-08).</p><dl class="cmp-rules">${items}</dl>`;
}

function sideLine(side: Comparison['a'], which: string): string {
  const started = `<time datetime="${esc(side.startedAt)}">${esc(humanTime(side.startedAt))}</time>`;
  const file = side.results ? `, <a href="${esc(side.results)}">results.json</a>` : '';
  return `<li data-side="${which}">${esc(sideVerdict(side))} <span class="meta">(target "${esc(side.target)}", started ${started}, chainprobe ${esc(
    side.toolVersion,
  )}${file})</span></li>`;
}

/** The comparison section, first in the page when results.json has one. */
export function comparisonSection(results: ResultsFile): string {
  const c = comparisonOf(results);
  if (!c) return '';
  const absent = c.absentSections
    .map(
      (s) =>
        `<li>${esc(s.side === 'a' ? c.a.label : c.b.label)}'s target file has no <code>${esc(s.section)}</code> section: ${s.rules
          .map(ruleLink)
          .join(', ')} not compared</li>`,
    )
    .join('');
  return `<section id="comparison" data-differences="${c.counts.differences}" data-waived="${c.counts.waived}"><h2>What differs: ${esc(
    c.a.label,
  )} and ${esc(c.b.label)}</h2>
<p>${esc(comparisonHeadline(c))}.</p>
<ul class="sides">${sideLine(c.a, 'a')}${sideLine(c.b, 'b')}</ul>
${absent ? `<ul class="notes">${absent}</ul>` : ''}
${differencesTable(c)}
${rulesTable(c)}
${latencyTable(c)}
${rulesOfComparison(c)}
</section>`;
}

/** The other deployment of a comparison, as the headline counts it: its failing and erroring rules no waiver covers. */
export function comparedSide(
  results: ResultsFile,
): { label: string; self: string; failing: string[]; errors: string[] } | undefined {
  const c = comparisonOf(results);
  return c && { label: c.b.label, self: c.a.label, failing: c.b.failing, errors: c.b.errors };
}

/** The headline's note: what the run was compared with, and that side's verdict. */
export function comparisonNote(results: ResultsFile): string | undefined {
  const c = comparisonOf(results);
  if (!c) return undefined;
  const open = unwaivedDifferences(c).length;
  const diffs = c.counts.differences
    ? `<a href="#comparison">${c.counts.differences} difference${c.counts.differences === 1 ? '' : 's'}</a>${
        c.counts.waived ? ` (${c.counts.waived} waived, ${open} not)` : ''
      }`
    : 'no difference';
  return `Compared with ${esc(c.b.label)}: ${diffs}. ${esc(sideVerdict(c.b))}.`;
}
