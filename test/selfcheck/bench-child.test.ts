// The bench measures a run as `npm start` makes it (cli/clone-start.mjs): its run child is plain
// JavaScript whose product modules all come from the compiled copy (tools/bench/compiled-child.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { compiledChildScript } from '../../tools/bench/compiled-child.js';
import { compiledRoot } from '../../src/compiled.js';

test("the bench's run child imports the product from the compiled copy, and nothing of it from the sources", async () => {
  const copy = pathToFileURL(await compiledRoot()).href;
  const text = readFileSync(await compiledChildScript('tools/bench/run-child.ts'), 'utf8');
  const specifiers = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
  const product = specifiers.filter((s) => s.startsWith('file:'));
  for (const must of ['run/pipeline.js', 'reference/start.js', 'src/compile-cache.js'])
    assert.ok(product.includes(`${copy}/${must}`), `${must} from the copy`);
  assert.deepEqual(
    specifiers.filter((s) => s.startsWith('.') || s.endsWith('.ts')),
    [],
    'no relative or TypeScript import left',
  );
});
