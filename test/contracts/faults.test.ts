// Every contract fault of the reference's catalogue is caught: with the fault switched on, the
// suite reports `fail` on the rule the fault breaks. One test per fault, each against its own
// reference, running only the fault's own rule (`--only <rule>`): the claim is that the rule's own
// checks catch it, without help from the other tests of its family. That is the narrower, stronger
// claim, and half the work. The self-check (cli/selfcheck.ts) runs each fault with its whole
// family selected, as a user would, and test/selfcheck covers that way.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAULTS } from '../../reference/faults/index.js';
import { CONTRACT_RULES } from '../../contracts/run.js';
import { runAgainstReference } from './harness.js';

const FAULT_TIMEOUT_MS = 2_000;

const CONTRACT_FAULTS = FAULTS.filter((f) => CONTRACT_RULES.includes(f.rule));

describe('each contract fault is reported as a fail on its rule', { concurrency: 2 }, () => {
  it('covers every contract fault of the catalogue', () => {
    assert.ok(CONTRACT_FAULTS.length >= 40, `only ${CONTRACT_FAULTS.length} contract faults found`);
  });
  for (const fault of CONTRACT_FAULTS) {
    it(`${fault.name} -> ${fault.rule} fail`, async () => {
      const run = await runAgainstReference({
        reference: { faults: new Set([fault.name]) },
        only: fault.rule,
        // A fault that makes the target silent (no pong) costs one request timeout: keep it short.
        edit: (t) => ({ ...t, limits: { ...t.limits, timeoutMs: FAULT_TIMEOUT_MS } }),
        // Two fault runs share the machine: one Playwright worker each.
        contracts: { workers: 1 },
      });
      const mine = run.checks.filter((c) => c.rule === fault.rule);
      const failed = mine.filter((c) => c.verdict === 'fail');
      assert.ok(
        failed.length > 0,
        `no fail on ${fault.rule} with ${fault.name}; its checks: ${mine.map((c) => `${c.verdict} ${c.id}: ${c.message}`).join(' | ') || 'none'}`,
      );
    });
  }
});
