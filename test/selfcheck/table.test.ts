// The self-check's plan, classification and kill-rate rendering, on synthetic results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildResults } from '../../src/results.js';
import { parseSelectors } from '../../src/select.js';
import { RULES } from '../../src/rules/catalogue.js';
import type { CheckResult, Verdict } from '../../src/verdict.js';
import type { FaultDef } from '../../reference/faults/types.js';
import { FAULTS } from '../../reference/faults/index.js';
import { planRuns, selectorFor, subsetOf, sectionOf, FAULT_FREE, PlanError } from '../../cli/selfcheck/plan.js';
import { classifyClean, classifyFault, summarize } from '../../cli/selfcheck/classify.js';
import { htmlReport, textReport, type SelfcheckReport } from '../../cli/selfcheck/render.js';

const check = (rule: string, verdict: Verdict, message = `${rule} ${verdict}`): CheckResult => ({
  id: `${rule.toLowerCase()}.x`,
  rule,
  verdict,
  message,
  evidence: {},
});
const results = (checks: CheckResult[]) =>
  buildResults({ target: 'reference', startedAt: new Date(0), finishedAt: new Date(1000), checks, limiter: null });
const fault: FaultDef = {
  name: 'xapikey-case-sensitive',
  rule: 'AUTH-03',
  family: 'auth',
  description: 'X-API-Key <b>case</b> & "quotes"',
};

test('every fault of the catalogue is selected by its own --only selector', () => {
  for (const f of FAULTS)
    assert.ok(parseSelectors(selectorFor(f)).rule(f.rule), `${f.name}: ${selectorFor(f)} does not run ${f.rule}`);
});

test('the subset has exactly one fault per rule section the catalogue covers, in a stable choice', () => {
  const subset = subsetOf(FAULTS);
  const sections = [...new Set(FAULTS.map((f) => sectionOf(f.rule)))];
  assert.deepEqual(subset.map((f) => sectionOf(f.rule)).sort(), [...sections].sort());
  assert.deepEqual(subsetOf(FAULTS), subset);
});

test('the plan has the fault-free full run and one run per selected fault, each with its own folder', () => {
  const plan = planRuns(FAULTS, { outRoot: '/tmp/sc', onlyFaults: [fault.name] });
  assert.deepEqual(
    plan.map((r) => r.key),
    [FAULT_FREE, fault.name],
  );
  assert.deepEqual(plan[0]!.args, ['--out', '/tmp/sc/runs/fault-free']);
  assert.deepEqual(plan[1]!.args, ['--fault', fault.name, '--only', 'auth', '--out', `/tmp/sc/runs/${fault.name}`]);
  assert.throws(() => planRuns(FAULTS, { outRoot: '/tmp/sc', onlyFaults: ['no-such-fault'] }), PlanError);
});

test('a fault is caught on its rule, caught only elsewhere, missed, or the run errored', () => {
  const facts = (checks: CheckResult[]) => ({ exitCode: 1, durationMs: 1234, results: results(checks) });
  const caught = classifyFault(
    fault,
    'auth',
    facts([check('AUTH-03', 'fail'), check('AUTH-02', 'fail'), check('AUTH-01', 'pass')]),
    'r',
  );
  assert.equal(caught.outcome, 'caught');
  assert.deepEqual(caught.alsoFailed, ['AUTH-02']);
  assert.equal(caught.message, 'AUTH-03 fail');
  assert.equal(
    classifyFault(fault, 'auth', facts([check('AUTH-03', 'pass'), check('AUTH-02', 'fail')]), 'r').outcome,
    'elsewhere',
  );
  const missed = classifyFault(fault, 'auth', facts([check('AUTH-03', 'error'), check('AUTH-02', 'pass')]), 'r');
  assert.equal(missed.outcome, 'missed');
  assert.equal(missed.ruleVerdict, 'error');
  const err = classifyFault(fault, 'auth', { exitCode: 2, durationMs: 10, problem: 'chainprobe: bad target' }, 'r');
  assert.equal(err.outcome, 'error');
  assert.equal(err.problem, 'chainprobe: bad target');
});

test('the fault-free run is clean only without fail and error', () => {
  const ok = classifyClean(
    { exitCode: 0, durationMs: 1, results: results([check('AUTH-01', 'pass'), check('AUTH-09', 'observed')]) },
    'r',
  );
  assert.equal(ok.clean, true);
  const bad = classifyClean(
    {
      exitCode: 1,
      durationMs: 1,
      results: results([check('AUTH-01', 'pass'), check('RL-10', 'error'), check('NFT-09', 'fail')]),
    },
    'r',
  );
  assert.equal(bad.clean, false);
  assert.deepEqual(
    bad.bad.map((b) => `${b.rule}:${b.verdict}`),
    ['NFT-09:fail', 'RL-10:error'],
  );
});

test('the kill-rate table prints every row and the HTML escapes what the catalogue and messages hold', () => {
  const row = classifyFault(
    fault,
    'auth',
    { exitCode: 1, durationMs: 2500, results: results([check('AUTH-03', 'fail', '<script>alert(1)</script>')]) },
    'runs/x/index.html',
  );
  const missed = classifyFault(
    { ...fault, name: 'other', rule: 'AUTH-02' },
    'auth',
    { exitCode: 0, durationMs: 900, results: results([check('AUTH-02', 'pass')]) },
    'r',
  );
  const clean = classifyClean(
    { exitCode: 0, durationMs: 3000, results: results(RULES.slice(0, 3).map((r) => check(r.id, 'pass'))) },
    'r',
  );
  const rep: SelfcheckReport = {
    tool: 'chainprobe selfcheck',
    startedAt: new Date(0).toISOString(),
    finishedAt: new Date(5000).toISOString(),
    durationMs: 5000,
    concurrency: 2,
    subset: false,
    summary: summarize([row, missed], clean),
    faultFree: clean,
    faults: [row, missed],
  };
  assert.equal(rep.summary.ok, false);
  assert.equal(rep.summary.missed, 1);
  const text = textReport(rep);
  assert.match(text, /xapikey-case-sensitive\s+AUTH-03\s+caught on its rule\s+2\.5 s/);
  assert.match(text, /other\s+AUTH-02\s+MISSED/);
  assert.match(text, /fault-free full run: clean/);
  assert.match(text, /1 of 2 faults caught on their own rule/);
  const html = htmlReport(rep);
  assert.ok(!html.includes('<script>') && !html.includes('<b>case</b>'), 'unescaped markup in the HTML');
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('&lt;b&gt;case&lt;/b&gt; &amp; &quot;quotes&quot;'));
  assert.ok(!/<(link|script|img)\b/.test(html), 'the page must be self-contained');
});
