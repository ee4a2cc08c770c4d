// index.html: the report a person opens first. One self-contained file: inline CSS, a few lines of
// inline script (filters only; the page is complete without it), SVG charts drawn at write time.
// Every piece of text is escaped with esc(); a Content-Security-Policy that allows no network
// fetches and only the page's own script (by hash) makes a slip harmless as well.
import { createHash } from 'node:crypto';
import type { ResultsFile } from '../src/results.js';
import { RULES, SECTIONS, type RuleDef } from '../src/rules/catalogue.js';
import { curlOf, type Exchange } from '../src/record/recorder.js';
import type { TimelineEntry } from '../src/run/types.js';
import { rollUp, VERDICTS, type CheckResult, type Verdict } from '../src/verdict.js';
import { describeCounts, type BaselineDiff } from './baseline.js';
import { limiterSection } from './limiter.js';
import { scorecardSection } from './scorecard.js';
import { trendsSection } from './trends.js';
import { flattenObservation } from './observation.js';
import { brief, esc, formatDuration, safeRelativeHref, show } from './text.js';
import { REPORT_CSS } from './style.js';

export interface HtmlInputs {
  results: ResultsFile;
  timeline: readonly TimelineEntry[];
  playwrightReport?: string;
  baseline?: BaselineDiff;
  /** --history: the last runs, oldest first, this one last (the trends section). */
  history?: readonly ResultsFile[];
  /** File names of the siblings written beside index.html. */
  files: { results: string; junit: string; timeline: string };
}

/** Full request/response detail is kept for checks a person must act on; the rest link to results.json. */
const DETAILED: ReadonlySet<Verdict> = new Set(['fail', 'error']);
const MAX_EXCHANGES = 5;
const STANDARD_FIELDS = new Set(['tool', 'target', 'startedAt', 'finishedAt', 'summary', 'rules', 'checks', 'limiter']);
const EVIDENCE_FIELDS = new Set(['exchanges', 'expected', 'actual', 'path', 'observation', 'cause']);

const KIND_LABEL: Record<RuleDef['kind'], string> = { must: 'must', std: 'std', observe: 'observe' };

const verdictBadge = (v: string) => `<span class="verdict v-${esc(v)}">${esc(v)}</span>`;
const kindBadge = (k: RuleDef['kind']) => `<span class="kind k-${k}" title="${k === 'std' ? 'required by a standard the description names' : k === 'observe' ? 'the description leaves it open: recorded, never failed' : 'documented by the service description'}">${KIND_LABEL[k]}</span>`;

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

function exchangeLine(x: Exchange): string {
  const status = x.error ? `error: ${x.error}` : x.status === undefined ? 'no answer' : String(x.status);
  return `<span class="method">${esc(x.method)}</span> <code class="url">${esc(x.url)}</code> → <span class="status">${esc(status)}</span>${x.durationMs === undefined ? '' : ` <span class="dur">${esc(formatDuration(x.durationMs))}</span>`}${x.purpose ? ` <span class="purpose">${esc(x.purpose)}</span>` : ''}`;
}

