// Every selected rule gets a verdict: a rule without a check gets the first reason that covers it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cover, notRunCheck } from '../../src/coverage.js';
import type { CheckResult } from '../../src/verdict.js';

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
