// Which folder may import which (docs: the layout table of the project's house style). src/ is the
// shared core and reaches no stage; the stages reach src/ only; run/ composes the stages; cli/ is
// the command line over everything; tools/ is the project's own tooling, which nothing imports.
// The product never imports the reference service except where it starts it as the default target
// (the command line and the run's orchestration), and no two modules import each other in a ring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { OUTPUT_FOLDERS } from '../../tools/compile.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where runs and the bench write (git-ignored): whatever lies there is not the project's code. */
const OUTPUT = new Set(OUTPUT_FOLDERS.map((d) => join(ROOT, d)));

/** Folder -> the folders its files may import (besides itself). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  src: [],
  contracts: ['src'],
  load: ['src'],
  reports: ['src'],
  reference: ['src'],
  run: ['contracts', 'load', 'reports', 'reference', 'src'],
  cli: ['run', 'contracts', 'load', 'reports', 'reference', 'src'],
  tools: ['cli', 'run', 'contracts', 'load', 'reports', 'reference', 'src', 'test', 'schemas'],
};
const FOLDERS = Object.keys(MAY_IMPORT);

function sources(dir: string): string[] {
  if (!existsSync(dir) || OUTPUT.has(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative module specifiers of a file: static imports, re-exports and dynamic import() calls. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) out.push(m[1]!);
  return out;
}

const top = (file: string) => relative(ROOT, file).split(sep)[0]!;

/** Every product and tooling file with the files it imports (resolved .js -> .ts). */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const folder of FOLDERS)
    for (const file of sources(join(ROOT, folder))) {
      const deps = specifiers(readFileSync(file, 'utf8')).map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts'));
      g.set(file, deps);
    }
  return g;
}

test('specifiers finds static, re-exported and dynamic imports', () => {
  const text = `import a from '../x.js';\nexport { b } from "./y.js";\nconst c = await import('../../z.js');\nimport './side.js';\nimport fs from 'node:fs';`;
  assert.deepEqual(specifiers(text), ['../x.js', './y.js', '../../z.js', './side.js']);
});

test('each folder imports only the folders below it in the layout table', () => {
  const offending: string[] = [];
  for (const [file, deps] of graph()) {
    const from = top(file);
    for (const dep of deps) {
      const to = top(dep);
      if (to !== from && !MAY_IMPORT[from]!.includes(to))
        offending.push(`${relative(ROOT, file)} (${from}/) imports ${relative(ROOT, dep)}`);
    }
  }
  assert.deepEqual(offending, [], `move these or what they import:\n${offending.join('\n')}`);
});

test('nothing imports tools/ but tools/ itself (it is not part of the package)', () => {
  const offending: string[] = [];
  for (const [file, deps] of graph())
    if (top(file) !== 'tools')
      for (const dep of deps)
        if (top(dep) === 'tools') offending.push(`${relative(ROOT, file)} imports ${relative(ROOT, dep)}`);
  assert.deepEqual(offending, []);
});

test('no import cycles among the modules of the product and its tools', () => {
  const g = graph();
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(ROOT, f)).join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const dep of g.get(file) ?? []) if (g.has(dep)) visit(dep, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of g.keys()) visit(file, []);
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n')}`);
});
