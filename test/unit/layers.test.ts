// The shared core imports no stage: what is under src/ is shared by the contracts, the probes, the
// reports, the reference and the orchestration (run/), so none of them may be reached from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const STAGES = ['contracts', 'load', 'reports', 'reference', 'scripts', 'run'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [p] : [];
  });
}

/** Relative module specifiers of a file: static imports, re-exports and dynamic import() calls. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) out.push(m[1]!);
  return out;
}

test('specifiers finds static, re-exported and dynamic imports', () => {
  const text = `import a from '../x.js';\nexport { b } from "./y.js";\nconst c = await import('../../z.js');\nimport './side.js';\nimport fs from 'node:fs';`;
  assert.deepEqual(specifiers(text), ['../x.js', './y.js', '../../z.js', './side.js']);
});

test('no file under src/ imports from a stage folder', () => {
  const offending: string[] = [];
  for (const file of sources(join(ROOT, 'src'))) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const top = relative(ROOT, resolve(dirname(file), spec)).split(sep)[0]!;
      if (STAGES.includes(top)) offending.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(offending, [], `src/ is the shared core; move these or what they import:\n${offending.join('\n')}`);
});
