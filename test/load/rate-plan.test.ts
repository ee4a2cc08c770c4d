// RL-09 without a stated plan: the measured rate is reported with the plan it matches, and only a
// rate that no plan allows fails. With a stated plan, the stated plan is the measure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectedEmissionIntervalMs } from '../../load/checks/rate.js';
import { evaluate } from '../../load/checks/index.js';
import type { CheckInput } from '../../load/checks/common.js';
import type { Analysis } from '../../load/analysis.js';

/** An analysis whose estimate is T ± half, as the replay would give it. */
function input(
  T: number,
  plan: { customer: string; hourlyLimit: number; planAssumed?: boolean },
  half = 2,
): CheckInput {
  const estimate = {
    emissionIntervalMs: T,
    band: { lo: T - half, hi: T + half },
    uncertaintyMs: half,
    method: 'replay',
    consistent: true,
    unexplained: 0,
    evaluations: 1,
  };
  return {
    a: { estimate, limit: 60 } as unknown as Analysis,
    plan: { phases: [] } as unknown as CheckInput['plan'],
    cap: 20,
    t0: 0,
    ...plan,
  };
}

/** RL-09's one check, through its row (load/checks/index.ts). */
const checkRate = (i: CheckInput) => evaluate(i, (rule) => rule === 'RL-09')[0]!;

const ASSUMED = { customer: 'dedicated', hourlyLimit: 3600, planAssumed: true };
const T = expectedEmissionIntervalMs;

const CASES: { name: string; T: number; half?: number; verdict: string; says: RegExp }[] = [
  {
    name: 'a shared node (2000/h)',
    T: T(2000),
    verdict: 'pass',
    says: /the shared plan \(2000\/h\).*no plan was stated/,
  },
  { name: 'a dedicated node (3600/h)', T: T(3600), verdict: 'pass', says: /the dedicated plan \(3600\/h\)/ },
  {
    name: 'a raised dedicated plan (5000/h)',
    T: T(5000),
    verdict: 'observed',
    says: /faster than the default dedicated plan.*--hourly-limit/,
  },
  { name: 'a rate no plan allows (3000/h)', T: T(3000), verdict: 'fail', says: /matches no plan/ },
  { name: 'slower than the shared plan (1000/h)', T: T(1000), verdict: 'fail', says: /matches no plan/ },
  { name: 'an estimate too vague to tell', T: T(2000), half: 200, verdict: 'error', says: /inconclusive/ },
];

for (const c of CASES) {
  test(`RL-09 without a stated plan, ${c.name}: ${c.verdict}`, () => {
    const r = checkRate(input(c.T, ASSUMED, c.half));
    assert.equal(r.verdict, c.verdict, r.message);
    assert.match(r.message, c.says);
    assert.match(r.message, new RegExp(`${Math.round(3_600_000 / c.T)}/h`), 'the measured hourly rate is stated');
  });
}

test('RL-09 with a stated plan still fails a shared-rate node stated as dedicated, and passes it stated as shared', () => {
  assert.equal(checkRate(input(T(2000), { customer: 'dedicated', hourlyLimit: 3600 })).verdict, 'fail');
  assert.equal(checkRate(input(T(2000), { customer: 'shared', hourlyLimit: 2000 })).verdict, 'pass');
  assert.equal(checkRate(input(T(5000), { customer: 'dedicated', hourlyLimit: 5000 })).verdict, 'pass');
});