function exchangeFull(x: Exchange): string {
  const req = [`${x.method} ${x.url}`, headerLines(x.requestHeaders), x.requestBody === undefined ? '' : `\n${prettyBody(x.requestBody)}`].filter(Boolean).join('\n');
  const res = x.error
    ? `(no response: ${x.error})`
    : [`status ${x.status ?? '-'}`, headerLines(x.responseHeaders), x.responseBody === undefined ? '' : `\n${prettyBody(x.responseBody)}`].filter(Boolean).join('\n');
  return `<div class="exchange" data-seq="${esc(x.seq)}">
<div class="xline">${exchangeLine(x)}</div>
<div class="cols"><div><h5>request</h5><pre data-field="request">${esc(show(req))}</pre></div><div><h5>response</h5><pre data-field="response">${esc(show(res))}</pre></div></div>
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
  if ('expected' in ev || 'actual' in ev)
    parts.push(
      `<div class="cols expected-actual"><div><h5>expected</h5><pre data-field="expected">${esc(show(ev.expected))}</pre></div><div><h5>actual</h5><pre data-field="actual">${esc(show(ev.actual))}</pre></div></div>`,
    );
  if (ev.path !== undefined) parts.push(`<p>JSON path: <code data-field="path">${esc(ev.path)}</code></p>`);
  if (ev.cause !== undefined) parts.push(`<p class="cause">cause: ${esc(ev.cause)}</p>`);
  if (ev.observation !== undefined) parts.push(`<h5>observed</h5>${observationList(ev.observation)}`);
  const exchanges = Array.isArray(ev.exchanges) ? ev.exchanges : [];
  if (exchanges.length) {
    const shown = exchanges.slice(0, MAX_EXCHANGES);
    parts.push(
      DETAILED.has(c.verdict)
        ? shown.map(exchangeFull).join('')
        : `<ul class="xlist">${shown.map((x) => `<li>${exchangeLine(x)}</li>`).join('')}</ul>`,
    );
    if (exchanges.length > shown.length) parts.push(`<p class="more">${exchanges.length - shown.length} more exchanges in results.json</p>`);
  }
  const extra = Object.fromEntries(Object.entries(ev).filter(([k]) => !EVIDENCE_FIELDS.has(k)));
  if (Object.keys(extra).length) parts.push(`<details class="extra"><summary>more evidence</summary><pre>${esc(show(extra))}</pre></details>`);
  return parts.join('\n');
}

function checkItem(c: CheckResult): string {
  const body = checkBody(c);
  const head = `${verdictBadge(c.verdict)} <code class="cid">${esc(c.id)}</code> <span class="msg">${esc(c.message)}</span>${c.durationMs === undefined ? '' : ` <span class="dur">${esc(formatDuration(c.durationMs))}</span>`}`;
  if (!body) return `<div class="check leaf" data-check="${esc(c.id)}" data-verdict="${esc(c.verdict)}">${head}</div>`;
  return `<details class="check" data-check="${esc(c.id)}" data-verdict="${esc(c.verdict)}"${c.verdict === 'fail' ? ' open' : ''}><summary>${head}</summary><div class="evidence">${body}</div></details>`;
}

function countsText(checks: readonly CheckResult[]): string {
  if (!checks.length) return 'no check ran';
  const n: Partial<Record<Verdict, number>> = {};
  for (const c of checks) n[c.verdict] = (n[c.verdict] ?? 0) + 1;
  return `${checks.length} check${checks.length === 1 ? '' : 's'}: ${VERDICTS.filter((v) => n[v]).map((v) => `${n[v]} ${v}`).join(', ')}`;
}

function ruleRow(rule: RuleDef, verdict: Verdict, checks: readonly CheckResult[]): string {
  const body = checks.length ? checks.map(checkItem).join('\n') : '<p class="none">No check of this rule ran in this run (not selected, or its target section is missing).</p>';
  return `<details class="rule" id="rule-${esc(rule.id)}" data-rule="${esc(rule.id)}" data-kind="${rule.kind}" data-verdict="${esc(verdict)}"${verdict === 'fail' ? ' open' : ''}>
<summary><span class="rid">${esc(rule.id)}</span> ${kindBadge(rule.kind)} ${verdictBadge(verdict)} <span class="title">${esc(rule.title)}</span> <span class="counts">${esc(countsText(checks))}</span></summary>
<div class="checks">${body}</div>
</details>`;
}

function ruleMatrix(results: ResultsFile, byRule: Map<string, CheckResult[]>): string {
  const verdictOf = (id: string): Verdict => (results.rules?.[id] as Verdict | undefined) ?? rollUp((byRule.get(id) ?? []).map((c) => c.verdict));
  const out: string[] = [];
  for (const section of SECTIONS) {
    const rules = RULES.filter((r) => r.section === section.key);
    const described = rules.filter((r) => r.kind !== 'std');
    const std = rules.filter((r) => r.kind === 'std');
    const failing = rules.filter((r) => verdictOf(r.id) === 'fail').length;
    out.push(`<section class="rule-section" id="section-${esc(section.key)}" data-section="${esc(section.key)}">
<h3>${esc(section.title)} <span class="src">(description: ${esc(section.source)})</span>${failing ? ` <span class="verdict v-fail">${failing} failing</span>` : ''}</h3>
<div class="rules" data-group="description">${described.map((r) => ruleRow(r, verdictOf(r.id), byRule.get(r.id) ?? [])).join('\n')}</div>
${std.length ? `<h4 class="std-heading">Required by a standard the description names (JSON-RPC 2.0, HTTP)</h4><div class="rules std" data-group="standard">${std.map((r) => ruleRow(r, verdictOf(r.id), byRule.get(r.id) ?? [])).join('\n')}</div>` : ''}
</section>`);
  }
  const known = new Set(RULES.map((r) => r.id));
  const unknown = [...byRule.keys()].filter((id) => !known.has(id)).sort();
  if (unknown.length)
    out.push(`<section class="rule-section" data-section="unknown"><h3>Checks naming a rule outside the catalogue</h3><div class="rules">${unknown
      .map((id) => ruleRow({ id, kind: 'must', section: 'unknown', title: '(not in the rule catalogue)' }, verdictOf(id), byRule.get(id)!))
      .join('\n')}</div></section>`);
  return `<section id="rule-matrix"><h2>Rules</h2>
<div class="toolbar" role="toolbar">show <button type="button" data-filter="all" aria-pressed="true">all</button><button type="button" data-filter="problems">fail + error</button><button type="button" data-filter="observed">observed</button><button type="button" data-filter="skipped">skipped</button> · <button type="button" data-expand="open">expand all</button><button type="button" data-expand="close">collapse all</button></div>
${out.join('\n')}</section>`;
}

function observationsSection(byRule: Map<string, CheckResult[]>): string {
  const order = [...RULES.map((r) => r.id), ...[...byRule.keys()].filter((id) => !RULES.some((r) => r.id === id)).sort()];
  const blocks: string[] = [];
  for (const id of order) {
    const withObs = (byRule.get(id) ?? []).filter((c) => c.evidence?.observation !== undefined);
    if (!withObs.length) continue;
    const rule = RULES.find((r) => r.id === id);
    blocks.push(`<div class="obs-rule" data-observations="${esc(id)}"><h3><a href="#rule-${esc(id)}">${esc(id)}</a> ${rule ? `${kindBadge(rule.kind)} ${esc(rule.title)}` : ''}</h3>
<table class="obs-table"><thead><tr><th>check</th><th>verdict</th><th>what the target does</th></tr></thead><tbody>${withObs
      .map((c) => `<tr data-check="${esc(c.id)}"><td><code>${esc(c.id)}</code></td><td>${verdictBadge(c.verdict)}</td><td>${observationList(c.evidence.observation)}</td></tr>`)
      .join('')}</tbody></table></div>`);
  }
  return `<section id="observations"><h2>Observations</h2>
<p>Where the description leaves a point open, the suite records what the target does (never a failure). Grouped by rule; a baseline run compares these.</p>
${blocks.length ? blocks.join('\n') : '<p class="none">No observations in this run.</p>'}</section>`;
}

function baselineSection(diff: BaselineDiff): string {
  const rows = diff.items
    .map(
      (i) =>
        `<tr data-drift-kind="${esc(i.kind)}" data-drift-rule="${esc(i.rule)}"><td><a href="#rule-${esc(i.rule)}">${esc(i.rule)}</a></td><td><code>${esc(i.check ?? '')}</code></td><td>${esc(i.kind)}</td><td>${esc(i.key ?? '')}</td><td>${esc(
          i.member !== undefined ? brief(i.member) : i.before === undefined ? '' : brief(i.before),
        )}</td><td>${esc(i.member !== undefined ? (i.kind === 'observation-new' ? 'added' : 'removed') : i.after === undefined ? '' : brief(i.after))}</td></tr>`,
    )
    .join('');
  return `<section id="baseline" data-drift="${diff.items.length}"><h2>Drift against the baseline</h2>
<p>Baseline: target ${esc(diff.previous.target)}, started ${esc(diff.previous.startedAt)}, chainprobe ${esc(diff.previous.toolVersion)}. ${diff.items.length ? esc(describeCounts(diff)) : 'No drift: observations and verdicts are as before.'}</p>
${diff.items.length ? `<table class="drift"><thead><tr><th>rule</th><th>check</th><th>change</th><th>observation</th><th>before / member</th><th>now</th></tr></thead><tbody>${rows}</tbody></table>` : ''}
${diff.notCompared.length ? `<p class="none">Not compared (run in only one of the two runs): ${esc(diff.notCompared.join(', '))}</p>` : ''}
</section>`;
}

function summaryHeader(inputs: HtmlInputs, byRule: Map<string, CheckResult[]>): string {
  const { results } = inputs;
  const s = results.summary;
  const started = Date.parse(results.startedAt);
  const finished = Date.parse(results.finishedAt);
  const failingRules = RULES.filter((r) => results.rules?.[r.id] === 'fail');
  const errorRules = RULES.filter((r) => results.rules?.[r.id] === 'error');
  const stdFailing = failingRules.filter((r) => r.kind === 'std').length;
  const overall = s.fail > 0 || s.error > 0 ? 'fail' : 'pass';
  const links = [
    `<a href="#rule-matrix">rules</a>`,
    `<a href="#observations">observations</a>`,
    inputs.timeline.length || results.limiter ? `<a href="#limiter">rate limiter</a>` : '',
    inputs.baseline ? `<a href="#baseline">baseline drift</a>` : '',
    `<a href="${esc(safeRelativeHref(inputs.files.results))}" data-link="results">results.json</a>`,
    `<a href="${esc(safeRelativeHref(inputs.files.junit))}" data-link="junit">junit.xml</a>`,
    `<a href="${esc(safeRelativeHref(inputs.files.timeline))}" data-link="timeline">timeline.json</a>`,
  ];
  const pw = safeRelativeHref(inputs.playwrightReport);
  if (pw) links.push(`<a href="${esc(pw)}" data-link="playwright">Playwright report</a>`);
  const extras = Object.entries(results).filter(([k]) => !STANDARD_FIELDS.has(k));
  const quick = (rules: RuleDef[], v: string) =>
    rules.length ? `<p class="quick">${verdictBadge(v)} ${rules.map((r) => `<a href="#rule-${esc(r.id)}">${esc(r.id)}</a>`).join(' ')}</p>` : '';
  return `<header id="summary" data-overall="${overall}">
<h1>chainprobe report: <span data-field="target">${esc(results.target)}</span></h1>
<p class="meta">started <time data-field="startedAt">${esc(results.startedAt)}</time> · finished <time data-field="finishedAt">${esc(results.finishedAt)}</time>${Number.isFinite(finished - started) ? ` (${esc(formatDuration(finished - started))})` : ''} · <span data-field="tool">${esc(results.tool?.name)} ${esc(results.tool?.version)}</span></p>
${results.interrupted === true ? '<p class="banner">This run was interrupted: checks that did not run are marked error.</p>' : ''}
<ul class="counts">${VERDICTS.map((v) => `<li class="c-${v}" data-count="${v}"><b>${esc(s?.[v] ?? 0)}</b> ${v}</li>`).join('')}</ul>
<p class="rulecount">${byRule.size} rules checked of ${RULES.length}; ${failingRules.length} failing${failingRules.length ? ` (${failingRules.length - stdFailing} break the description, ${stdFailing} break a standard)` : ''}, ${errorRules.length} could not be tested.</p>
${quick(failingRules, 'fail')}${quick(errorRules, 'error')}
${extras.length ? `<dl class="run-extra">${extras.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(typeof v === 'string' ? v : brief(v, 300))}</dd>`).join('')}</dl>` : ''}
<nav>${links.filter(Boolean).join(' · ')}</nav>
</header>`;
}

