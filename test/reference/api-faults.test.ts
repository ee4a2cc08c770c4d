// Every API fault, switched on, breaks the rule it names, and no other (one row per fault).
// The conformant reference passes every probe; each fault must flip exactly its expected set.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { API_FAULTS, type ApiFaultName } from '../../reference/faults/api.js';
import { ruleById } from '../../src/rules/catalogue.js';
import { startFixture, type Fixture } from './api-http.js';
import { RULE_PROBES } from './api-probes.js';

/**
 * RES-01 ("documented fields with documented types in every record") is the catch-all: a fault
 * that changes a field's type also breaks it, by definition. Listed here so the overlap is stated.
 */
const ALSO_BREAKS: Partial<Record<ApiFaultName, string[]>> = {
  'event-block-number-string': ['RES-01'],
  'payment-price-string': ['RES-01'],
  'collection-verified-string': ['RES-01'],
  'rarity-rank-number': ['RES-01'],
  'rarity-item-missing-image': ['RES-01'],
  'event-ids-ulid': ['RES-01'],
  // RPC-12 is the catch-all of the Response object: a wrong jsonrpc or a missing id breaks it too.
  'rpc-wrong-jsonrpc-version': ['RPC-12'],
  'batch-invalid-element-no-id': ['RPC-12'],
};

/** Probes run one after another: some faults (alternating replicas) depend on call order. */
async function brokenRules(f: Fixture): Promise<Record<string, string>> {
  const broken: Record<string, string> = {};
  for (const [rule, probe] of Object.entries(RULE_PROBES)) {
    const v = await probe(f);
    if (v !== undefined) broken[rule] = v;
  }
  return broken;
}

describe('API fault catalogue', () => {
  test('each fault names a must/std rule that has a probe, and names are unique', () => {
    assert.equal(new Set(API_FAULTS.map((f) => f.name)).size, API_FAULTS.length);
    for (const f of API_FAULTS) {
      const rule = ruleById(f.rule);
      assert.ok(rule, `${f.name}: unknown rule ${f.rule}`);
      assert.notEqual(rule.kind, 'observe', `${f.name} breaks an observe rule`);
      assert.ok(RULE_PROBES[f.rule], `${f.name}: no probe for ${f.rule}`);
    }
  });

  test('every probed rule has at least one fault', () => {
    for (const rule of Object.keys(RULE_PROBES))
      assert.ok(
        API_FAULTS.some((f) => f.rule === rule),
        `no fault breaks ${rule}`,
      );
  });

  describe('conformant reference', () => {
    let f: Fixture;
    before(async () => {
      f = await startFixture();
    });
    after(() => f.close());
    test('passes every probe', async () => {
      assert.deepEqual(await brokenRules(f), {});
    });
  });

  for (const fault of API_FAULTS) {
    test(`${fault.name} breaks ${fault.rule} only`, async () => {
      // With Bearer broken on base, the other probes authenticate with X-API-Key.
      const f = await startFixture(
        { faults: new Set([fault.name]) },
        fault.name === 'bearer-rejected-on-base' ? 'x-api-key' : 'bearer',
      );
      try {
        const broken = await brokenRules(f);
        const expected = [fault.rule, ...(ALSO_BREAKS[fault.name as ApiFaultName] ?? [])].sort();
        assert.deepEqual(Object.keys(broken).sort(), expected, `broken: ${JSON.stringify(broken)}`);
      } finally {
        await f.close();
      }
    });
  }
});
