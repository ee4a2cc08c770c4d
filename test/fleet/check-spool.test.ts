// The merge's spool (src/fleet/check-spool.ts): what goes in comes back, a rule at a time in slim
// copies and in full in order, however the lines fall across the blocks it reads them in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { CheckSpool } from '../../src/fleet/check-spool.js';
import { slimCheck } from '../../src/fleet/merge.js';
import type { CheckResult, Verdict } from '../../src/verdict.js';

/** As written and read back: JSON has no undefined fields. */
const asJson = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;

const check = (i: number, rule: string, verdict: Verdict, message = `check ${i}`): CheckResult => ({
  id: `c-${i}`,
  rule,
  verdict,
  message,
  evidence: {
    exchanges: [
      {
        seq: i,
        sentAt: 1_767_225_600_000 + i,
        method: 'GET',
        url: `https://api.example.invalid/x/${i}`,
        status: 200,
        requestHeaders: { accept: 'application/json' },
        responseHeaders: { 'content-type': 'application/json' },
        responseBody: `{"i":${i}}`,
      },
    ],
  },
});

test('a spool gives back each rule in slim copies, in order, and every check in full, in order', async () => {
  const spool = new CheckSpool();
  // Multi-byte characters in lines far longer than a read block: a line and a character may both
  // be cut where a block ends.
  const long = `${'€😀'.repeat(50_000)} end`;
  const checks = [
    check(1, 'NFT-01', 'pass'),
    check(2, 'AUTH-01', 'fail', long),
    check(3, 'NFT-01', 'observed', long),
    check(4, 'NOT-A-RULE', 'skipped'),
    // Rules outside the catalogue share a file: each still reads back as its own.
    check(3006, 'ALSO-NOT-A-RULE', 'pass'),
    check(3007, 'NOT-A-RULE', 'fail'),
    ...Array.from({ length: 3000 }, (_, k) => check(5 + k, 'NFT-01', 'pass')),
    check(3005, 'AUTH-01', 'error'),
  ];
  try {
    for (const c of checks) spool.add(c);
    assert.equal(spool.count, checks.length);
    assert.deepEqual(spool.rules(), ['NFT-01', 'AUTH-01', 'NOT-A-RULE', 'ALSO-NOT-A-RULE']);
    assert.equal(
      readdirSync(spool.dir).length,
      4,
      'the full file, two rule files, one for the rules outside the catalogue',
    );
    for (const rule of spool.rules()) {
      const mine = checks.filter((c) => c.rule === rule);
      assert.deepEqual(spool.of(rule), asJson(mine.map(slimCheck)), `${rule}: slim copies, in order`);
      assert.deepEqual([...spool.verdicts(rule)].sort(), [...new Set(mine.map((c) => c.verdict))].sort());
    }
    assert.deepEqual(spool.of('RL-01'), []);
    assert.equal(spool.verdicts('RL-01').size, 0);
    assert.deepEqual(
      [...spool.all()].map((c) => c.id),
      spool.rules().flatMap((r) => checks.filter((c) => c.rule === r).map((c) => c.id)),
    );
    const full: CheckResult[] = [];
    for await (const c of spool.full()) full.push(c);
    assert.deepEqual(full, checks, 'every check in full, in the order it came');
  } finally {
    spool.remove();
  }
  assert.equal(existsSync(spool.dir), false, 'removed: no scratch folder left');
});

test('an empty spool has no rule and no check', async () => {
  const spool = new CheckSpool();
  try {
    assert.equal(spool.count, 0);
    assert.deepEqual(spool.rules(), []);
    const full: CheckResult[] = [];
    for await (const c of spool.full()) full.push(c);
    assert.deepEqual(full, []);
  } finally {
    spool.remove();
  }
  assert.equal(existsSync(spool.dir), false);
});
