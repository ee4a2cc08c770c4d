// RL-10 catches a cap that counts per calendar second (up to twice the cap across a second boundary)
// and a token bucket that refills while it bursts, run after run: the burst is placed across a
// second boundary of the server's clock (from its Date headers). A few runs of each here; the
// 20-of-20 check takes minutes and runs with CHAINPROBE_LONG=1:
//   CHAINPROBE_LONG=1 node --import tsx --test test/load/cap-faults.test.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inPool, probeInChild, type ChildSpec } from './reference-harness.js';

const LONG = process.env['CHAINPROBE_LONG'] === '1';
const RUNS = LONG ? 20 : 3;

for (const fault of ['rl-cap-calendar-second', 'rl-cap-token-bucket']) {
  test(`${fault}: RL-10 fails in ${RUNS} of ${RUNS} runs`, async () => {
    const spec: ChildSpec = { options: { hourlyLimit: 7200, burst: 100, faults: [fault] }, only: ['RL-10'] };
    const runs = await inPool(
      Array.from({ length: RUNS }, () => () => probeInChild(spec)),
      2,
    );
    const verdicts = runs.map((r) => r.outcome.checks.find((c) => c.rule === 'RL-10'));
    const missed = verdicts.filter((c) => c?.verdict !== 'fail');
    assert.deepEqual(
      missed.map((c) => `${c?.verdict}: ${c?.message}`),
      [],
      `${RUNS - missed.length} of ${RUNS} caught`,
    );
  });
}
