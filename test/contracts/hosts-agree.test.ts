// The two hosts of the contract rules, chainprobe's engine and Playwright Test, run the same plans
// and judges: rule by rule they reach the same verdict against the reference, clean and with a
// fault of every contract family switched on at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rollUp } from '../../src/verdict.js';
import { runAgainstReference, type HarnessOptions } from './harness.js';

/** One fault per contract family, each breaking its own rule. */
const FAULTS = [
  'xapikey-rejected',
  'universal-goes-backwards',
  'hex-leading-zero',
  'event-timestamp-ms',
  'rarity-rank-number',
  'consensus-rpc-wrong-id',
  'ws-header-rejected',
];

async function verdicts(o: HarnessOptions): Promise<Record<string, string>> {
  const run = await runAgainstReference(o);
  const byRule = new Map<string, string[]>();
  for (const c of run.checks) byRule.set(c.rule, [...(byRule.get(c.rule) ?? []), c.verdict]);
  return Object.fromEntries(
    [...byRule].map(([rule, vs]) => [rule, rollUp(vs as never)] as const).sort((x, y) => x[0].localeCompare(y[0])),
  );
}

describe('the engine and the Playwright host agree rule by rule', { concurrency: 1 }, () => {
  for (const faults of [[], FAULTS]) {
    it(faults.length ? `with ${faults.length} faults on` : 'on the clean reference', async () => {
      const reference = { faults: new Set(faults) };
      const seed = 7;
      const engine = await verdicts({ reference, seed });
      const playwright = await verdicts({ reference, seed, host: 'playwright' });
      assert.deepEqual(playwright, engine);
      // Not vacuous: with the faults on, the verdicts show them.
      if (faults.length) assert.ok(Object.values(engine).filter((v) => v === 'fail').length >= faults.length - 1);
      else
        assert.deepEqual(
          Object.entries(engine).filter(([, v]) => v === 'fail' || v === 'error'),
          [],
        );
    });
  }
});
