// The benchmark's arithmetic: spreads, percentiles, windows and target judgement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maxInWindow, percentile, spread } from '../../tools/bench/stats.js';
import { figure, markdownTable, ratios, textTable } from '../../tools/bench/figures.js';
import { compareRuns } from '../../tools/stability.js';
import type { Verdict } from '../../src/verdict.js';

test('spread is the median with min and max', () => {
  assert.deepEqual(spread([3, 1, 2]), { median: 2, min: 1, max: 3, n: 3 });
  assert.deepEqual(spread([4, 1, 2, 3]), { median: 2.5, min: 1, max: 4, n: 4 });
});

test('percentiles are nearest-rank', () => {
  const v = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(v, 50), 50);
  assert.equal(percentile(v, 99), 99);
  assert.equal(percentile(v, 100), 100);
});

test('maxInWindow counts the most timestamps in any half-open window', () => {
  assert.equal(maxInWindow([0, 50, 100, 150], 50), 1);
  assert.equal(maxInWindow([0, 10, 49.9, 50, 60], 50), 3);
  assert.equal(maxInWindow([], 50), 0);
});

test('a figure judges its target on the median and says whether every run met it', () => {
  const f = figure({
    id: 'x',
    group: 'g',
    label: 'p99',
    unit: 'ms',
    values: [1.2, 1.9, 2.4],
    target: { op: '<', value: 2 },
  });
  assert.equal(f.met, true);
  assert.equal(f.metEveryRun, false);
  const g = figure({
    id: 'y',
    group: 'g',
    label: 'rps',
    unit: 'req/s',
    values: [12000, 9000, 11000],
    target: { op: '>=', value: 10000 },
  });
  assert.equal(g.met, true);
  assert.equal(g.metEveryRun, false);
  const none = figure({ id: 'z', group: 'g', label: 'nothing', unit: 's', values: [Number.NaN] });
  assert.equal(none.missing, 'no successful repetition');
  assert.deepEqual(ratios([2, 4], [1, 2]), [2, 2]);
  assert.match(
    textTable([f, g, none]),
    /g: p99\s+1\.90 ms\s+1\.20 \.\. 2\.40 \(n=3\)\s+< 2 ms\s+met \(median; not every run\)/,
  );
  assert.match(markdownTable([f]), /^\| figure \| median \|/);
});

test('stability compares verdicts check by check and names the ones that differ', () => {
  const m = (o: Record<string, Verdict>) => new Map(Object.entries(o));
  const r = compareRuns([
    m({ a: 'pass', b: 'pass' }),
    m({ a: 'pass', b: 'pass' }),
    m({ a: 'pass', b: 'fail' }),
    m({ a: 'pass' }),
  ]);
  assert.equal(r.identical, 2);
  assert.deepEqual(r.differing, [{ id: 'b', verdicts: { pass: 2, fail: 1, absent: 1 } }]);
});