// Filters and expand/collapse. The page reads fully without it (details elements do the rest).
const SCRIPT = `(()=>{const b=document.body;document.querySelectorAll('[data-filter]').forEach(e=>e.addEventListener('click',()=>{b.dataset.filter=e.dataset.filter;document.querySelectorAll('[data-filter]').forEach(x=>x.setAttribute('aria-pressed',String(x===e)));}));document.querySelectorAll('[data-expand]').forEach(e=>e.addEventListener('click',()=>{const o=e.dataset.expand==='open';document.querySelectorAll('#rule-matrix details').forEach(d=>{d.open=o;});}));})();`;

export function renderHtml(inputs: HtmlInputs): string {
  const { results } = inputs;
  const byRule = new Map<string, CheckResult[]>();
  for (const c of results.checks ?? []) {
    const list = byRule.get(c.rule);
    if (list) list.push(c);
    else byRule.set(c.rule, [c]);
  }
  const scriptHash = createHash('sha256').update(SCRIPT).digest('base64');
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src data:; base-uri 'none'; form-action 'none'`;
  const showLimiter = results.limiter != null || inputs.timeline.length > 0;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>chainprobe: ${esc(results.target)} - ${results.summary?.fail ? `${esc(results.summary.fail)} failing` : 'no failures'}</title>
<style>${REPORT_CSS}</style>
</head>
<body data-filter="all">
${summaryHeader(inputs, byRule)}
<main>
${scorecardSection(results)}
${inputs.baseline ? baselineSection(inputs.baseline) : ''}
${ruleMatrix(results, byRule)}
${observationsSection(byRule)}
${showLimiter ? limiterSection(results.limiter, inputs.timeline, inputs.files.timeline) : ''}
${inputs.history ? trendsSection(inputs.history) : ''}
</main>
<footer>Written by ${esc(results.tool?.name)} ${esc(results.tool?.version)}. Request and response data are redacted at recording time; credentials appear only as masked prefixes.</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
