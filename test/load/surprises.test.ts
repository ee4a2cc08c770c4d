// What a target does that the model did not expect, run through the whole probe suite on a virtual
// clock (virtual-run.ts: the simulated horizon node, the Node engine's way of waiting), so no
// verdict here depends on the machine's speed:
// - a header value no GCRA limiter can send (a Reset as a Unix timestamp, or in milliseconds) fails
//   the rule it breaks, with the value as evidence, and never sets a wait: the plan goes on from
//   what the other headers and the model say, and every other rule is judged. Before, the pause "as
//   long as the last Reset" of 1.8 billion seconds cut the run short and every RL rule was `error`.
// - a 429 where the model expected an acceptance (a cache replaying a refusal) is RL-05's finding,
//   and its retry-after is a promise all the same: tested, and RL-07 judged on it. Before, the
//   probes stopped following recovery and RL-07 was `error`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimFault } from './sim-horizon.js';
import { virtualRun, type VirtualRun, type VirtualRunOptions } from './virtual-run.js';
import { assertEveryRuleJudged, verdictLines } from './reference-harness.js';

/** The checks that are not a pass (nor RL-13's observation), as `id verdict`. */
const notPassing = (r: VirtualRun) =>
  r.outcome.checks
    .filter((c) => c.verdict !== 'pass' && c.verdict !== 'observed')
    .map((c) => `${c.id} ${c.verdict}`)
    .sort();

const everyRuleJudged = (r: VirtualRun) => assertEveryRuleJudged(r.outcome);

const run = (faults: SimFault[], o: VirtualRunOptions = {}) => virtualRun({ faults, ...o });

test('the conformant simulated node on the virtual clock: every RL rule judged, none fails or errors', async () => {
  const r = await run([]);
  everyRuleJudged(r);
  assert.deepEqual(notPassing(r), [], verdictLines(r.outcome));
});

for (const [fault, value] of [
  ['reset-epoch', /^17\d{8}$/],
  ['reset-ms', /^\d{3,5}$/],
] as const) {
  test(`Reset no GCRA can send (${fault}): RL-12 fails with the value, every other rule is judged and none fails; no wait rests on it`, async () => {
    const r = await run([fault]);
    const lines = verdictLines(r.outcome);
    everyRuleJudged(r);
    assert.deepEqual(notPassing(r), ['rl.reset-consistency fail'], lines);
    const rl12 = r.outcome.checks.find((c) => c.rule === 'RL-12')!;
    assert.match(
      rl12.message,
      /^\d+ answer\(s\) disagree: Reset \d+ s: with Limit 31 and Remaining 30 and T at most 60 s, /,
    );
    const examples = (rl12.evidence.actual as { examples: { reset: string }[] }).examples;
    assert.match(examples[0]!.reset, value);
    // RL-04's pause was the model's time to full ((Limit - Remaining) x T: 3 x 0.5 s), not the Reset's.
    const pause = r.progress.find((p) => p.phase.startsWith('dynamics: pause'))!;
    assert.match(
      pause.phase,
      /^dynamics: pause for the model's time to full \(1\.50 s\): the last Reset "\d+" is no GCRA's$/,
    );
    // No wait the probes announced, and the run itself, came near a Reset's value.
    const longest = Math.max(...r.progress.map((p) => p.expectedRemainingMs ?? 0));
    assert.ok(longest < 20_000, `a wait of ${longest} ms was announced`);
    assert.ok(r.outcome.limiter!.durationMs < 20_000, `${r.outcome.limiter!.durationMs} ms (virtual)`);
    // The model rests on the other headers: T within 2% of 0.5 s, from all of them.
    assert.ok(
      Math.abs(r.outcome.limiter!.emissionIntervalMs - 500) <= 10,
      String(r.outcome.limiter!.emissionIntervalMs),
    );
    assert.equal(r.outcome.limiter!.modelConsistent, true);
  });
}

test('a node slower than the plan stated (T 1 s, stated 0.5 s): its honest Resets set the waits and fail nothing but RL-09', async () => {
  const r = await run([], { hourlyLimit: 3600, statedHourlyLimit: 7200 });
  everyRuleJudged(r);
  assert.deepEqual(notPassing(r), ['rl.rate fail'], verdictLines(r.outcome));
  assert.ok(r.progress.some((p) => p.phase === 'dynamics: pause as long as the last Reset'));
});

test('a 429 replayed once one T after the drain (honest retry-after): RL-05 fails on it, RL-07 is judged on its promise and passes', async () => {
  const r = await run(['replayed-refusal']);
  const lines = verdictLines(r.outcome);
  everyRuleJudged(r);
  assert.deepEqual(notPassing(r), ['rl.gradual fail'], lines);
  const rl07 = r.outcome.checks.find((c) => c.rule === 'RL-07')!;
  assert.match(
    rl07.message,
    new RegExp(
      '^waiting retry-after was enough each time: 1 s after the unexpected 429 one T after the last acceptance #(\\d+) \\(#\\d+ accepted\\), ' +
        '1 s after the 429 right after Remaining 0 #\\d+ \\(#\\d+ accepted\\)',
    ),
  );
  // The refusal is RL-05's: T rests on the other answers (RL-09 says which one it left out).
  assert.match(
    r.outcome.checks.find((c) => c.rule === 'RL-09')!.message,
    /leaving out 1 refusal\(s\) where a GCRA had quota/,
  );
});

const STALE_REPLAYED_REFUSAL =
  'a cache that keeps replaying the 429 past its retry-after: ' +
  'RL-07 fails on the broken promise, recovery is followed on and nothing else errs';
test(STALE_REPLAYED_REFUSAL, async () => {
  const r = await run(['replayed-refusal-stale']);
  const lines = verdictLines(r.outcome);
  everyRuleJudged(r);
  assert.deepEqual(notPassing(r), ['rl.gradual fail', 'rl.retry-after fail'], lines);
  assert.match(
    r.outcome.checks.find((c) => c.rule === 'RL-07')!.message,
    /^#\d+ sent once retry-after 1 s \(from #\d+, the unexpected 429 one T after the last acceptance\) had passed still got 429$/,
  );
});
