// A rule's identity lives in the catalogue (src/rules/catalogue.ts): every other place that names a
// rule id is generated from it or checked here. A rule without a judge, a rule that can be broken
// without a fault to break it, and an id the catalogue lacks anywhere in the product all fail.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { JUDGES } from '../../contracts/judges.js';
import { CHECKS } from '../../load/checks/index.js';
import { FAULTS } from '../../reference/faults/index.js';
import { isRuleId, RULES, SECTIONS, TARGET_SECTION_RULES } from '../../src/rules/catalogue.js';
import { ENDPOINTS } from '../../src/service/endpoints.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRODUCT = ['cli', 'run', 'contracts', 'load', 'reports', 'reference', 'src'];

test('every rule of the catalogue has a judge, and every judge a rule', () => {
  const judged = [...JUDGES.keys(), ...CHECKS.map((c) => c.rule)].sort();
  assert.deepEqual(judged, RULES.map((r) => r.id).sort());
});

test('every rule that can be broken (must, std) has a fault switch in the reference', () => {
  const broken = new Set(FAULTS.map((f) => f.rule));
  assert.deepEqual(
    RULES.filter((r) => r.kind !== 'observe' && !broken.has(r.id)).map((r) => r.id),
    [],
  );
});

test('the faults, the endpoint table and the target schema name catalogue rules only', () => {
  for (const f of FAULTS) assert.ok(isRuleId(f.rule), `fault ${f.name}: ${f.rule}`);
  for (const [name, e] of Object.entries(ENDPOINTS)) {
    const named = JSON.stringify(e).match(/"[A-Z]+-\d+"/g) ?? [];
    for (const id of named) assert.ok(isRuleId(JSON.parse(id) as string), `endpoint ${name}: ${id}`);
  }
  for (const [section, ids] of Object.entries(TARGET_SECTION_RULES))
    for (const id of ids) assert.ok(isRuleId(id), `target section ${section}: ${id}`);
});

test("the target schema's x-rules are the catalogue's (npm run generate writes them)", () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'target.schema.json'), 'utf8')) as unknown;
  const found = new Map<string, string[]>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.title === 'string' && Array.isArray(o['x-rules'])) found.set(o.title, o['x-rules'] as string[]);
    Object.values(o).forEach(walk);
  };
  walk(schema);
  assert.deepEqual(Object.fromEntries(found), TARGET_SECTION_RULES);
});

test('no schema and no product source names a rule id the catalogue lacks', () => {
  // A string that looks like an id of one of the catalogue's sections: 'NFT-14' would be a typo or a rule gone.
  const idLike = new RegExp(`['"\`](?:${SECTIONS.map((s) => s.key).join('|')})-\\d+['"\`]`, 'g');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? files(p) : [p];
    });
  const unknown: string[] = [];
  for (const file of [
    ...PRODUCT.flatMap((d) => files(join(ROOT, d))).filter((f) => f.endsWith('.ts') && !f.includes('generated')),
    ...files(join(ROOT, 'schemas')),
  ])
    for (const m of readFileSync(file, 'utf8').match(idLike) ?? [])
      if (!isRuleId(m.slice(1, -1))) unknown.push(`${relative(ROOT, file)}: ${m}`);
  assert.deepEqual(unknown, []);
});
