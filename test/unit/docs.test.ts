// The public contract in docs/: every field of the target schema is described, and every link
// between the README and docs/ leads to a file that exists. (docs/rules.md and docs/commands.md
// are generated; `npm run generate -- --check` keeps them current.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSchemaNode, type SchemaNode } from '../../src/schemas/walk.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

/** Every property name declared anywhere in the schema, with the dotted place it sits. */
function properties(node: unknown, at: string, out: Map<string, string>): Map<string, string> {
  if (Array.isArray(node)) node.forEach((n) => properties(n, at, out));
  else if (isSchemaNode(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && isSchemaNode(v))
        for (const [name, sub] of Object.entries(v as SchemaNode)) {
          if (name !== '$schema') out.set(`${at}${name}`, name);
          properties(sub, `${at}${name}.`, out);
        }
      else properties(v, k === '$defs' ? '' : at, out);
    }
  }
  return out;
}

test('docs/target-file.md describes every field of schemas/target.schema.json', () => {
  const doc = read('docs/target-file.md');
  const schema = JSON.parse(read('schemas/target.schema.json')) as SchemaNode;
  const missing = [...properties(schema, '', new Map())]
    .filter(([, name]) => !doc.includes(`\`${name}\``) && !doc.includes(`.${name}\``))
    .map(([where]) => where);
  assert.deepEqual(missing, [], 'add these fields to docs/target-file.md');
});

test('every relative link of README.md and docs/*.md leads to a file that exists', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const broken: string[] = [];
  for (const page of pages) {
    for (const m of read(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/.test(href)) continue;
      if (!existsSync(join(ROOT, dirname(page), href))) broken.push(`${page}: ${href}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('README.md links every page of docs/', () => {
  const readme = read('README.md');
  for (const f of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')))
    assert.ok(readme.includes(`(docs/${f})`), `README links docs/${f}`);
});
