// index.html: the report a person opens first. One self-contained file: inline CSS, a few lines of
// inline script (filters, local times; the page is complete without it), SVG charts drawn at
// write time. It leads with one verdict (PASS / FAIL / COULD NOT TEST) and its reasons, then the
// parts of REPORT_SECTIONS in order. Every piece of text is escaped with esc(); a
// Content-Security-Policy that allows no network fetches and only the page's own script (by hash)
// makes a slip harmless as well.
import { createHash } from 'node:crypto';
import type { FaultDetail, ResultsFile } from '../src/results.js';
import { RULES, SECTIONS, type RuleDef } from '../src/rules/catalogue.js';
import { curlOf, type Exchange } from '../src/record/recorder.js';
import type { TimelineEntry } from '../src/stages.js';
import { VERDICTS, type CheckResult, type Verdict } from '../src/verdict.js';
import { checkSetOf, rollUpSet, type CheckSet } from '../src/check-set.js';
import { describeCounts, type BaselineDiff } from './baseline.js';
import { limiterSection } from './limiter.js';
import { jsonView } from './json-view.js';
import { scorecardSection } from './scorecard.js';
import { trendsSection } from './trends.js';
import { flattenObservation } from './observation.js';
import { brief, esc, formatDuration, safeRelativeHref, show } from './text.js';
import { REPORT_CSS } from './style.js';
import { humanKey, humanTime, TIME_OPTIONS_JSON, words } from './words.js';
import { authSurfaceSection } from './auth-surface.js';
import { causeNote, insecureNote, reportTitle } from './causes.js';
import { comparedSide, comparisonNote, comparisonSection } from './comparison.js';
import { ruleWaived, waiverBadge, waiverNote } from './waivers.js';

export interface HtmlInputs {
  results: ResultsFile;
  timeline: readonly TimelineEntry[];
  playwrightReport?: string;
  baseline?: BaselineDiff;
  /** --history: the last runs, oldest first, this one last (the trends section). */
  history?: readonly ResultsFile[];
  /** File names of the siblings written beside index.html. */
  files: { results: string; junit: string; timeline: string };
  /** The checks rule by rule, where `results` does not hold them (a merge: src/fleet/check-spool.ts). */
  checks?: CheckSet;
}

/** What every part of the page is drawn from: the inputs, and the checks rule by rule. */
export interface ReportContext extends HtmlInputs {
  checks: CheckSet;
  verdictOf: (rule: string) => Verdict;
}

/**
 * One part of the page after the headline. `render` gives its whole <section id="{id}"> element,
 * whole or in pieces to be written in order, or '' when it has nothing to show (then it has no
 * link in the page's navigation either).
 */
export interface ReportSection {
  id: string;
  /** Link text in the navigation under the headline. */
  nav: string;
  render: (ctx: ReportContext) => string | Iterable<string>;
}

/**
 * One line under the headline verdict, as HTML (escaped by its writer); undefined when it does not
 * apply: an interrupted run, an insecure connection, the causes of checks that could not run.
 */
export type HeadlineNote = (ctx: ReportContext) => string | undefined;

/** Full request/response detail is kept for checks a person must act on; the rest link to results.json. */
const DETAILED: ReadonlySet<Verdict> = new Set(['fail', 'error']);
const MAX_EXCHANGES = 5;
/** Longer extra fields of results.json are not spelt out in the header. */
const MAX_FACT_CHARS = 240;
const STANDARD_FIELDS = new Set([
  'tool',
  'target',
  'startedAt',
  'finishedAt',
  'summary',
  'rules',
  'checks',
  'limiter',
  'causes',
  'fleet',
  'merged',
  'format',
  'tolerances',
  'comparison',
  'waivers',
]);
const EVIDENCE_FIELDS = new Set(['exchanges', 'expected', 'actual', 'path', 'observation', 'cause']);

const KIND_LABEL: Record<RuleDef['kind'], string> = { must: 'must', std: 'std', observe: 'observe' };

/** Badges for sections of other modules too (verdict and rule kind, as the matrix shows them). */
export const verdictBadge = (v: string) => `<span class="verdict v-${esc(v)}">${esc(v)}</span>`;
const KIND_TITLE: Record<RuleDef['kind'], string> = {
  must: 'documented by the service description',
  std: 'required by a standard the description names',
  observe: 'the description leaves it open: recorded, never failed',
};
export const kindBadge = (k: RuleDef['kind']) =>
  `<span class="kind k-${k}" title="${KIND_TITLE[k]}">${KIND_LABEL[k]}</span>`;

