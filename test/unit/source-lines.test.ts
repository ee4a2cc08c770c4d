// No source line over 160 characters outside generated files: Prettier (print width 120) breaks
// code, not the template literals and strings it cannot split, so this names each long line left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_CHARS = 160;

/** Written by tools/generate-types.ts, not by hand. */
const GENERATED = ['src/types/generated/'];

/** The tracked .ts files (git ls-files); without git, the folders tsconfig.json includes. */
function sourceFiles(): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--', '*.ts'], { cwd: ROOT, encoding: 'utf8' });
    return out.split('\0').filter(Boolean);
  } catch {
    const { include, exclude = [] } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
      include: string[];
      exclude?: string[];
    };
    const skipped = new Set(['node_modules', ...exclude]);
    const walk = (path: string): string[] => {
      if (skipped.has(path) || !existsSync(join(ROOT, path))) return [];
      if (!statSync(join(ROOT, path)).isDirectory()) return path.endsWith('.ts') ? [path] : [];
      return readdirSync(join(ROOT, path)).flatMap((name) => walk(`${path}/${name}`));
    };
    return include.flatMap(walk);
  }
}

test(`no source line over ${MAX_CHARS} characters outside generated files`, () => {
  const files = sourceFiles()
    .map((f) => f.split(sep).join('/'))
    .filter((f) => !GENERATED.some((prefix) => f.startsWith(prefix)))
    .filter((f) => existsSync(join(ROOT, f)));
  assert.ok(files.includes('reports/html.ts'), `the source files were found (${files.length})`);
  const long: string[] = [];
  for (const file of files) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const chars = [...line].length;
        if (chars > MAX_CHARS) long.push(`${file}:${i + 1}: ${chars} characters`);
      });
  }
  assert.deepEqual(long, [], `lines over ${MAX_CHARS} characters (break them into named parts):\n${long.join('\n')}`);
});
