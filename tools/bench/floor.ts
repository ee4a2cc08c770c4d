// Playwright's own floor on this machine: a run of the contract suite's shape (as many tests in
// each family's spec file as a traced contract run had (trace.ts), the same worker count, Playwright's
// TypeScript loader off as for chainprobe's compiled specs) whose test bodies are empty. What a
// contract run takes beyond it is the suite's own work: requests, judging, reports.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PLAYWRIGHT_JS_ENV } from '../../src/compiled.js';
import { compileCacheEnv } from '../../src/compile-cache.js';
import { REPO_ROOT } from './child.js';

const SPEC = (family: string, n: number) =>
  [
    "import * as playwright from '@playwright/test';",
    // The root test type, as contracts/fixtures.ts uses: no browser fixtures.
    'const test = playwright._baseTest ?? playwright.test;',
    `for (let i = 0; i < ${n}; i++) test(${JSON.stringify(family)} + ' ' + i, async () => {});`,
    '',
  ].join('\n');

const CONFIG = (workers: number) =>
  [
    "import { defineConfig } from '@playwright/test';",
    `export default defineConfig({ testDir: '.', testMatch: ['*.spec.js'], workers: ${workers}, fullyParallel: false,`,
    "  reporter: [['null']], preserveOutput: 'always', outputDir: './out', use: { trace: 'off' } });",
    '',
  ].join('\n');

/** Wall time of one empty run of `shape` with `workers` workers, ms: Playwright's runner spawned to closed. */
export async function emptyRunMs(shape: Record<string, number>, workers: number): Promise<number> {
  // Inside the project (reports/bench is git-ignored), so '@playwright/test' resolves from its node_modules.
  const parent = join(REPO_ROOT, 'reports', 'bench');
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, 'playwright-floor-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(join(dir, 'playwright.config.js'), CONFIG(workers));
    for (const [family, n] of Object.entries(shape)) writeFileSync(join(dir, `${family}.spec.js`), SPEC(family, n));
    const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const started = performance.now();
    const code = await new Promise<number | null>((resolveP, reject) => {
      const child = spawn(process.execPath, [cli, 'test', '-c', join(dir, 'playwright.config.js')], {
        cwd: dir,
        // Node's compile cache as chainprobe's runner gets it (Node 22.1 and later; nothing before).
        env: { ...process.env, ...PLAYWRIGHT_JS_ENV, ...compileCacheEnv(), NODE_OPTIONS: '' },
        stdio: 'ignore',
      });
      child.once('error', reject);
      child.once('exit', resolveP);
    });
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`the empty Playwright run exited ${code}`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
