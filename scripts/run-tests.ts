// `npm test`: type-check, generated-types drift check, then every test file under test/ with
// node:test (tsx loader). Pass folder names to run a subset: `npm test -- unit reference`.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { browserRequired, findChromium, skipLine } from '../test/support/chromium.js';

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return testFiles(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}

const only = process.argv.slice(2);
if (only.length === 0) {
  run('npx', ['tsc', '-p', '.']);
  if (existsSync('scripts/generate-types.ts')) run('npx', ['tsx', 'scripts/generate-types.ts', '--check']);
}
const files = (only.length ? only.map((d) => join('test', d)) : ['test']).flatMap(testFiles).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const tests = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], { stdio: 'inherit' });
// The browser tests' skip line, once more below the summary where a user looks.
const browserless = skipLine(findChromium());
if (browserless && !browserRequired() && files.some((f) => f.startsWith(join('test', 'reports')))) console.log(`\n${browserless}`);
process.exit(tests.status ?? 1);
