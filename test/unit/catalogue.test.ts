import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import {
  CONTRACT_FAMILIES,
  FAMILIES,
  FAMILY_NAMES,
  familyOf,
  PROBE_FAMILIES,
  RULES,
  rulesOf,
  SECTIONS,
} from '../../src/rules/catalogue.js';
import { RL_RULES, RULE_PHASES } from '../../load/plan.js';
import { CONTRACTS } from '../../contracts/judges.js';

// The project keeps its own catalogue; this keeps it equal to the shared one when that is beside us.
const shared = new URL('../../../shared/spec/rules.md', import.meta.url);

// A user's clone may have no ../shared beside it; CI always has it, so there a missing file fails.
test(
  'rule ids and kinds equal those of the shared rules.md',
  { skip: !existsSync(shared) && process.env.CI !== 'true' && 'no ../shared checkout beside the project' },
  () => {
    assert.ok(existsSync(shared), `CI=true and ${shared.pathname} is missing`);
    const md = readFileSync(shared, 'utf8');
    const theirs = [...md.matchAll(/^\| ([A-Z]+-\d+) \| (must|std|observe) \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    const ours = RULES.map((r) => `${r.id} ${r.kind}`);
    assert.deepEqual(ours, theirs);
  },
);

test('every rule belongs to a known section and ids are unique', () => {
  const keys = new Set(SECTIONS.map((s) => s.key));
  for (const r of RULES) assert.ok(keys.has(r.section), r.id);
  assert.equal(new Set(RULES.map((r) => r.id)).size, RULES.length);
});

test('each family is one stage: a plan and judges per contract family, the probes judge the rest', () => {
  assert.deepEqual(
    CONTRACTS.map((c) => c.family),
    CONTRACT_FAMILIES,
  );
  assert.deepEqual([...CONTRACT_FAMILIES, ...PROBE_FAMILIES].sort(), [...FAMILY_NAMES].sort());
  assert.deepEqual([...rulesOf('contracts'), ...rulesOf('probes')].sort(), RULES.map((r) => r.id).sort());
  for (const r of RULES) assert.ok(FAMILIES[familyOf(r.id)].includes(r.section), r.id);
  // The probes know which phases each of their rules reads: every probe rule, and only those.
  assert.deepEqual(Object.keys(RULE_PHASES).sort(), [...RL_RULES].sort());
});
