// `npm test`: type-check, generated-types drift check, formatter check, then every test file under test/ with
// node:test (tsx loader). Pass folder names to run a subset: `npm test -- unit reference`.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, defineCommand } from '../cli/args.js';
import { exitWith } from '../cli/fatal.js';
import { browserRequired, findChromium, skipLine } from '../test/support/chromium.js';
import { compiledRoot } from '../src/compiled.js';

export const TEST = defineCommand({
  invocation: 'npm test --',
  prefix: 'chainprobe test',
  summary:
    "The project's own tests: type-check, the generated-files drift check, the formatter check (Prettier), " +
    'then every test file under test/ (node:test). Given folders of test/, only their files run, without the three checks.',
  flags: {
    concurrency: {
      type: 'string',
      value: '<n>',
      integer: [1, 64],
      help: 'test files run at once (default: the number of cores plus one, at least 2)',
    },
  },
  positionals: {
    value: '[folder...]',
    help: 'folders of test/ to run, e.g. unit reference (default: all, with the type-check, drift and formatter checks)',
  },
  examples: ['npm test', 'npm test -- unit cli', 'npm test -- --concurrency 2'],
  exit: ['0  every test passed', '1  a test, the type-check, the drift check or the formatter check failed'],
});

/** A command's exit code and everything it printed (shown once it is done, not interleaved with the others). */
function runQuietly(cmd: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolveP) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', (e) => resolveP({ code: 1, output: `${cmd}: ${e.message}\n` }));
    child.on('close', (code) => resolveP({ code: code ?? 1, output }));
  });
}

/**
 * The checks before the tests, side by side: each is one process on one core (the formatter's alone
 * takes about 17 s), and they read the sources only. The tests start when all passed.
 */
async function staticChecks(): Promise<void> {
  const checks = [
    ['tsc', '-p', '.'],
    existsSync('tools/generate-types.ts') && ['tsx', 'tools/generate-types.ts', '--check'],
    // The formatter's check (`npm run format` fixes what it names).
    ['prettier', '--check', '--log-level', 'warn', '.'],
  ].filter((c): c is string[] => c !== false);
  const results = await Promise.all(checks.map((args) => runQuietly('npx', args)));
  for (const r of results) process.stdout.write(r.output);
  const failed = results.find((r) => r.code !== 0);
  if (failed) process.exit(failed.code);
}

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return testFiles(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}

/**
 * The longest test files (wall time measured in a full run), longest first: files start in the order
 * given (tools/run-test-files.ts), and a long file started last runs alone at the end (tls.test.ts,
 * 90 s, did). Every other file keeps its alphabetical place after these.
 */
const LONGEST_FIRST = [
  'tls/tls.test.ts',
  'load/reference.test.ts',
  'safety/canary.test.ts',
  'selfcheck/subset.test.ts',
  'package/action.test.ts',
  'safety/hostile.test.ts',
  'package/install.test.ts',
  'cli/run.test.ts',
  'reports/real-runs.test.ts',
  'contracts/run.test.ts',
  'safety/budget.test.ts',
  'fleet/run.test.ts',
  'safety/interrupt.test.ts',
  'load/nginx.test.ts',
  'contracts/faults.test.ts',
  'contracts/variants.test.ts',
].map((f) => join('test', f));

/**
 * Most long files spend their time waiting (limiter physics, timeouts, child processes starting),
 * so one file more than there are cores keeps the cores busy; the tests hold on a loaded machine.
 */
function defaultConcurrency(): number {
  return Math.max(2, availableParallelism() + 1);
}

function longestFirst(files: string[]): string[] {
  const rank = (f: string) => {
    const i = LONGEST_FIRST.indexOf(f);
    return i === -1 ? LONGEST_FIRST.length : i;
  };
  // sort() is stable: the rest keep their order.
  return [...files].sort((a, b) => rank(a) - rank(b));
}

async function main(): Promise<void> {
  const cli = commandLine(TEST);
  const only = cli.positionals;
  const concurrency = cli.values.concurrency ?? defaultConcurrency();
  if (only.length === 0) await staticChecks();
  const files = longestFirst((only.length ? only.map((d) => join('test', d)) : ['test']).flatMap(testFiles).sort());
  if (files.length === 0) {
    console.error(`no test files found${only.length ? ` under ${only.map((d) => join('test', d)).join(', ')}` : ''}`);
    process.exit(1);
  }
  // The copy of the product Playwright runs (src/compiled.ts), compiled once here rather than by
  // the first test files at the same time.
  await compiledRoot().catch(() => undefined);
  const tests = spawnSync(
    process.execPath,
    ['--import', 'tsx', join('tools', 'run-test-files.ts'), String(concurrency), ...files],
    { stdio: 'inherit' },
  );
  // The browser tests' skip line, once more below the summary where a user looks.
  const browserless = skipLine(findChromium());
  if (browserless && !browserRequired() && files.some((f) => f.startsWith(join('test', 'reports'))))
    console.log(`\n${browserless}`);
  process.exit(tests.status ?? 1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: unknown) => exitWith(TEST.prefix, e));
}
