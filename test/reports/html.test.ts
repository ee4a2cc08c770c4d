import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPEN_FAILURES_PER_RULE, REPORT_SECTIONS, renderHtml, type HtmlInputs } from '../../reports/html.js';
import { writeReports } from '../../reports/write.js';
import { diffBaseline } from '../../reports/baseline.js';
import { RULES } from '../../src/rules/catalogue.js';
import { humanTime } from '../../reports/words.js';
import { faultByName } from '../../reference/faults/index.js';
import { syntheticResults, syntheticTimeline, XSS_BODY, XSS_MESSAGE } from './fixture.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';

const files = { results: 'results.json', junit: 'junit.xml', timeline: 'timeline.json' };
const render = (over: Partial<HtmlInputs> = {}) =>
  renderHtml({ results: syntheticResults(), timeline: syntheticTimeline(), files, ...over });

/** Asserts on a whole page without printing the page when it fails. */
const has = (html: string, re: RegExp | string, what = String(re)) =>
  assert.ok(typeof re === 'string' ? html.includes(re) : re.test(html), `missing: ${what}`);
const lacks = (html: string, re: RegExp | string, what = String(re)) =>
  assert.ok(!(typeof re === 'string' ? html.includes(re) : re.test(html)), `unexpected: ${what}`);

/** The opening tag of the rule row of this id. */
function ruleTag(html: string, id: string): string {
  const m = new RegExp(`<details class="rule" id="rule-${id}"[^>]*>`).exec(html);
  assert.ok(m, `no rule row for ${id}`);
  return m[0];
}

test('the matrix has every catalogue rule, with its kind and rolled-up verdict; failing rules are expanded', () => {
  const results = syntheticResults();
  const html = render({ results });
  for (const rule of RULES) {
    const tag = ruleTag(html, rule.id);
    assert.match(tag, new RegExp(`data-rule="${rule.id}"`));
    assert.match(tag, new RegExp(`data-kind="${rule.kind}"`));
    assert.match(tag, new RegExp(`data-verdict="${results.rules[rule.id]}"`));
    assert.equal(tag.endsWith(' open>'), results.rules[rule.id] === 'fail', `${rule.id} expanded iff failing`);
  }
  // Failing checks are open too, with expected vs actual, the JSON path, exchanges and a curl line.
  const nft = html.slice(html.indexOf('id="rule-NFT-02"'), html.indexOf('id="rule-NFT-03"'));
  has(nft, /<details class="check" data-check="nft\.event\.id\[9b2e0c1a\]" data-verdict="fail" open>/);
  for (const field of ['expected', 'actual', 'path', 'request', 'response', 'curl'])
    has(nft, new RegExp(`data-field="${field}"`), field);
});

test('std rules sit under their own heading, apart from the description rules', () => {
  const html = render();
  const rpc = html.slice(html.indexOf('data-section="RPC"'), html.indexOf('data-section="NFT"'));
  const std = rpc.slice(rpc.indexOf('data-group="standard"'));
  const described = rpc.slice(0, rpc.indexOf('data-group="standard"'));
  for (const rule of RULES.filter((r) => r.section === 'RPC')) {
    assert.equal(std.includes(`data-rule="${rule.id}"`), rule.kind === 'std', rule.id);
    assert.equal(described.includes(`data-rule="${rule.id}"`), rule.kind !== 'std', rule.id);
  }
  has(rpc, /class="std-heading"/);
  has(html, /1 break a standard/);
});

test('target text is escaped: injected markup stays inert', () => {
  const html = render();
  assert.equal(html.includes('<script>window.__chainprobeXss'), false);
  assert.equal(html.includes('<img src=x'), false);
  assert.equal(html.includes('<svg onload'), false);
  assert.ok(html.includes('&lt;script&gt;window.__chainprobeXss=1&lt;/script&gt;'));
  assert.equal((html.match(/<script/g) ?? []).length, 1, 'only the page script');
  lacks(html, /[\u0001-\u0008\u000b\u000c\u000e-\u001f]/, 'no control characters');
  assert.ok(XSS_MESSAGE && XSS_BODY);
  // The title and the target name come from the target file: escaped as well.
  has(html, /<title>chainprobe: synthetic &lt;staging&gt;/);
});

