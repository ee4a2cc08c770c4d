// chainprobe as a Playwright project (`chainprobe/playwright`): for teams whose CI already runs
// Playwright Test. One test per contract rule, titled by the catalogue and tagged `@RULE-ID`, each
// running the same plans and judges as the command (contracts/judges.ts) in Playwright's workers;
// `--grep @NFT-09`, `--shard`, Playwright's HTML report and JUnit work as in any suite. Check
// messages are redacted where they are recorded, before any reporter sees them.
//
//   // playwright.config.ts
//   import { chainprobeConfig } from 'chainprobe/playwright';
//   export default chainprobeConfig({ target: 'targets/staging.json' });
//   // tests/chainprobe.spec.ts (Playwright never collects spec files inside node_modules)
//   import { contractTests } from 'chainprobe/playwright';
//   contractTests();
import { resolve } from 'node:path';
import { defineConfig, test as base, type PlaywrightTestConfig } from '@playwright/test';
import { newRunSeed } from '../../src/auth/near-miss.js';
import { RULES } from '../../src/rules/catalogue.js';
import type { CheckResult } from '../../src/verdict.js';
import { CONTRACT_RULES } from '../judges.js';
import { HOST_ENV, hostSettings, WorkerHost, workerSlot } from './host.js';
import { newRunFolder } from './run-folder.js';

export { HOST_ENV };

/** The attachment each rule's test carries: its checks as JSON (chainprobe's reporter reads it). */
export const CHECKS_ATTACHMENT = 'chainprobe-checks';

/** Playwright's `test` with the worker's chainprobe host as a worker fixture. */
export const test = base.extend<object, { chainprobe: WorkerHost }>({
  chainprobe: [
    async ({}, use, workerInfo) => {
      const host = new WorkerHost(hostSettings(), workerSlot(workerInfo));
      await use(host);
      await host.close();
    },
    { scope: 'worker' },
  ],
});

const line = (c: CheckResult) => `${c.verdict}: ${c.id}: ${c.message}`;

/** Declares one test per contract rule of the catalogue (call it from a spec file of yours). */
export function contractTests(): void {
  for (const rule of RULES.filter((r) => CONTRACT_RULES.includes(r.id))) {
    test(`${rule.id} ${rule.title}`, { tag: `@${rule.id}` }, async ({ chainprobe }, testInfo) => {
      test.skip(!chainprobe.selected(rule.id), `${rule.id} is not selected (${HOST_ENV.only})`);
      // A family's plan may walk many pages: the run's time limit bounds it, not Playwright's default.
      test.setTimeout(chainprobe.settings.target.limits.maxSeconds * 1000 + 5_000);
      let checks: CheckResult[];
      try {
        checks = await chainprobe.checksOf(rule.id);
      } catch (e) {
        // Whatever went wrong, no secret reaches a reporter.
        throw new Error(chainprobe.redactor.text(String((e as Error)?.message ?? e)));
      }
      testInfo.attachments.push({
        name: CHECKS_ATTACHMENT,
        body: Buffer.from(JSON.stringify(checks)),
        contentType: 'application/json',
      });
      for (const c of checks)
        if (c.verdict !== 'pass') testInfo.annotations.push({ type: `chainprobe ${c.verdict}`, description: line(c) });
      const bad = checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
      if (bad.length) throw new Error(bad.map(line).join('\n'));
      test.skip(checks.length > 0 && checks.every((c) => c.verdict === 'skipped'), checks[0]?.message);
    });
  }
}

export interface ChainprobeConfigOptions extends PlaywrightTestConfig {
  /** The target file (its `${NAME}` variables come from the environment); default: $CHAINPROBE_TARGET. */
  target?: string;
  /** --only selectors (families, sections, rule ids); default: every contract rule. */
  only?: string;
}

/**
 * A Playwright config for chainprobe's contract tests: one worker by default (the plans go at once
 * inside it; more workers split the target's limits between them), reporters as Playwright's own.
 */
export function chainprobeConfig({ target, only, ...config }: ChainprobeConfigOptions = {}): PlaywrightTestConfig {
  // Read by every worker: set once here, in the runner, so the seed and the deadline are the run's.
  if (target) process.env[HOST_ENV.target] = resolve(target);
  if (only) process.env[HOST_ENV.only] = only;
  process.env[HOST_ENV.seed] ??= String(newRunSeed());
  process.env[HOST_ENV.startedAt] ??= String(Date.now());
  // The runner creates the run's folder (its workers load this config too, and inherit it).
  if (!process.env[HOST_ENV.runDir]) {
    const folder = newRunFolder();
    process.env[HOST_ENV.runDir] = folder.dir;
    process.once('exit', folder.remove);
  }
  return defineConfig({ workers: 1, fullyParallel: false, reporter: [['list']], ...config });
}
