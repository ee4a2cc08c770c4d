// The burst's schedule above the cap (load/probes/drain.ts nextBurstAt): a pure function of when
// a request was due, how late it left and how many follow, walked through a whole burst with the
// stalls each row gives, as throttled's tests walk its limiter through time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BURST_SPAN_MAX_MS, nextBurstAt } from '../../load/probes/drain.js';

/** Due times of a burst of `total` requests 25 ms apart (20/s at twice the cap), `stalls[i]` ms late at request i. */
function walk(total: number, stalls: Record<number, number> = {}): number[] {
  const b = { t0: 0, total, spacing: 25 };
  const due: number[] = [];
  let at = 0;
  for (let i = 0; i < total; i++) {
    due.push(at);
    at = nextBurstAt(b, at, stalls[i] ?? 0, total - i - 1);
  }
  return due;
}

const rows: { name: string; total: number; stalls?: Record<number, number>; expect: (due: number[]) => void }[] = [
  {
    name: 'no stall: evenly spaced at the burst rate',
    total: 22,
    expect: (due) =>
      assert.deepEqual(
        due,
        Array.from({ length: 22 }, (_, i) => i * 25),
      ),
  },
  {
    name: 'a lateness under a quarter of the spacing is not carried on',
    total: 22,
    stalls: { 3: 6 },
    expect: (due) => assert.equal(due[4], 100),
  },
  {
    name: 'a short stall moves the rest on by the stall (no bunching)',
    total: 22,
    stalls: { 5: 40 },
    expect: (due) => {
      assert.equal(due[6], 5 * 25 + 25 + 40);
      for (let i = 7; i < 22; i++) assert.equal(due[i]! - due[i - 1]!, 25);
    },
  },
  {
    name: 'a long stall: the rest still ends by the span bound, caught up at the burst rate',
    total: 22,
    stalls: { 2: 2_000 },
    expect: (due) => {
      assert.equal(due[21], BURST_SPAN_MAX_MS);
      for (let i = 4; i < 22; i++) assert.equal(due[i]! - due[i - 1]!, 25);
    },
  },
  {
    name: 'a burst whose own span is past the bound is never shortened',
    total: 40,
    stalls: { 10: 500 },
    expect: (due) => assert.equal(due[39], 39 * 25),
  },
];

for (const r of rows)
  test(`burst schedule: ${r.name}`, () => {
    const due = walk(r.total, r.stalls);
    for (let i = 1; i < due.length; i++) assert.ok(due[i]! >= due[i - 1]!, `due times go back at ${i}`);
    r.expect(due);
  });
