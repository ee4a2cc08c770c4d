import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAULTS } from '../../reference/faults/index.js';
import { VARIANTS } from '../../reference/variants.js';
import { RULES, isRuleId, ruleById } from '../../src/rules/catalogue.js';

test('every must and std rule has at least one fault switch that breaks it', () => {
  const broken = new Set(FAULTS.map((f) => f.rule));
  const uncovered = RULES.filter((r) => r.kind !== 'observe' && !broken.has(r.id)).map((r) => r.id);
  assert.deepEqual(uncovered, []);
});

test('faults name real rules, never an observe rule, and have unique kebab-case names', () => {
  for (const f of FAULTS) {
    assert.ok(isRuleId(f.rule), `${f.name}: unknown rule ${f.rule}`);
    assert.notEqual(ruleById(f.rule).kind, 'observe', `${f.name}: an observe rule cannot be broken`);
    assert.match(f.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    assert.ok(f.description.length > 0 && !f.description.includes('\n'), f.name);
  }
  assert.equal(new Set(FAULTS.map((f) => f.name)).size, FAULTS.length);
});

test('variants change open behaviour only: each names a real rule and none shares a fault name', () => {
  const faultNames = new Set(FAULTS.map((f) => f.name));
  for (const v of VARIANTS) {
    assert.ok(isRuleId(v.rule), `${v.name}: unknown rule ${v.rule}`);
    assert.ok(!faultNames.has(v.name), v.name);
  }
  assert.equal(new Set(VARIANTS.map((v) => v.name)).size, VARIANTS.length);
});
