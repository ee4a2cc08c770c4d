// Every contract fault of the reference's catalogue is caught: with the fault switched on, the
// rule it breaks gets a `fail`. One test per fault, each against its own reference, judging only
// the fault's own rule (as `--only <rule>`): the claim is that the rule's own checks catch it,
// without help from the other tests of its family. That is the narrower, stronger claim, and half
// the work. The checks are judged as the contract stage judges them, without Playwright
// (harness.ts judgeInStage): how a run reports a fail is the end-to-end tests' (the self-check
// subset in test/selfcheck runs a fault of every section through the whole run, as a user would;
// cli/selfcheck.ts runs each fault so with its whole family selected).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAULTS } from '../../reference/faults/index.js';
import { CONTRACT_RULES } from '../../contracts/engine.js';
import { judgeInStage } from './harness.js';

const CONTRACT_FAULTS = FAULTS.filter((f) => CONTRACT_RULES.includes(f.rule));

/**
 * What the failing checks must say, for faults whose evidence is the point: the near miss that got
 * through, the notification answered, the date a value means, the list item that disagrees.
 */
const EVIDENCE: Record<string, RegExp> = {
  'key-unanchored-match': /key \(one character appended\) as .*: got data/,
  'node-token-prefix-compare': /the token \((its last character cut|its first half)\) as .*with data/,
  'event-timestamp-ms':
    /^event: timestamp \d{13} is 20\d\d-\d\d-\d\dT[\d:]+Z if read as milliseconds; as seconds it is year \d+$/,
  'asset-mint-date-ms':
    /^asset: mint_date \d{13} is 20\d\d-\d\d-\d\dT[\d:]+Z if read as milliseconds; as seconds it is year \d+$/,
  'asset-lookup-by-token-id':
    /^the (first|last) item of page \d+, 0x[0-9a-f]{40}\/\d+: rarity differs: .* \(the asset endpoint answered 0x[0-9a-f]{40}\/\d+\)$/,
  'batch-notification-answered':
    /^batch of 1 request\(s\) and 1 notification\(s\): .*a notification was answered: a result \(id null\)/,
  // Caught on the legacy base, by a check that names it (the base URL serves the current head).
  'legacy-stale-block-number': /^chain-a\/\w+ on the legacy base URL: universal block numbers .* from the native head/,
};

/**
 * Faults whose evidence is a wait that never ends (a pong that never comes): the request time-out
 * they are judged by, ms, instead of the slow-machine one (harness.ts), which would be the whole wait.
 */
const TIMEOUT_MS: Record<string, number> = { 'ws-no-pong': 5_000 };

describe('each contract fault is reported as a fail on its rule', { concurrency: 4 }, () => {
  it('covers every contract fault of the catalogue', () => {
    assert.ok(CONTRACT_FAULTS.length >= 40, `only ${CONTRACT_FAULTS.length} contract faults found`);
  });
  for (const fault of CONTRACT_FAULTS) {
    it(`${fault.name} -> ${fault.rule} fail`, async () => {
      const timeoutMs = TIMEOUT_MS[fault.name];
      const checks = await judgeInStage({
        reference: { faults: new Set([fault.name]) },
        only: fault.rule,
        ...(timeoutMs && { edit: (t) => ({ ...t, limits: { ...t.limits, timeoutMs } }) }),
      });
      const mine = checks.filter((c) => c.rule === fault.rule);
      const failed = mine.filter((c) => c.verdict === 'fail');
      assert.ok(
        failed.length > 0,
        `no fail on ${fault.rule} with ${fault.name}; its checks: ${mine.map((c) => `${c.verdict} ${c.id}: ${c.message}`).join(' | ') || 'none'}`,
      );
      const evidence = EVIDENCE[fault.name];
      if (evidence)
        assert.ok(
          failed.some((c) => evidence.test(c.message)),
          `no fail on ${fault.rule} says ${evidence}: ${failed.map((c) => c.message).join(' | ')}`,
        );
    });
  }
});
