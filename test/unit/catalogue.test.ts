import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { RULES, SECTIONS } from '../../src/rules/catalogue.js';

// The project keeps its own catalogue; this keeps it equal to the shared one when that is beside us.
const shared = new URL('../../../shared/spec/rules.md', import.meta.url);

test('rule ids and kinds equal those of the shared rules.md', { skip: !existsSync(shared) && 'no ../shared checkout beside the project' }, () => {
  const md = readFileSync(shared, 'utf8');
  const theirs = [...md.matchAll(/^\| ([A-Z]+-\d+) \| (must|std|observe) \|/gm)].map((m) => `${m[1]} ${m[2]}`);
  const ours = RULES.map((r) => `${r.id} ${r.kind}`);
  assert.deepEqual(ours, theirs);
});

test('every rule belongs to a known section and ids are unique', () => {
  const keys = new Set(SECTIONS.map((s) => s.key));
  for (const r of RULES) assert.ok(keys.has(r.section), r.id);
  assert.equal(new Set(RULES.map((r) => r.id)).size, RULES.length);
});