function prettyBody(body: string | undefined): string {
  if (body === undefined || body === '') return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function headerLines(h: Record<string, string> | undefined): string {
  return Object.entries(h ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** ` <span class="dur">…</span>` for a known duration, '' otherwise. */
const durationSpan = (ms: number | undefined) =>
  ms === undefined ? '' : ` <span class="dur">${esc(formatDuration(ms))}</span>`;

function exchangeLine(x: Exchange): string {
  const status = x.error ? `error: ${x.error}` : x.status === undefined ? 'no answer' : String(x.status);
  const duration = durationSpan(x.durationMs);
  const purpose = x.purpose ? ` <span class="purpose">${esc(x.purpose)}</span>` : '';
  const target = `<span class="method">${esc(x.method)}</span> <code class="url">${esc(x.url)}</code>`;
  return `${target} → <span class="status">${esc(status)}</span>${duration}${purpose}`;
}

/** The response as HTML: status, headers, and the body with the value at `path` marked. */
function responseHtml(x: Exchange, path: string | undefined): string {
  if (x.error) return esc(`(no response: ${x.error})`);
  const head = [`status ${x.status ?? '-'}`, headerLines(x.responseHeaders)].filter(Boolean).join('\n');
  if (x.responseBody === undefined || x.responseBody === '') return esc(show(head));
  const view = jsonView(x.responseBody, path, esc);
  return `${esc(show(head))}\n\n${view ? view.html : esc(show(x.responseBody))}`;
}

function exchangeFull(x: Exchange, path?: string): string {
  const req = [
    `${x.method} ${x.url}`,
    headerLines(x.requestHeaders),
    x.requestBody === undefined ? '' : `\n${prettyBody(x.requestBody)}`,
  ]
    .filter(Boolean)
    .join('\n');
  const pathKey = path === undefined ? '' : ` <span class="path-key"><mark>marked</mark>: ${esc(path)}</span>`;
  const request = `<div><h5>request</h5><pre data-field="request">${esc(show(req))}</pre></div>`;
  const response = `<div><h5>response${pathKey}</h5><pre data-field="response">${responseHtml(x, path)}</pre></div>`;
  return `<div class="exchange" data-seq="${esc(x.seq)}">
<div class="xline">${exchangeLine(x)}</div>
<div class="cols">${request}${response}</div>
<div class="curl"><h5>reproduce (credentials as $CHAINPROBE_CREDENTIAL)</h5><pre data-field="curl">${esc(curlOf(x))}</pre></div>
</div>`;
}

function observationList(obs: unknown): string {
  const rows = flattenObservation(obs);
  if (!rows.length) return '';
  return `<dl class="obs">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(brief(v, 400))}</dd>`).join('')}</dl>`;
}

function checkBody(c: CheckResult): string {
  const ev = c.evidence ?? {};
  const parts: string[] = [];
  if ('expected' in ev || 'actual' in ev) {
    const expected = `<div><h5>expected</h5><pre data-field="expected">${esc(show(ev.expected))}</pre></div>`;
    const actual = `<div><h5>actual</h5><pre data-field="actual">${esc(show(ev.actual))}</pre></div>`;
    parts.push(`<div class="cols expected-actual">${expected}${actual}</div>`);
  }
  if (ev.path !== undefined) parts.push(`<p>JSON path: <code data-field="path">${esc(ev.path)}</code></p>`);
  if (ev.cause !== undefined) parts.push(`<p class="cause">cause: ${esc(ev.cause)}</p>`);
  if (ev.observation !== undefined) parts.push(`<h5>observed</h5>${observationList(ev.observation)}`);
  const exchanges = Array.isArray(ev.exchanges) ? ev.exchanges : [];
  if (exchanges.length) {
    const shown = exchanges.slice(0, MAX_EXCHANGES);
    parts.push(
      DETAILED.has(c.verdict)
        ? shown.map((x) => exchangeFull(x, typeof ev.path === 'string' ? ev.path : undefined)).join('')
        : `<ul class="xlist">${shown.map((x) => `<li>${exchangeLine(x)}</li>`).join('')}</ul>`,
    );
    if (exchanges.length > shown.length)
      parts.push(`<p class="more">${exchanges.length - shown.length} more exchanges in results.json</p>`);
  }
  const extra = Object.fromEntries(Object.entries(ev).filter(([k]) => !EVIDENCE_FIELDS.has(k)));
  if (Object.keys(extra).length)
    parts.push(
      `<details class="extra"><summary>more evidence</summary><div class="scroll"><pre>${esc(show(extra))}</pre></div></details>`,
    );
  return parts.join('\n');
}

/**
 * Failing checks a rule shows unfolded: enough to see what is wrong and whether it repeats; a rule
 * failing the same way on every endpoint would otherwise fill screens with copies.
 */
export const OPEN_FAILURES_PER_RULE = 3;

function checkItem(c: CheckResult, open: boolean): string {
  const body = checkBody(c);
  const message = `<span class="msg">${esc(c.message)}</span>`;
  const head = `${verdictBadge(c.verdict)} <code class="cid">${esc(c.id)}</code> ${message}${waiverBadge(c)}${durationSpan(c.durationMs)}`;
  const data = `data-check="${esc(c.id)}" data-verdict="${esc(c.verdict)}"`;
  if (!body) return `<div class="check leaf" ${data}>${head}</div>`;
  return `<details class="check" ${data}${open ? ' open' : ''}><summary>${head}</summary><div class="evidence">${body}</div></details>`;
}

function countsText(checks: readonly CheckResult[]): string {
  if (!checks.length) return 'no check ran';
  const n: Partial<Record<Verdict, number>> = {};
  for (const c of checks) n[c.verdict] = (n[c.verdict] ?? 0) + 1;
  return `${checks.length} check${checks.length === 1 ? '' : 's'}: ${VERDICTS.filter((v) => n[v])
    .map((v) => `${n[v]} ${v}`)
    .join(', ')}`;
}

/** A rule's row in pieces, a check at a time: a rule of a large merge has thousands. */
function* ruleRow(rule: RuleDef, verdict: Verdict, checks: readonly CheckResult[]): Generator<string> {
  const failures = checks.filter((c) => c.verdict === 'fail').length;
  const folded = failures - OPEN_FAILURES_PER_RULE;
  const id = esc(rule.id);
  const data = `data-rule="${id}" data-kind="${rule.kind}" data-verdict="${esc(verdict)}"`;
  const waived =
    (verdict === 'fail' || verdict === 'error') && checks.length > 0 && ruleWaived(checkSetOf(checks), rule.id);
  const badges = `${kindBadge(rule.kind)} ${verdictBadge(verdict)}${waived ? ' <span class="waiver" data-waiver="rule">waived</span>' : ''}`;
  const counts = `<span class="counts">${esc(countsText(checks))}</span>`;
  yield `<details class="rule" id="rule-${id}" ${data}${verdict === 'fail' ? ' open' : ''}>
<summary><span class="rid">${id}</span> ${badges} <span class="title">${esc(rule.title)}</span> ${counts}</summary>
<div class="checks">`;
  if (!checks.length)
    yield '<p class="none">No check of this rule ran in this run (not selected, or its target section is missing).</p>';
  let failing = 0;
  for (const [i, c] of checks.entries()) {
    const open = c.verdict === 'fail' && ++failing <= OPEN_FAILURES_PER_RULE;
    yield `${i ? '\n' : ''}${checkItem(c, open)}`;
    if (open && failing === OPEN_FAILURES_PER_RULE && folded > 0) {
      const note = `The first ${OPEN_FAILURES_PER_RULE} failing checks are open; the other ${folded} are folded below (open one, or use "expand all").`;
      yield `\n<p class="more" data-folded-failures="${folded}">${note}</p>`;
    }
  }
  yield `</div>
</details>`;
}

const ruleLinks = (ids: readonly string[]) => ids.map((id) => `<a href="#rule-${esc(id)}">${esc(id)}</a>`).join(', ');

const filterButton = (filter: string, label: string, pressed: boolean) =>
  `<button type="button" data-filter="${filter}" aria-pressed="${pressed}">${label}</button>`;
const expandButton = (expand: string, label: string) =>
  `<button type="button" data-expand="${expand}">${label}</button>`;
/** The rule matrix's filter and expand buttons (the page script wires them up). */
const TOOLBAR = [
  '<div class="toolbar" role="toolbar" aria-label="which rules to show">show ',
  filterButton('all', 'all', true),
  filterButton('problems', 'fail + error', false),
  filterButton('observed', 'observed', false),
  filterButton('skipped', 'skipped', false),
  ' · ',
  expandButton('open', 'expand all'),
  expandButton('close', 'collapse all'),
  '</div>',
].join('');

/** The rule matrix in pieces, one rule at a time as they are written: a merge of many runs never holds it whole. */
function* ruleMatrix(ctx: ReportContext): Generator<string> {
  const { checks, verdictOf } = ctx;
  yield `<section id="rule-matrix"><h2>Rules</h2>
${TOOLBAR}
<p class="none" id="no-match" hidden>No rule has this verdict in this run.</p>
`;
  function* rows(group: readonly RuleDef[]): Generator<string> {
    for (const [i, r] of group.entries()) {
      if (i) yield '\n';
      yield* ruleRow(r, verdictOf(r.id), checks.of(r.id));
    }
  }
  for (const [i, section] of SECTIONS.entries()) {
    const rules = RULES.filter((r) => r.section === section.key);
    const described = rules.filter((r) => r.kind !== 'std');
    const std = rules.filter((r) => r.kind === 'std');
    const failing = rules.filter((r) => verdictOf(r.id) === 'fail').length;
    const failingBadge = failing ? ` <span class="verdict v-fail">${failing} failing</span>` : '';
    yield `${i ? '\n' : ''}<section class="rule-section" id="section-${esc(section.key)}" data-section="${esc(section.key)}">
<h3>${esc(section.title)} <span class="src">(description: ${esc(section.source)})</span>${failingBadge}</h3>
<div class="rules" data-group="description">`;
    yield* rows(described);
    yield '</div>\n';
    if (std.length) {
      yield `<h4 class="std-heading">Required by a standard the description names (JSON-RPC 2.0, HTTP)</h4><div class="rules std" data-group="standard">`;
      yield* rows(std);
      yield '</div>';
    }
    yield '\n</section>';
  }
  const unknown = unknownRules(checks);
  if (unknown.length) {
    yield `\n<section class="rule-section" data-section="unknown"><h3>Checks naming a rule outside the catalogue</h3><div class="rules">`;
    yield* rows(unknown.map((id) => ({ id, kind: 'must', section: 'unknown', title: '(not in the rule catalogue)' })));
    yield '</div></section>';
  }
  yield '</section>';
}

const unknownRules = (checks: CheckSet) =>
  checks
    .rules()
    .filter((id) => !RULE_IDS.has(id))
    .sort();
const RULE_IDS: ReadonlySet<string> = new Set(RULES.map((r) => r.id));

function observationsSection(ctx: ReportContext): string {
  const { checks } = ctx;
  const blocks: string[] = [];
  for (const id of [...RULES.map((r) => r.id), ...unknownRules(checks)]) {
    const withObs = checks.of(id).filter((c) => c.evidence?.observation !== undefined);
    if (!withObs.length) continue;
    const rule = RULES.find((r) => r.id === id);
    const title = rule ? `${kindBadge(rule.kind)} <span class="title">${esc(rule.title)}</span>` : '';
    const counts = `<span class="counts">${withObs.length} observation${withObs.length === 1 ? '' : 's'}</span>`;
    const head = '<thead><tr><th>check</th><th>verdict</th><th>what the target does</th></tr></thead>';
    const rows = withObs
      .map((c) => {
        const cells = `<td>${verdictBadge(c.verdict)}</td><td>${observationList(c.evidence.observation)}</td>`;
        return `<tr data-check="${esc(c.id)}"><td><code>${esc(c.id)}</code></td>${cells}</tr>`;
      })
      .join('');
    blocks.push(`<details class="obs-rule" data-observations="${esc(id)}"><summary><span class="rid">${esc(id)}</span> ${title} ${counts}</summary>
<p><a href="#rule-${esc(id)}">the rule's checks</a></p>
<div class="scroll"><table class="obs-table">${head}<tbody>${rows}</tbody></table></div></details>`);
  }
  const intro =
    'Where the description leaves a point open, the suite records what the target does (never a failure). ' +
    'Grouped by rule, folded: open a rule to see its table. A baseline run compares these.';
  return `<section id="observations"><h2>Observations</h2>
<p>${intro}</p>
${blocks.length ? blocks.join('\n') : '<p class="none">No observations in this run.</p>'}</section>`;
}

type DriftItem = BaselineDiff['items'][number];

/** A drift row's "before / member" cell: the member a set gained or lost, or the value before. */
function driftBefore(i: DriftItem): string {
  if (i.member !== undefined) return brief(i.member);
  return i.before === undefined ? '' : brief(i.before);
}

/** A drift row's "now" cell: whether the member was added or removed, or the value now. */
function driftNow(i: DriftItem): string {
  if (i.member !== undefined) return i.kind === 'observation-new' ? 'added' : 'removed';
  return i.after === undefined ? '' : brief(i.after);
}

function baselineSection(diff: BaselineDiff): string {
  const rows = diff.items
    .map((i) => {
      const rule = `<td><a href="#rule-${esc(i.rule)}">${esc(i.rule)}</a></td>`;
      const what = `<td><code>${esc(i.check ?? '')}</code></td><td>${esc(i.kind)}</td><td>${esc(i.key ?? '')}</td>`;
      const change = `<td>${esc(driftBefore(i))}</td><td>${esc(driftNow(i))}</td>`;
      return `<tr data-drift-kind="${esc(i.kind)}" data-drift-rule="${esc(i.rule)}">${rule}${what}${change}</tr>`;
    })
    .join('');
  const { previous } = diff;
  const started = `<time datetime="${esc(previous.startedAt)}">${esc(humanTime(previous.startedAt))}</time>`;
  const counts = diff.items.length ? esc(describeCounts(diff)) : 'No drift: observations and verdicts are as before.';
  const head = [
    '<thead><tr><th>rule</th><th>check</th><th>change</th>',
    '<th>observation</th><th>before / member</th><th>now</th></tr></thead>',
  ].join('');
  return `<section id="baseline" data-drift="${diff.items.length}"><h2>Drift against the baseline</h2>
<p>Baseline: target ${esc(previous.target)}, started ${started}, chainprobe ${esc(previous.toolVersion)}. ${counts}</p>
${diff.items.length ? `<div class="scroll"><table class="drift">${head}<tbody>${rows}</tbody></table></div>` : ''}
${diff.notCompared.length ? `<p class="none">Not compared (run in only one of the two runs): ${esc(diff.notCompared.join(', '))}</p>` : ''}
</section>`;
}

/**
 * The parts of the page, in order. A module that adds a part exports a ReportSection and gets one
 * line here; its link appears in the navigation when it renders something.
 */
export const REPORT_SECTIONS: readonly ReportSection[] = [
  { id: 'comparison', nav: 'comparison', render: (ctx) => comparisonSection(ctx.results) },
  { id: 'scorecard', nav: 'scorecard', render: (ctx) => scorecardSection(ctx.results, ctx.checks) },
  { id: 'baseline', nav: 'baseline drift', render: (ctx) => (ctx.baseline ? baselineSection(ctx.baseline) : '') },
  { id: 'rule-matrix', nav: 'rules', render: ruleMatrix },
  { id: 'auth-surface', nav: 'auth surface', render: (ctx) => authSurfaceSection(ctx.results, ctx.checks) },
  {
    id: 'limiter',
    nav: 'rate limiter',
    render: (ctx) =>
      ctx.results.limiter != null || ctx.timeline.length > 0
        ? limiterSection(ctx.results.limiter, ctx.timeline, ctx.files.timeline)
        : '',
  },
  { id: 'observations', nav: 'observations', render: observationsSection },
  { id: 'trends', nav: 'trends', render: (ctx) => (ctx.history ? trendsSection(ctx.history) : '') },
];

const interruptedNote: HeadlineNote = (ctx) =>
  ctx.results.interrupted === true
    ? 'This run was interrupted: the rules it did not get to are marked error (could not test).'
    : undefined;

/** The lines under the headline verdict, in order. A module that adds one gets one line here. */
export const HEADLINE_NOTES: readonly HeadlineNote[] = [
  (ctx) => causeNote(ctx.results),
  (ctx) => insecureNote(ctx.results),
  interruptedNote,
  (ctx) => comparisonNote(ctx.results),
  (ctx) => waiverNote(ctx.results),
];

type Overall = 'PASS' | 'FAIL' | 'COULD NOT TEST';

/** Whether a rule had a check that was not skipped. */
const checkedRule = (checks: CheckSet, id: string) => [...checks.verdicts(id)].some((v) => v !== 'skipped');

/**
 * The one verdict of the run: FAIL when a rule fails, COULD NOT TEST when one could not be checked
 * (or none was), else PASS. With --compare the other deployment's rules count too (`other`), as in
 * the exit status.
 */
export function overallVerdict(ctx: Pick<ReportContext, 'checks' | 'verdictOf'> & { results?: ResultsFile }): {
  overall: Overall;
  failing: string[];
  errors: string[];
  other?: { label: string; self: string; failing: string[]; errors: string[] };
} {
  const ids = [...RULES.map((r) => r.id), ...unknownRules(ctx.checks)];
  // A rule failing only where unexpired waivers cover it does not fail the run (--waivers): the note says so.
  const failing = ids.filter((id) => ctx.verdictOf(id) === 'fail' && !ruleWaived(ctx.checks, id));
  const errors = ids.filter((id) => ctx.verdictOf(id) === 'error' && !ruleWaived(ctx.checks, id));
  const ran = ctx.checks.rules().some((id) => checkedRule(ctx.checks, id));
  const other = ctx.results && comparedSide(ctx.results);
  const fails = failing.length || other?.failing.length;
  const overall: Overall = fails ? 'FAIL' : errors.length || other?.errors.length || !ran ? 'COULD NOT TEST' : 'PASS';
  return { overall, failing, errors, ...(other && { other }) };
}

function headline(ctx: ReportContext): string {
  const { overall, failing, errors, other } = overallVerdict(ctx);
  const checked = ctx.checks.rules().filter((id) => checkedRule(ctx.checks, id)).length;
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const reasons: string[] = [];
  if (failing.length) reasons.push(`${plural(failing.length, 'rule')} failing: ${ruleLinks(failing)}`);
  if (errors.length) reasons.push(`${plural(errors.length, 'rule')} could not be tested: ${ruleLinks(errors)}`);
  if (overall === 'COULD NOT TEST' && !errors.length && !other?.errors.length) reasons.push('no check ran');
  if (overall === 'PASS' || (!failing.length && !errors.length && other)) {
    const n = (v: Verdict) => ctx.checks.rules().filter((id) => ctx.verdictOf(id) === v).length;
    const observed = `${n('observed')} observed (points the description leaves open)`;
    const self = other ? `${esc(other.self)}: ` : '';
    reasons.push(`${self}${plural(checked, 'rule')} checked, none failing: ${n('pass')} pass, ${observed}`);
  }
  // With --compare: the other deployment's failing rules, which its own report (and the comparison) shows.
  const elsewhere = (ids: string[], what: string) =>
    `<a href="#comparison">${esc(other!.label)}</a>: ${plural(ids.length, 'rule')} ${what}: ${esc(ids.join(', '))}`;
  if (other?.failing.length) reasons.push(elsewhere(other.failing, 'failing'));
  if (other?.errors.length) reasons.push(elsewhere(other.errors, 'could not be tested'));
  const notes = HEADLINE_NOTES.map((n) => n(ctx)).filter((n): n is string => Boolean(n));
  const cls = overall === 'PASS' ? 'pass' : overall === 'FAIL' ? 'fail' : 'error';
  const why = `<span class="why">${reasons.join('<br>')}</span>`;
  return `<div class="headline h-${cls}" id="headline" data-headline="${overall}"><span class="big">${overall}</span>${why}</div>
${notes.length ? `<ul class="notes" data-slot="notes">${notes.map((n) => `<li>${n}</li>`).join('')}</ul>` : ''}`;
}

/** Labelled tallies: rules (their rolled-up verdicts) in one place, checks in another. */
function tallies(ctx: ReportContext): string {
  const { results } = ctx;
  const ruleIds = [...RULES.map((r) => r.id), ...unknownRules(ctx.checks)];
  const ruleCount: Record<Verdict, number> = { pass: 0, fail: 0, observed: 0, skipped: 0, error: 0 };
  for (const id of ruleIds) ruleCount[ctx.verdictOf(id)]++;
  const checks = ctx.checks.count;
  const failingRules = RULES.filter((r) => ctx.verdictOf(r.id) === 'fail');
  const std = failingRules.filter((r) => r.kind === 'std').length;
  const row = (what: string, n: Record<Verdict, number>) =>
    `<ul class="counts">${VERDICTS.map((v) => `<li class="c-${v}" data-${what}-count="${v}"><b>${esc(n[v] ?? 0)}</b> ${v}</li>`).join('')}</ul>`;
  const ran = `${ctx.checks.rules().length} of the ${RULES.length} catalogue rules had checks in this run`;
  const broken = failingRules.length
    ? `; of the ${failingRules.length} failing, ${failingRules.length - std} break the description, ${std} break a standard`
    : '';
  const checkCount = results.summary ?? { pass: 0, fail: 0, observed: 0, skipped: 0, error: 0 };
  const checksText = `${checks} check${checks === 1 ? '' : 's'}, each keyed to one rule.`;
  return `<div class="tallies">
<div class="tally" data-tally="rules"><h2>Rules</h2><p>${ran}${broken}.</p>${row('rule', ruleCount)}</div>
<div class="tally" data-tally="checks"><h2>Checks</h2><p>${checksText}</p>${row('check', checkCount)}</div>
</div>`;
}

/** The run's own facts in words: target, times, tool, and any extra fields of results.json. */
function facts(ctx: ReportContext): string {
  const { results } = ctx;
  const started = Date.parse(results.startedAt);
  const finished = Date.parse(results.finishedAt);
  const time = (iso: string, field: string) =>
    `<time datetime="${esc(iso)}" data-field="${field}">${esc(humanTime(iso))}</time>`;
  const rows: [string, string][] = [
    ['started', time(results.startedAt, 'startedAt')],
    [
      'finished',
      `${time(results.finishedAt, 'finishedAt')}${Number.isFinite(finished - started) ? ` (took ${esc(formatDuration(finished - started))})` : ''}`,
    ],
    ['tool', `<span data-field="tool">${esc(results.tool?.name)} ${esc(results.tool?.version)}</span>`],
  ];
  for (const [k, v] of Object.entries(results)) {
    if (STANDARD_FIELDS.has(k) || k === 'interrupted') continue;
    const text = k === 'reference' ? referenceWords(v) : words(v, humanKey(k).unit);
    // A long field (a fleet's roll-ups...) belongs to a section of its own, not to the header.
    rows.push([
      humanKey(k).label,
      text.length > MAX_FACT_CHARS && k !== 'reference' ? `in ${esc(safeRelativeHref(ctx.files.results))}` : esc(text),
    ]);
  }
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('')}</dl>`;
}

/** results.reference (the embedded reference's switches) as a sentence. */
function referenceWords(v: unknown): string {
  const o = (v ?? {}) as { faults?: unknown; variants?: unknown; faultDetails?: unknown };
  const list = (x: unknown) => (Array.isArray(x) ? x.map(String) : []);
  const faults = list(o.faults);
  const variants = list(o.variants);
  const details = Array.isArray(o.faultDetails) ? (o.faultDetails as FaultDetail[]) : [];
  const fault = (name: string) => {
    const f = details.find((d) => d?.name === name);
    return f ? `${name} (breaks ${f.rule}: ${f.description})` : name;
  };
  const parts = [
    faults.length
      ? `fault${faults.length === 1 ? '' : 's'} switched on: ${faults.map(fault).join('; ')}`
      : 'no fault switched on',
  ];
  if (variants.length) parts.push(`open-behaviour variant${variants.length === 1 ? '' : 's'}: ${variants.join(', ')}`);
  const rest = Object.fromEntries(
    Object.entries(o).filter(([k]) => k !== 'faults' && k !== 'variants' && k !== 'faultDetails'),
  );
  if (Object.keys(rest).length) parts.push(words(rest));
  return `the embedded reference service, ${parts.join('; ')}`;
}

function summaryHeader(ctx: ReportContext, parts: readonly { section: ReportSection }[]): string {
  const links = [
    ...parts.map(({ section }) => `<a href="#${esc(section.id)}">${esc(section.nav)}</a>`),
    `<a href="${esc(safeRelativeHref(ctx.files.results))}" data-link="results">results.json</a>`,
    `<a href="${esc(safeRelativeHref(ctx.files.junit))}" data-link="junit">junit.xml</a>`,
    `<a href="${esc(safeRelativeHref(ctx.files.timeline))}" data-link="timeline">timeline.json</a>`,
  ];
  const pw = safeRelativeHref(ctx.playwrightReport);
  if (pw) links.push(`<a href="${esc(pw)}" data-link="playwright">Playwright report</a>`);
  const { overall } = overallVerdict(ctx);
  return `<header id="summary" data-overall="${overall === 'PASS' ? 'pass' : overall === 'FAIL' ? 'fail' : 'error'}">
<h1>chainprobe report: <span data-field="target">${esc(ctx.results.target)}</span></h1>
${headline(ctx)}
${tallies(ctx)}
${facts(ctx)}
<nav>${links.join(' · ')}</nav>
</header>`;
}

// Two lines of the page script below, named and written in parts: the script's text (and so its
// CSP hash) is the same as when they were written out in it.
/** Hides the rules the filter drops, and a standard group, section or "no match" note left empty. */
const SCRIPT_FILTER_SECTIONS =
  "let any=false;q('#rule-matrix .rule-section').forEach(s=>{let n=0;q('.rules',s).forEach(g=>{let m=0;" +
  "q('details.rule',g).forEach(d=>{const ok=keep[f](d.dataset.verdict);d.hidden=!ok;if(ok)m++;});g.hidden=!m;" +
  "const h=g.previousElementSibling;if(h&&h.classList.contains('std-heading'))h.hidden=!m;n+=m;});" +
  's.hidden=!n;if(n)any=true;});';
/** Scrolls each response box so its marked JSON path is in view. */
const SCRIPT_REVEAL =
  "const reveal=r=>q('pre',r).forEach(p=>{const m=p.querySelector('mark');if(m&&p.scrollHeight>p.clientHeight)" +
  'p.scrollTop+=m.getBoundingClientRect().top-p.getBoundingClientRect().top-p.clientHeight/3;});';

// Filters (rules of a verdict; a section or heading with none left hides, the chosen button shows
// pressed), expand/collapse, response boxes scrolled to the marked JSON path, and times in the
// reader's own time zone. The page reads fully
// without it (details elements do the rest).
const SCRIPT = `(()=>{
const b=document.body,q=(s,r)=>[...(r||document).querySelectorAll(s)];
const keep={all:()=>true,problems:v=>v==='fail'||v==='error',observed:v=>v==='observed',skipped:v=>v==='skipped'};
const filter=f=>{b.dataset.filter=f;q('button[data-filter]').forEach(x=>x.setAttribute('aria-pressed',String(x.dataset.filter===f)));
${SCRIPT_FILTER_SECTIONS}
const none=document.getElementById('no-match');if(none)none.hidden=any;};
q('button[data-filter]').forEach(e=>e.addEventListener('click',()=>filter(e.dataset.filter)));
q('[data-expand]').forEach(e=>e.addEventListener('click',()=>{const o=e.dataset.expand==='open';q('#rule-matrix details').forEach(d=>{d.open=o;});}));
${SCRIPT_REVEAL}
reveal();document.addEventListener('toggle',e=>{if(e.target.open)reveal(e.target);},true);
const fmt=new Intl.DateTimeFormat(undefined,${TIME_OPTIONS_JSON});
q('time[datetime]').forEach(t=>{const d=new Date(t.getAttribute('datetime'));if(!isNaN(d))t.textContent=fmt.format(d);});
})();`;

const REDACTION_NOTE =
  'Request and response data are redacted at recording time; credentials appear only as masked prefixes.';

export function renderHtml(inputs: HtmlInputs): string {
  return [...renderHtmlParts(inputs)].join('');
}

/** The page in pieces, in order, made as they are asked for (a large report is written piece by piece). */
export function* renderHtmlParts(inputs: HtmlInputs): Generator<string> {
  const { results } = inputs;
  const checks = inputs.checks ?? checkSetOf(results.checks ?? []);
  const verdictOf = (id: string): Verdict =>
    (results.rules?.[id] as Verdict | undefined) ?? rollUpSet(checks.verdicts(id));
  const ctx: ReportContext = { ...inputs, checks, verdictOf };
  const parts = REPORT_SECTIONS.map((section) => ({ section, html: section.render(ctx) })).filter((p) => p.html !== '');
  const scriptHash = createHash('sha256').update(SCRIPT).digest('base64');
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src data:; base-uri 'none'; form-action 'none'`;
  const head = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>${esc(reportTitle(results))}</title>
<style>${REPORT_CSS}</style>
</head>
<body data-filter="all">
${summaryHeader(ctx, parts)}
<main>
`;
  yield head;
  for (const [i, p] of parts.entries()) {
    if (i) yield '\n';
    if (typeof p.html === 'string') yield p.html;
    else yield* p.html;
  }
  yield `
</main>
<footer>Written by ${esc(results.tool?.name)} ${esc(results.tool?.version)}. ${REDACTION_NOTE}</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
