// Two runs with different seeds send different near misses, yet a baseline of one compared with
// the other shows no drift in the auth and node families: the check ids and observations of the
// wrong-credential checks do not depend on the seed (a rotating kind's id says `rotating`). Judged
// in the contract stage without Playwright (harness.ts judgeInStage): the ids are the judges'.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffBaseline } from '../../reports/baseline.js';
import { authProbeOf } from '../../src/auth/surface.js';
import { buildResults } from '../../src/results.js';
import type { CheckResult } from '../../src/verdict.js';
import { judgeInStage } from './harness.js';

test('another seed moves the near misses, not the checks: no drift between the two runs', async () => {
  const runs = [];
  for (const seed of [11, 12]) runs.push(await judgeInStage({ only: 'auth,node', seed }));
  const [a, b] = runs.map((r) =>
    buildResults({
      target: 'reference',
      startedAt: new Date(0),
      finishedAt: new Date(1),
      checks: r,
      limiter: null,
    }),
  );
  const kinds = (checks: CheckResult[]) =>
    checks.filter((c) => c.id.includes('[rotating:')).map((c) => `${c.id} ${authProbeOf(c)?.probe}`);
  assert.ok(a && b);
  assert.notDeepEqual(kinds(a.checks), kinds(b.checks), 'the rotating kinds did not move with the seed');
  const drift = diffBaseline(a, b);
  assert.deepEqual(
    drift.items.map((i) => i.text),
    [],
  );
});
