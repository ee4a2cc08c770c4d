// The bench runs chainprobe's code as the installed package does: its run child is plain
// JavaScript whose product modules all come from the package's compiled dist/ (tools/bench/compiled-child.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledChildScript } from '../../tools/bench/compiled-child.js';

test("the bench's run child imports the product from the package's dist/, and nothing of it from the sources", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-bench-child-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The imports point into dist/ whether or not it is built: the bundle is all this test reads.
  const dist = join(dir, 'installed', 'dist');
  const text = readFileSync(
    await compiledChildScript('tools/bench/run-child.ts', { dist, outDir: join(dir, 'children') }),
    'utf8',
  );
  const specifiers = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
  const product = specifiers.filter((s) => s.startsWith('file:'));
  for (const must of ['run/pipeline.js', 'reference/start.js', 'src/auth/surface.js', 'src/package.js'])
    assert.ok(product.includes(`${pathToFileURL(dist).href}/${must}`), `${must} from dist/`);
  assert.deepEqual(
    product.filter((s) => !s.startsWith(pathToFileURL(dist).href)),
    [],
    'every product module from dist/',
  );
  assert.deepEqual(
    specifiers.filter((s) => s.startsWith('.') || s.endsWith('.ts')),
    [],
    'no relative or TypeScript import left',
  );
});