test('self-contained: no external resource, a CSP that allows only the page script by hash', () => {
  const html = render({ playwrightReport: 'playwright/index.html' });
  lacks(html, /<[a-z][^>]*\ssrc=/i);
  lacks(html, /<link\b/);
  lacks(html, /href="(https?:)?\/\//);
  lacks(html, /url\(/);
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const hash = createHash('sha256').update(script).digest('base64');
  assert.ok(html.includes(`script-src 'sha256-${hash}'`));
  has(html, /default-src 'none'/);
  has(html, /<a href="playwright\/index\.html" data-link="playwright">/);
  has(html, /<a href="timeline\.json" data-link="timeline">/);
  // A link that is not a plain relative path is dropped.
  for (const bad of ['javascript:alert(1)', '//evil.invalid/x', '../outside.html', '/etc/passwd'])
    lacks(render({ playwrightReport: bad }), 'data-link="playwright"', bad);
});

test('charts are drawn from the timeline: remaining, reset, per-second rate with the cap, retry-after', () => {
  const timeline = syntheticTimeline();
  const html = render({ timeline });
  for (const id of ['remaining', 'reset', 'rate', 'retry-after']) {
    const m = new RegExp(`<svg class="chart-svg" data-chart="${id}" data-points="(\\d+)"[\\s\\S]*?</svg>`).exec(html);
    assert.ok(m, `chart ${id}`);
    assert.ok(Number(m[1]) > 0, `chart ${id} has data`);
    const paths = [
      ...m[0].matchAll(/<path class="(?:series|bars)[^"]*" data-series="[^"]*" data-points="(\d+)" d="([^"]*)"/g),
    ];
    const coords = paths.reduce((n, p) => n + (p[2]!.match(/M/g) ?? []).length, 0);
    assert.ok(coords >= 2, `chart ${id} draws points (${coords})`);
  }
  has(html, /data-series="cap 20\/s"/);
  has(html, /data-series="Limit 10"/);
  // Observed remaining has one marker per response that carried the header.
  const withRemaining = timeline.filter((e) => e.remaining !== undefined).length;
  has(html, new RegExp(`data-series="observed" data-points="${withRemaining}"`));
  // Estimates with their uncertainty.
  has(
    html,
    /<tr data-param="emissionIntervalMs"><th>[^<]*<\/th><td>1,000 ms \(3,600 requests\/hour\)<\/td><td>± 35 ms<\/td>/,
  );
  has(html, /data-param="emissionIntervalFromRecoveryMs"/);
  // The probes may also put T's uncertainty beside it.
  const results = syntheticResults();
  const { uncertainty: _dropped, ...rest } = results.limiter!;
  const beside = render({ results: { ...results, limiter: { ...rest, uncertaintyMs: 12 } }, timeline });
  has(beside, /<tr data-param="emissionIntervalMs"><th>[^<]*<\/th><td>[^<]*<\/td><td>± 12 ms<\/td>/);
  lacks(beside, 'data-param="uncertaintyMs"');
});

test('no limiter section when the probes did not run; a baseline section when given', () => {
  const results = syntheticResults({ limiter: null });
  const html = render({ results, timeline: [] });
  lacks(html, /id="limiter"/);
  lacks(html, /data-chart=/);
  const changed = structuredClone(results);
  changed.checks.find((c) => c.rule === 'AUTH-07')!.evidence.observation!.status = 403;
  const withBaseline = render({ results: changed, timeline: [], baseline: diffBaseline(results, changed) });
  has(withBaseline, /<section id="baseline" data-drift="1">/);
  has(withBaseline, /data-drift-kind="observation-changed" data-drift-rule="AUTH-07"/);
});

test('observations are grouped by rule', () => {
  const html = render();
  const section = html.slice(html.indexOf('<section id="observations">'));
  for (const id of ['AUTH-07', 'AUTH-09', 'NFT-03', 'RES-02', 'RL-13'])
    has(section, new RegExp(`data-observations="${id}"`), id);
  has(section, /<dt>extraFields<\/dt><dd>\[&quot;royalty&quot;,&quot;marketplace&quot;\]<\/dd>/);
});

test('writeReports writes the four files; results.json and timeline.json round-trip', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-reports-'));
  try {
    const results = syntheticResults();
    const timeline = syntheticTimeline();
    const out = join(dir, 'nested', 'out');
    const { files: written } = await writeReports(out, { results, timeline });
    assert.deepEqual(written.map((f) => f.slice(out.length + 1)).sort(), [
      'index.html',
      'junit.xml',
      'results.json',
      'timeline.json',
    ]);
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')), JSON.parse(JSON.stringify(results)));
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'timeline.json'), 'utf8')), timeline);
    await writeReports(out, { results, timeline: [] });
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'timeline.json'), 'utf8')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('size: 1,000 checks and 1,000 timeline points', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-reports-'));
  try {
    const results = syntheticResults({ scale: 1000 });
    const timeline = syntheticTimeline(undefined, 1000);
    const t0 = performance.now();
    await writeReports(dir, { results, timeline });
    const ms = performance.now() - t0;
    const bytes = statSync(join(dir, 'index.html')).size;
    // Well under a second on a quiet machine; only a writer gone quadratic reaches this.
    t.diagnostic(`wrote in ${ms.toFixed(0)} ms, index.html ${bytes} bytes`);
    assert.ok(ms < SLOW_MACHINE_MS, `wrote in ${ms.toFixed(0)} ms`);
    assert.ok(bytes < 2_500_000, `index.html is ${bytes} bytes`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The page's <header> (headline, tallies, facts, navigation). */
const headerOf = (html: string) => html.slice(html.indexOf('<header id="summary"'), html.indexOf('</header>'));

test('one headline verdict first: FAIL naming the failing rules, COULD NOT TEST naming the untestable, PASS', () => {
  const results = syntheticResults();
  const html = render({ results });
  const header = headerOf(html);
  // The verdict is the first thing after the title.
  assert.ok(header.indexOf('data-headline=') < header.indexOf('data-tally='), 'headline before the tallies');
  has(header, /data-headline="FAIL"><span class="big">FAIL<\/span>/);
  const failing = Object.entries(results.rules)
    .filter(([, v]) => v === 'fail')
    .map(([id]) => id);
  for (const id of failing) has(header, `<a href="#rule-${id}">${id}</a>`, id);
  has(header, new RegExp(`${failing.length} rules failing`));

  const errorsOnly = syntheticResults({ checks: results.checks.filter((c) => c.verdict !== 'fail') });
  const untestable = Object.entries(errorsOnly.rules)
    .filter(([, v]) => v === 'error')
    .map(([id]) => id);
  assert.ok(untestable.length > 0);
  const e = headerOf(render({ results: errorsOnly }));
  has(e, /data-headline="COULD NOT TEST"/);
  for (const id of untestable) has(e, `<a href="#rule-${id}">${id}</a>`, id);

  const clean = syntheticResults({
    checks: results.checks.filter((c) => c.verdict === 'pass' || c.verdict === 'observed'),
  });
  has(headerOf(render({ results: clean })), /data-headline="PASS"/);
  has(
    headerOf(render({ results: syntheticResults({ checks: [], limiter: null }), timeline: [] })),
    /data-headline="COULD NOT TEST".*no check ran/,
  );
  // The headline's notes slot: an interrupted run says so under the verdict.
  const cut = headerOf(render({ results: syntheticResults({ extra: { interrupted: true } }) }));
  has(cut, /<ul class="notes" data-slot="notes"><li>This run was interrupted/);
});

test('rules and checks are counted in separate labelled places; times read as dates; no raw JSON in the header', () => {
  // As the run writes it (cli/start.ts): each fault with the rule it breaks, from the reference's catalogue.
  const faults = ['event-wrong-id', 'rl-cap-25'];
  const faultDetails = faults.map((name) => ({
    name,
    rule: faultByName(name)!.rule,
    description: faultByName(name)!.description,
  }));
  const results = syntheticResults({ extra: { reference: { faults, variants: [], faultDetails } } });
  const header = headerOf(render({ results }));
  const tally = (what: string) => header.slice(header.indexOf(`data-tally="${what}"`)).split('</div>')[0]!;
  has(tally('rules'), /<h2>Rules<\/h2>/);
  has(tally('checks'), /<h2>Checks<\/h2>/);
  const rolled = Object.values(results.rules);
  for (const v of ['pass', 'fail', 'observed', 'skipped', 'error'] as const) {
    has(
      tally('rules'),
      new RegExp(`data-rule-count="${v}"><b>${rolled.filter((x) => x === v).length}</b>`),
      `rules ${v}`,
    );
    has(tally('checks'), new RegExp(`data-check-count="${v}"><b>${results.summary[v]}</b>`), `checks ${v}`);
  }
  // Human-readable times, the instant kept in datetime for the page's script and for machines.
  has(
    header,
    `<time datetime="2026-01-01T00:00:00.000Z" data-field="startedAt">${humanTime('2026-01-01T00:00:00.000Z')}</time>`,
  );
  assert.match(humanTime('2026-01-01T00:00:00.000Z'), /^\w{3}, \d{1,2} \w{3} 202[56], \d\d:\d\d:\d\d \S+/);
  has(header, /took 1 min 6 s/);
  has(
    header,
    /the embedded reference service, faults switched on: event-wrong-id \(breaks NFT-02: the event lookup is off by one[^;]*; rl-cap-25 \(breaks RL-10: /,
  );
  const text = header.replace(/<[^>]*>/g, '');
  lacks(text, /[{}[\]]|&quot;/, 'JSON punctuation in the header');
  lacks(text, /\d{4}-\d\d-\d\dT/, 'ISO time as text');
});

test('the page is a list of sections: limiter right after the rule matrix, observations folded, nav only for what is there', () => {
  const html = render();
  const order = [...html.matchAll(/<section id="(baseline|rule-matrix|limiter|observations)"/g)].map((m) => m[1]);
  assert.deepEqual(order, ['rule-matrix', 'limiter', 'observations']);
  has(html, /<details class="obs-rule" data-observations="AUTH-07">/, 'observations folded');
  lacks(html, /<details class="obs-rule"[^>]* open/);
  // Passing checks fold their evidence too.
  lacks(html, /<details class="check"[^>]*data-verdict="pass" open/);
  const nav = /<nav>([\s\S]*?)<\/nav>/.exec(html)![1]!;
  has(nav, '<a href="#limiter">rate limiter</a>');
  lacks(nav, '#baseline', 'no baseline, no link');
  assert.ok(REPORT_SECTIONS.every((s) => /^[a-z-]+$/.test(s.id) && s.nav));
});

test('the limiter section reads as words: labelled figures with units and a one-line explanation, no raw keys or long numbers', () => {
  const results = syntheticResults();
  const { uncertainty: _own, ...limiter } = results.limiter!;
  results.limiter = {
    ...limiter,
    emissionIntervalMs: 999.938,
    emissionIntervalUncertaintyMs: 0.064,
    emissionIntervalBandMs: { lo: 999.873, hi: 1000.002 },
    unknown: [],
    capRejectionsUseQuota: 'no',
    pacing: { count: 125, p50Ms: 0.442, p99Ms: 49.558, maxMs: 71.8 },
    phases: [
      { name: 'drain', status: 'done', startedAt: 4103.504010000001, endedAt: 11145.525637000002, requests: 118 },
    ],
  };
  const html = render({ results });
  const section = html.slice(
    html.indexOf('<section id="limiter"'),
    html.indexOf('</section>', html.indexOf('<section id="limiter"')),
  );
  const table = section.slice(section.indexOf('<table class="params">'));
  for (const m of table.matchAll(
    /<tr data-param="[^"]*"><th>([^<]*)<\/th><td>([^<]*)<\/td><td>([^<]*)<\/td><td class="explain">([^<]*)<\/td>/g,
  )) {
    const [, label, value, pm, explain] = m;
    assert.doesNotMatch(label!, /[a-z][A-Z]/, `camelCase label ${label}`);
    assert.ok(explain!.length > 10, `no explanation for ${label}`);
    if (pm) assert.match(pm, /^± [\d.,]+ \S+/, `± without a unit: ${label}`);
    assert.doesNotMatch(value!, /[{[]/, `raw JSON in ${label}: ${value}`);
  }
  has(
    table,
    /<th>Emission interval T \(estimated\)<\/th><td>999.938 ms \(3,600 requests\/hour\)<\/td><td>± 0.064 ms<\/td>/,
  );
  has(table, /<th>Send delay<\/th><td>median 0.442 ms, 99th percentile 49.558 ms, at most 71.8 ms \(125 timed sends\)/);
  lacks(section, /unknown/i, 'an empty "unknown" list');
  lacks(section, /\d\.\d{4,}/, 'numbers with more than 3 decimals');
  has(section, /<tr data-phase="drain"><td>drain<\/td><td>done<\/td><td>4.1 s – 11.1 s<\/td><td>118<\/td>/);
  // Charts come first in the section, the figures after them.
  assert.ok(section.indexOf('class="charts"') < section.indexOf('class="params"'));
});

test("a failing check's response box marks the value at its JSON path", () => {
  const results = syntheticResults();
  const c = results.checks.find((x) => x.id === 'nft.event.id[9b2e0c1a]')!;
  const html = render({ results });
  const check = html.slice(html.indexOf(`data-check="${c.id}"`));
  const response = /<pre data-field="response">([\s\S]*?)<\/pre>/.exec(check)![1]!;
  assert.equal(c.evidence.path, '$.data.id');
  has(response, /<mark data-path-mark>&quot;id&quot;: &quot;[^<]*<\/mark>/);
  assert.equal((response.match(/<mark/g) ?? []).length, 1);
});

test('a rule failing many times shows its first failing checks open and folds the rest, saying so', () => {
  const results = syntheticResults();
  const base = results.checks.find((c) => c.rule === 'AUTH-02' && c.verdict === 'fail')!;
  for (let i = 0; i < 4; i++) results.checks.push({ ...base, id: `${base.id}[copy ${i}]` });
  const html = render({ results: syntheticResults({ checks: results.checks }) });
  const rule = html.slice(html.indexOf('id="rule-AUTH-02"'), html.indexOf('id="rule-AUTH-03"'));
  const states = [...rule.matchAll(/<details class="check"[^>]*data-verdict="fail"( open)?>/g)].map(
    (m) => m[1] === ' open',
  );
  assert.deepEqual(
    states,
    [0, 1, 2, 3, 4].map((i) => i < OPEN_FAILURES_PER_RULE),
  );
  has(rule, /data-folded-failures="2">The first 3 failing checks are open; the other 2 are folded below/);
});
