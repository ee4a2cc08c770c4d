// Every selected rule gets a verdict: a rule without a check gets the first reason that covers it.
// A run whose every check was skipped checked nothing: it is no pass (exit 1), results.json says why
// (nothingChecked), and a merge of such runs says the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkedAny, cover, nothingChecked, nothingCheckedLine, notRunCheck } from '../../src/coverage.js';
import { buildResults, exitCodeOf } from '../../src/results.js';
import { mergeResults } from '../../src/fleet/merge.js';
import type { CheckResult, Verdict } from '../../src/verdict.js';

const pass = (rule: string): CheckResult => ({
  id: `${rule.toLowerCase()}.x`,
  rule,
  verdict: 'pass',
  message: 'ok',
  evidence: {},
});
const only =
  (...ids: string[]) =>
  (id: string) =>
    ids.includes(id);

test('a selected rule with a check gets no record; one without gets the first gap that covers it', () => {
  const got = cover(
    only('UNI-01', 'UNI-02', 'RL-01'),
    [pass('UNI-01')],
    [
      { rules: (id) => id.startsWith('RL-'), reason: 'probes stage failed: boom' },
      { rules: () => true, reason: 'interrupted (SIGINT/SIGTERM)' },
    ],
  );
  assert.deepEqual(got, [
    notRunCheck('UNI-02', 'interrupted (SIGINT/SIGTERM)'),
    notRunCheck('RL-01', 'probes stage failed: boom'),
  ]);
});

test('the not-run record: error, its reason as message and cause', () => {
  assert.deepEqual(notRunCheck('NFT-09', 'budget: the run reached limits.maxSeconds'), {
    id: 'nft-09.not-run',
    rule: 'NFT-09',
    verdict: 'error',
    message: 'not run: budget: the run reached limits.maxSeconds',
    evidence: { cause: 'budget: the run reached limits.maxSeconds' },
  });
});

test('a reason per rule, rules no gap covers and rules not selected stay without a record', () => {
  const got = cover(
    only('NFT-01', 'NFT-02', 'ERR-01'),
    [],
    [{ rules: (id) => id.startsWith('NFT-'), reason: (rule) => `no evidence for ${rule}` }],
  );
  assert.deepEqual(
    got.map((c) => c.message),
    ['not run: no evidence for NFT-01', 'not run: no evidence for NFT-02'],
  );
});

const check = (rule: string, verdict: Verdict, cause: string, message = cause): CheckResult => ({
  id: `${rule.toLowerCase()}.x`,
  rule,
  verdict,
  message,
  evidence: { cause },
});
const NO_UNIVERSAL = 'target has no api.universal entry';
const NO_HORIZON = 'the target file has no nodes.horizon section';
const resultsOf = (checks: CheckResult[]) =>
  buildResults({ target: 't', startedAt: new Date(0), finishedAt: new Date(1), checks, limiter: null });

test('every check skipped: nothingChecked groups the rules by reason in catalogue order, and the exit status is 1', () => {
  const r = resultsOf([
    check('RL-01', 'skipped', NO_HORIZON, `Limit: skipped, ${NO_HORIZON}`),
    check('UNI-02', 'skipped', NO_UNIVERSAL),
    check('UNI-01', 'skipped', NO_UNIVERSAL),
    check('UNI-01', 'skipped', 'another reason of a later check'),
  ]);
  assert.deepEqual(r.nothingChecked, {
    skipped: [
      { reason: NO_UNIVERSAL, rules: ['UNI-01', 'UNI-02'] },
      { reason: NO_HORIZON, rules: ['RL-01'] },
    ],
  });
  assert.equal(exitCodeOf(r), 1);
  assert.equal(
    nothingCheckedLine(r.nothingChecked!),
    `no selected rule was checked: UNI-01, UNI-02 skipped (${NO_UNIVERSAL}); RL-01 skipped (${NO_HORIZON})`,
  );
});

test('one check beyond skipped is a checked run: no marker; pass or observed exit 0, error or fail exit 1', () => {
  for (const [verdict, code] of [
    ['pass', 0],
    ['observed', 0],
    ['error', 1],
    ['fail', 1],
  ] as const) {
    const r = resultsOf([check('UNI-01', 'skipped', NO_UNIVERSAL), check('ERR-01', verdict, 'x')]);
    assert.equal(r.nothingChecked, undefined, verdict);
    assert.equal(checkedAny(r.summary), true, verdict);
    assert.equal(exitCodeOf(r), code, verdict);
  }
});

test('the line stays one short line: a long group is cut after three ids, reasons after the third', () => {
  const rl = Array.from({ length: 14 }, (_, i) => `RL-${String(i + 1).padStart(2, '0')}`);
  const checks = [
    ...rl.map((id) => check(id, 'skipped', NO_HORIZON)),
    check('UNI-01', 'skipped', NO_UNIVERSAL),
    check('NAT-01', 'skipped', 'target has no api.native section'),
    check('NFT-01', 'skipped', 'target has no api.nft section'),
    check('NFT-02', 'skipped', 'target has no api.nft.eventIds'),
  ];
  const line = nothingCheckedLine(nothingChecked([...new Set(checks.map((c) => c.rule))], checks));
  assert.equal(
    line,
    `no selected rule was checked: UNI-01 skipped (${NO_UNIVERSAL}); NFT-01 skipped (target has no api.nft section); ` +
      'NFT-02 skipped (target has no api.nft.eventIds); 15 more rules skipped for other reasons (results.json)',
  );
  assert.ok(!line.includes('\n'));
  const horizonOnly = nothingChecked(rl, checks);
  assert.equal(
    nothingCheckedLine(horizonOnly),
    `no selected rule was checked: RL-01, RL-02, RL-03 and 11 more rules skipped (${NO_HORIZON})`,
  );
  // The rules without their checks (a merge's tally): named, without a reason.
  assert.equal(
    nothingCheckedLine(nothingChecked(['UNI-02', 'UNI-01'], [])),
    'no selected rule was checked: UNI-01, UNI-02 skipped',
  );
  assert.equal(nothingCheckedLine({ skipped: [] }), 'no selected rule was checked: the run made no check');
});

test('a merge agrees with its runs: only skipped checks merged is nothingChecked and exit 1; one checked run clears it', () => {
  const skippedRun = resultsOf([check('UNI-01', 'skipped', NO_UNIVERSAL), check('UNI-02', 'skipped', NO_UNIVERSAL)]);
  const merged = mergeResults([{ source: 'a', results: skippedRun }]).results;
  assert.deepEqual(merged.nothingChecked, skippedRun.nothingChecked);
  assert.equal(exitCodeOf(merged), exitCodeOf(skippedRun));
  assert.equal(exitCodeOf(merged), 1);
  const checkedRun = { ...resultsOf([check('NFT-01', 'pass', 'ok')]), startedAt: new Date(5).toISOString() };
  const both = mergeResults([
    { source: 'a', results: skippedRun },
    { source: 'b', results: checkedRun },
  ]).results;
  assert.equal(both.nothingChecked, undefined);
  assert.equal(exitCodeOf(both), 0);
});
