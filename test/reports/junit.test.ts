import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Checks } from '../../contracts/checks.js';
import { renderJunit } from '../../reports/junit.js';
import { Redactor } from '../../src/record/redact.js';
import { RULES } from '../../src/rules/catalogue.js';
import { findAll, parseXml, XmlError } from './xml.js';
import { syntheticResults, XSS_MESSAGE } from './fixture.js';

test('the strict XML checker rejects what CI parsers reject', () => {
  for (const bad of [
    '<a>&</a>',
    '<a>&foo;</a>',
    '<a><b></a>',
    '<a x="1" x="2"/>',
    '<a>\u0001</a>',
    '<a x="<"/>',
    '<a/><b/>',
    '<a>',
    'text',
  ]) {
    assert.throws(() => parseXml(bad), XmlError, bad);
  }
  assert.equal(parseXml('<?xml version="1.0"?><a x="&lt;&#65;&#x42;">t&amp;</a>').attrs.x, '<AB');
});

test('junit.xml parses, has one testcase per check and counts equal results.summary', () => {
  const results = syntheticResults({ scale: 300 });
  const root = parseXml(renderJunit(results));
  assert.equal(root.name, 'testsuites');
  const s = results.summary;
  const total = s.pass + s.fail + s.observed + s.skipped + s.error;
  assert.deepEqual(
    {
      tests: Number(root.attrs.tests),
      failures: Number(root.attrs.failures),
      errors: Number(root.attrs.errors),
      skipped: Number(root.attrs.skipped),
    },
    { tests: total, failures: s.fail, errors: s.error, skipped: s.skipped },
  );
  const cases = findAll(root, 'testcase');
  assert.equal(cases.length, results.checks.length);
  assert.equal(findAll(root, 'failure').length, s.fail);
  assert.equal(findAll(root, 'error').length, s.error);
  assert.equal(findAll(root, 'skipped').length, s.skipped);

  // Suites are sections; their counts add up to the totals.
  const suites = findAll(root, 'testsuite');
  const sum = (k: string) => suites.reduce((n, x) => n + Number(x.attrs[k]), 0);
  assert.deepEqual([sum('tests'), sum('failures'), sum('errors'), sum('skipped')], [total, s.fail, s.error, s.skipped]);
  for (const suite of suites) assert.equal(findAll(suite, 'testcase').length, Number(suite.attrs.tests));
  assert.ok(suites.some((x) => x.attrs.name!.startsWith('RPC ')));

  // Names carry the rule id and the check id; classname section.rule.
  const ids = new Set(RULES.map((r) => r.id));
  for (const [i, c] of results.checks.entries()) {
    const tc = cases.find((x) => x.attrs.name === `${c.rule} ${c.id}`);
    assert.ok(tc, `testcase for check ${i} ${c.id}`);
    assert.equal(tc.attrs.classname, `${c.rule.split('-')[0]}.${c.rule}`);
    assert.ok(ids.has(c.rule));
  }
});

test('failures carry the one-line message; observed passes with the observation in system-out', () => {
  const results = syntheticResults();
  const root = parseXml(renderJunit(results));
  const byName = new Map(findAll(root, 'testcase').map((t) => [t.attrs.name!, t]));
  const xss = byName.get('NFT-02 nft.event.id[9b2e0c1a]')!;
  const failure = xss.children.find((c) => c.name === 'failure')!;
  assert.equal(failure.attrs.message, XSS_MESSAGE, 'markup survives as text');
  assert.match(failure.text, /expected: 9b2e0c1a/);
  assert.match(failure.text, /path: \$\.data\.id/);
  assert.match(failure.text, /reproduce: curl /);

  const ctl = byName.get('RPC-05 rpc.unknown-method')!.children[0]!;
  assert.doesNotMatch(ctl.attrs.message!, /[\u0000-\u0008\u001b]/, 'control characters are gone');
  assert.doesNotMatch(ctl.attrs.message!, /\n/);

  const observed = byName.get('RES-02 res.extra[event]')!;
  const out = observed.children.find((c) => c.name === 'system-out')!;
  assert.match(out.text, /extraFields = \["royalty","marketplace"\]/);
  assert.equal(
    observed.children.some((c) => c.name === 'failure'),
    false,
  );

  const err = byName.get('NODE-06 node.grpc[reflection]')!.children[0]!;
  assert.equal(err.name, 'error');
  assert.equal(err.attrs.type, 'budget');
  const redacted = byName.get('AUTH-02 auth.accept[native][x-api-key]')!.children[0]!;
  assert.match(redacted.text, /\$CHAINPROBE_CREDENTIAL/);
});

test('a run without checks still gives a valid, empty junit.xml', () => {
  const root = parseXml(renderJunit(syntheticResults({ checks: [], limiter: null })));
  assert.equal(root.attrs.tests, '0');
  assert.equal(findAll(root, 'testsuite').length, 0);
});

test('every testcase carries its duration: a contract check its own, a rate-limit check the probes run it is drawn from', () => {
  const results = syntheticResults();
  const root = parseXml(renderJunit(results));
  const probesMs = results.limiter!.durationMs;
  assert.ok(probesMs > 0);
  for (const c of results.checks) {
    const tc = findAll(root, 'testcase').find((x) => x.attrs.name === `${c.rule} ${c.id}`)!;
    const want = c.durationMs ?? (c.rule.startsWith('RL-') ? probesMs : 0);
    assert.equal(tc.attrs.time, want > 0 ? (want / 1000).toFixed(3) : '0', `${c.rule} ${c.id}`);
    if (c.durationMs || c.rule.startsWith('RL-'))
      assert.ok(Number(tc.attrs.time) > 0, `${c.rule} ${c.id} has time ${tc.attrs.time}`);
  }
  // The probes' time counts once in their suite, not once per check.
  const rl = findAll(root, 'testsuite').find((s) => s.attrs.name!.startsWith('RL '))!;
  const own = results.checks
    .filter((c) => c.rule.startsWith('RL-') && c.durationMs !== undefined)
    .reduce((n, c) => n + c.durationMs!, 0);
  assert.equal(rl.attrs.time, ((own + probesMs) / 1000).toFixed(3));
});
