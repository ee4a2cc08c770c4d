// The contract suite's Playwright configuration. Started by contracts/run.ts, which passes the
// target and the run's limits in the environment (contracts/env.ts). No browser: API tests only.
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { suiteEnv } from './env.js';
import { CONTRACT_FAMILIES } from '../src/rules/catalogue.js';
import { MODULE_EXT } from '../src/package.js';

const here = dirname(fileURLToPath(import.meta.url));
const env = suiteEnv();

/**
 * A chainprobe killed outright (SIGKILL, a CI job's timeout, a test process that ended) cannot stop
 * the runner it started in a process group of its own, and the runner would wait for the stage's
 * files, or go on sending, until the deadline. The parent holds the runner's stdin open: when it
 * closes, the runner ends its group, workers included. The config loads in every worker too; only
 * the runner (no TEST_WORKER_INDEX) watches.
 */
function watchParent(): void {
  if (!env.parentPipe || process.env.TEST_WORKER_INDEX !== undefined) return;
  const gone = () => process.kill(-process.pid, 'SIGKILL');
  process.stdin.once('end', gone).once('error', gone).resume();
  // Watching must not keep the runner alive once its tests are done.
  (process.stdin as { unref?: () => void }).unref?.();
}
watchParent();
const scratch = env.checksFile ? dirname(env.checksFile) : tmpdir();

const reporters: ReporterDescription[] = [[join(here, `reporter${MODULE_EXT}`)]];
// The chainprobe reporter must stay first: it redacts the objects the HTML reporter then reads.
if (env.htmlDir) reporters.push(['html', { outputFolder: env.htmlDir, open: 'never' }]);

export default defineConfig({
  testDir: here,
  outputDir: join(scratch, 'playwright-output'),
  // One project: every Playwright project needs workers of its own, and a worker costs a second or
  // more of start-up on a small machine. Each access family is its own spec file instead
  // (`<family>.spec.ts`); the run selects families by file.
  projects: [{ name: 'contracts', testMatch: CONTRACT_FAMILIES.map((f) => `${f}.spec${MODULE_EXT}`) }],
  workers: env.workers,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  // Tests write no files; 'always' only spares an rmdir per test.
  preserveOutput: 'always',
  // Backstops only: tests set their own timeout from limits.timeoutMs and their request count.
  timeout: Math.max(30_000, env.target.limits.timeoutMs * 4),
  globalTimeout: Math.max(1_000, env.deadline - Date.now()),
  reporter: reporters,
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});
