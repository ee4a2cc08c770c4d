// `chainprobe --runner playwright`: the contract rules hosted by Playwright Test instead of the
// command's own engine, as a team's Playwright CI would run them (contracts/playwright/index.ts).
// Playwright collects spec files outside node_modules only, so the run writes a two-line spec and a
// config into a folder of its own, runs Playwright's CLI on them, and reads every rule test's checks
// back from chainprobe's reporter. Playwright's HTML report goes to <out>/playwright.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Gap } from '../../src/coverage.js';
import { familyOf } from '../../src/rules/catalogue.js';
import { MODULE_EXT } from '../../src/package.js';
import { PLAYWRIGHT_DIR } from '../../src/out-files.js';
import type { ContractsOutcome, RunContext } from '../../src/stages.js';
import type { CheckResult } from '../../src/verdict.js';
import { CONTRACT_RULES } from '../judges.js';
import { runStartOf } from '../plan.js';
import { HOST_ENV } from './host.js';

const here = (name: string) => fileURLToPath(new URL(`./${name}${MODULE_EXT}`, import.meta.url));

/** Time Playwright gets after the run's deadline to stop its workers and write its reports. */
const GRACE_MS = 5_000;

export async function runContractsInPlaywright(ctx: RunContext): Promise<ContractsOutcome> {
  const selected = CONTRACT_RULES.filter((id) => ctx.selected(id));
  if (selected.length === 0) return { checks: [], gaps: [] };
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-playwright-'));
  const checksFile = join(dir, 'checks.json');
  const htmlDir = join(ctx.outDir, PLAYWRIGHT_DIR);
  try {
    // ES modules, as chainprobe's own are.
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(
      join(dir, `chainprobe.spec${MODULE_EXT}`),
      `import { contractTests } from ${JSON.stringify(here('index'))};\ncontractTests();\n`,
    );
    writeFileSync(
      join(dir, `playwright.config${MODULE_EXT}`),
      `import { chainprobeConfig } from ${JSON.stringify(here('index'))};\n` +
        `export default chainprobeConfig(${JSON.stringify({
          testDir: dir,
          reporter: [
            [here('reporter'), { outputFile: checksFile }],
            ['html', { outputFolder: htmlDir, open: 'never' }],
          ],
        })});\n`,
    );
    const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      [HOST_ENV.targetJson]: JSON.stringify(ctx.target),
      [HOST_ENV.only]: selected.join(','),
      [HOST_ENV.seed]: String(ctx.seed),
      [HOST_ENV.startedAt]: String(runStartOf(ctx.target, ctx.deadline)),
      FORCE_COLOR: '0',
    };
    delete env[HOST_ENV.target];
    const child = spawn(process.execPath, [cli, 'test', '-c', join(dir, `playwright.config${MODULE_EXT}`)], {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const stop = () => child.kill('SIGTERM');
    ctx.signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(stop, Math.max(0, ctx.deadline - Date.now()) + GRACE_MS);
    const code = await new Promise<number | null>((res) => {
      child.on('error', () => res(null));
      child.on('close', res);
    });
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', stop);
    const checks: CheckResult[] = existsSync(checksFile)
      ? (JSON.parse(readFileSync(checksFile, 'utf8')) as CheckResult[])
      : [];
    for (const family of new Set(selected.map(familyOf))) {
      const total = selected.filter((r) => familyOf(r) === family).length;
      ctx.progress({ stage: 'contracts', family, done: total, total });
    }
    const firstError = stderr.split('\n').find((l) => /error/i.test(l)) ?? stderr.split('\n')[0] ?? '';
    const reason = ctx.signal.aborted
      ? 'interrupted'
      : `the Playwright run gave no verdict (exit ${code ?? 'signal'})${firstError ? `: ${firstError.trim()}` : ''}`;
    const gaps: Gap[] = [{ rules: (id) => selected.includes(id), reason: ctx.redactor.text(reason).slice(0, 300) }];
    const report = existsSync(join(htmlDir, 'index.html')) ? `${PLAYWRIGHT_DIR}/index.html` : undefined;
    return { checks, gaps, seed: ctx.seed, ...(report && { playwrightReport: report }) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
