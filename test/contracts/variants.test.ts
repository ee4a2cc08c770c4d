// Every open-behaviour variant of the reference breaks no rule: with it switched on, the auth and
// node families (whose wrong-credential checks follow the forms each target is seen to accept)
// report no fail and no error. One test per variant, each against its own reference. The variants
// of batches and notifications are run through the native family too, whose batch checks read
// what the target does with batches before they judge notifications inside one. The checks are
// judged as the contract stage judges them, without Playwright (harness.ts judgeInStage): a false
// fail would be the judges'; the clean end-to-end runs show how a run reports what they judged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VARIANTS } from '../../reference/variants.js';
import { WS_CLOSE_AFTER_UPGRADE_VARIANT } from '../../reference/nodes/websocket.js';
import type { CheckResult } from '../../src/verdict.js';
import { judgeInStage } from './harness.js';

/**
 * The close right after the upgrade reaches the client within the grace on any machine: a stress run
 * (two npm tests and a busy core) held it past the default 2 s, and the socket was judged silent.
 */
const LONG_GRACE: Record<string, number> = { [WS_CLOSE_AFTER_UPGRADE_VARIANT]: 15_000 };

/** For a variant whose behaviour the checks name, the check that shows it was met (not passed by). */
const MET: Record<string, (c: CheckResult) => boolean> = {
  [WS_CLOSE_AFTER_UPGRADE_VARIANT]: (c) =>
    c.rule === 'NAUTH-07' &&
    c.id === 'node.websocket[no-token]' &&
    c.verdict === 'pass' &&
    /closed by the server \(code 1008\)/.test(c.message),
};

describe('no open-behaviour variant gets a fail or an error from the auth and node checks', { concurrency: 4 }, () => {
  for (const variant of VARIANTS) {
    it(variant.name, async () => {
      const graceMs = LONG_GRACE[variant.name];
      const checks = await judgeInStage({
        reference: { variants: new Set([variant.name]) },
        only: 'auth,node',
        ...(graceMs && { edit: (t) => ({ ...t, limits: { ...t.limits, wsGraceMs: graceMs } }) }),
      });
      const bad = checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
      assert.deepEqual(
        bad.map((c) => `${c.verdict} ${c.rule} ${c.id}: ${c.message}`),
        [],
      );
      assert.ok(
        checks.some((c) => c.rule === 'AUTH-08' && c.verdict === 'pass'),
        'no AUTH-08 check passed',
      );
      const met = MET[variant.name];
      if (met) assert.ok(checks.some(met), `no check met the variant: ${variant.name}`);
    });
  }
});

const BATCH_VARIANTS = ['batches-not-served', 'batch-limit-5', 'notification-200-empty'];

describe('the native checks fail no way of serving (or refusing) batches', { concurrency: 4 }, () => {
  for (const name of ['conformant reference', ...BATCH_VARIANTS]) {
    it(name, async () => {
      const variants = BATCH_VARIANTS.includes(name) ? [name] : [];
      assert.ok(
        variants.every((v) => VARIANTS.some((x) => x.name === v)),
        name,
      );
      const checks = await judgeInStage({ reference: { variants: new Set(variants) }, only: 'native' });
      const bad = checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
      assert.deepEqual(
        bad.map((c) => `${c.verdict} ${c.rule} ${c.id}: ${c.message}`),
        [],
      );
      // The notifications inside batches were judged: answered nothing, or refused with the batch.
      const inBatch = checks.filter((c) => c.rule === 'RPC-09' && c.id.includes('batch'));
      assert.equal(inBatch.length, 2, inBatch.map((c) => c.id).join());
      const refused = name === 'batches-not-served';
      assert.deepEqual(
        inBatch.map((c) => c.verdict),
        refused ? ['observed', 'observed'] : ['pass', 'pass'],
      );
    });
  }
});
