// `npm test`: every test file under test/ with node:test (tsx loader), and beside them the type-check,
// the generated-types drift check and the formatter check. Pass folder names to run a subset:
// `npm test -- unit reference`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commandLine, defineCommand } from '../cli/args.js';
import { exitWith } from '../cli/fatal.js';
import { browserRequired, findChromium, skipLine } from '../test/support/chromium.js';
import { BUILT_ENV } from '../test/support/command.js';
import { buildPackage } from './build.js';

export const TEST = defineCommand({
  invocation: 'npm test --',
  prefix: 'chainprobe test',
  summary:
    "The project's own tests: dist/ built from the sources (the tests start chainprobe's commands from it), " +
    'then every test file under test/ (node:test), with the type-check, the generated-files drift check ' +
    'and the formatter check (Prettier) beside them; a failing check stops the tests. Given folders of test/, only their files run, without the three checks.',
  flags: {
    concurrency: {
      type: 'string',
      value: '<n>',
      integer: [1, 64],
      help: 'test files run at once in each group, the real-time files and the rest (default: the number of cores plus two)',
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
 * The checks beside the tests: each is one process on one core (the formatter's alone takes 7-17 s),
 * and they read the sources only, so they fill the cores while the first test files start, at the
 * lowest priority like every file that does not run on real time. The first that fails is printed
 * at once and stops the tests; `undefined` when all passed.
 */
async function staticChecks(): Promise<{ code: number; label: string } | undefined> {
  const checks = [
    ['tsc', '-p', '.'],
    existsSync('tools/generate-types.ts') && ['tsx', 'tools/generate-types.ts', '--check'],
    // The formatter's check (`npm run format` fixes what it names).
    ['prettier', '--check', '--log-level', 'warn', '.'],
  ].filter((c): c is string[] => c !== false);
  return new Promise((resolveP) => {
    let left = checks.length;
    for (const args of checks) {
      const [cmd, ...rest] = lowest(['npx', ...args]);
      void runQuietly(cmd!, rest).then((r) => {
        process.stdout.write(r.output);
        if (r.code !== 0) resolveP({ code: r.code, label: `npx ${args.join(' ')}` });
        else if (--left === 0) resolveP(undefined);
      });
    }
  });
}

/** The test files under `dir`, as paths joined to it. */
export function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return testFiles(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}

/**
 * The longest test files (wall time measured in a full run), longest first: files start in the order
 * given (tools/run-test-files.ts), and a long file started last runs alone at the end. Each group
 * (the real-time files and the rest) takes them in this order; every other file keeps its
 * alphabetical place after these. Each of these keeps a process of its own: a batch runs its files
 * one after another and starts after these, so a long member would end the run alone.
 */
export const LONGEST_FIRST = [
  'fleet/run.test.ts',
  'metrics/shard.test.ts',
  'contracts/hosts-agree.test.ts',
  'safety/canary.test.ts',
  'package/install.test.ts',
  'metrics/prometheus.test.ts',
  'package/action.test.ts',
  'reports/real-runs.test.ts',
  'metrics/metrics.test.ts',
  'load/nginx.test.ts',
  'tls/tls.test.ts',
  'contracts/variants.test.ts',
  'safety/hostile.test.ts',
  'compare/live.test.ts',
  'unit/commands.test.ts',
  'load/reference-virtual.test.ts',
  'cli/run.test.ts',
  'reference/nodes-faults.test.ts',
  'compare/browser.test.ts',
  'reference/api-faults.test.ts',
  'safety/reference-fuzz.test.ts',
  'safety/budget.test.ts',
  'load/reference.test.ts',
  'safety/interrupt.test.ts',
  'selfcheck/subset.test.ts',
  'contracts/run.test.ts',
  'contracts/faults.test.ts',
].map((f) => join('test', f));

/**
 * Most long files spend much of their time waiting (limiter physics, timeouts, child processes
 * starting): at three files at a time the two cores of a CI machine were busy 1.55 of 2 and npm test
 * took 280 s; at four, 246 s (2026-11-29), with the same verdicts. The tests hold on a loaded machine.
 */
function defaultConcurrency(): number {
  return availableParallelism() + 2;
}

function longestFirst(files: string[]): string[] {
  const rank = (f: string) => {
    const i = LONGEST_FIRST.indexOf(f);
    return i === -1 ? LONGEST_FIRST.length : i;
  };
  // sort() is stable: the rest keep their order.
  return [...files].sort((a, b) => rank(a) - rank(b));
}

/**
 * The files whose assertions rest on real time (limiter physics, a probe's schedule, a deadline):
 * each judges a run against the stall it measured (test/support/stalls.ts) and, past its
 * tolerance, says it measured the machine instead of failing. So they run at normal priority and
 * every other file, the static checks too, at the lowest (`nice -n 19`): the cores go to a
 * real-time file whenever it needs them, and the rest fill what it leaves. In one group with the
 * rest, quiet runs skipped timing tests that the machine had held up; in a group of their own they
 * did not (the figures are in the issue notes, not here).
 */
export const REAL_TIME = [
  'tls/tls.test.ts',
  'fleet/run.test.ts',
  'metrics/shard.test.ts',
  'reports/real-runs.test.ts',
  'load/nginx.test.ts',
  'load/reference.test.ts',
  'safety/budget.test.ts',
  'selfcheck/subset.test.ts',
  'run/side-by-side.test.ts',
  'safety/interrupt.test.ts',
].map((f) => join('test', f));

/** What heads the real-time group's report (the bench finds the group's own duration under it). */
export const REAL_TIME_HEADER = '# the real-time tests';

/** The command that runs `args` at the lowest priority; as it is where there is no `nice`. */
function lowest(args: string[]): string[] {
  return existsSync('/usr/bin/nice') ? ['/usr/bin/nice', '-n', '19', ...args] : args;
}

/** Short test files run in one process, this many to a process (see batched). */
export const BATCH = 8;

/**
 * The short files, in processes of BATCH files each: most take well under a second of their own,
 * and a process of its own costs each one about half a second of CPU before its first test (Node
 * and the TypeScript loader). A batch is a file that imports its members; node:test runs their
 * tests one after another, each file's hooks with them (no test file sets a hook for every test,
 * or changes what another reads). The long files keep a process each, as do files with a top-level
 * await (their tests would start while the rest of the batch still loads). Batch files go in
 * `dir`, as .mts: outside the project, a .ts file would load as CommonJS and its imports with it.
 */
export function batched(files: string[], dir: string): string[] {
  const topLevelAwait = (f: string) => /^(?:\S.*)?\bawait\b/m.test(readFileSync(f, 'utf8'));
  const alone = (f: string) => LONGEST_FIRST.includes(f) || REAL_TIME.includes(f) || topLevelAwait(f);
  const short = files.filter((f) => !alone(f));
  const batches: string[] = [];
  for (let i = 0; i < short.length; i += BATCH) {
    const members = short.slice(i, i + BATCH);
    // Named after its first member: a batch that fails as a whole (a crash) is found by its name.
    const name = `${String(batches.length + 1).padStart(2, '0')}-${basename(members[0]!, '.test.ts')}-and-${members.length - 1}.test.mts`;
    const file = join(dir, name);
    writeFileSync(file, members.map((m) => `import ${JSON.stringify(pathToFileURL(resolve(m)).href)};\n`).join(''));
    batches.push(file);
  }
  return [...files.filter(alone), ...batches];
}

interface TestGroup {
  done: Promise<number>;
  stop(signal: NodeJS.Signals): void;
}

/**
 * Runs test files in a process group of their own, which `stop` ends whole (the files' own
 * children too). Its report goes to `out` as it comes.
 */
function startGroup(
  concurrency: number,
  files: string[],
  opts: { niced: boolean; out: (chunk: Buffer) => void },
): TestGroup {
  const argv = [process.execPath, '--import', 'tsx', join('tools', 'run-test-files.ts'), String(concurrency), ...files];
  const [cmd, ...args] = opts.niced ? lowest(argv) : argv;
  const tests = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  tests.stdout.on('data', opts.out);
  const stop = (signal: NodeJS.Signals) => {
    try {
      if (tests.pid !== undefined) process.kill(-tests.pid, signal);
    } catch {
      // already gone
    }
  };
  const done = new Promise<number>((resolveP) => {
    tests.on('error', () => resolveP(1));
    tests.on('close', (code) => resolveP(code ?? 1));
  });
  return { done, stop };
}

/**
 * The real-time files and the rest, each group with its own node:test run. The rest's report
 * streams as it comes; the real-time group's is printed whole when it ends, so two spec reports
 * never interleave.
 */
function startTests(
  concurrency: number,
  files: string[],
): { done: Promise<number>; stop(signal: NodeJS.Signals): void; interrupted(): NodeJS.Signals | undefined } {
  const realTime = files.filter((f) => REAL_TIME.includes(f));
  const rest = files.filter((f) => !REAL_TIME.includes(f));
  const groups: TestGroup[] = [];
  if (rest.length)
    groups.push(startGroup(concurrency, rest, { niced: realTime.length > 0, out: (c) => process.stdout.write(c) }));
  if (realTime.length) {
    const report: Buffer[] = [];
    // As many as the cores: at one more, a quiet run's nginx test was held up 323 ms by the others.
    const group = startGroup(Math.min(concurrency, availableParallelism(), realTime.length), realTime, {
      niced: false,
      out: (c) => report.push(c),
    });
    groups.push({
      ...group,
      done: group.done.then((code) => {
        process.stdout.write(`\n${REAL_TIME_HEADER} (${realTime.length} files, at normal priority)\n`);
        process.stdout.write(Buffer.concat(report));
        return code;
      }),
    });
  }
  const stop = (signal: NodeJS.Signals) => groups.forEach((g) => g.stop(signal));
  let interrupted: NodeJS.Signals | undefined;
  // A detached group gets no signal from the terminal: Ctrl-C reaches it through here.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      interrupted ??= signal;
      stop(signal);
    });
  const done = Promise.all(groups.map((g) => g.done)).then((codes) => codes.find((c) => c !== 0) ?? 0);
  return { done, stop, interrupted: () => interrupted };
}

async function main(): Promise<void> {
  const cli = commandLine(TEST);
  const only = cli.positionals;
  const concurrency = cli.values.concurrency ?? defaultConcurrency();
  const files = longestFirst((only.length ? only.map((d) => join('test', d)) : ['test']).flatMap(testFiles).sort());
  if (files.length === 0) {
    console.error(`no test files found${only.length ? ` under ${only.map((d) => join('test', d)).join(', ')}` : ''}`);
    process.exit(1);
  }
  // The tests start chainprobe's commands from dist/, built here from the sources under test
  // (test/support/command.ts): each of those processes then runs without the TypeScript loader.
  await buildPackage();
  process.env[BUILT_ENV] = '1';
  const batchDir = mkdtempSync(join(tmpdir(), 'chainprobe-test-batches-'));
  process.on('exit', () => rmSync(batchDir, { recursive: true, force: true }));
  const tests = startTests(concurrency, batched(files, batchDir));
  const checks = only.length === 0 ? staticChecks() : Promise.resolve(undefined);
  const failedCheck = await checks;
  // Ctrl-C reached the checks too: they did not fail, they were stopped.
  if (tests.interrupted()) {
    await tests.done;
    process.exit(tests.interrupted() === 'SIGINT' ? 130 : 143);
  }
  if (failedCheck) {
    tests.stop('SIGTERM');
    await tests.done;
    console.error(`\nnpm test: ${failedCheck.label} failed (above); the tests were stopped`);
    process.exit(failedCheck.code);
  }
  const status = await tests.done;
  if (tests.interrupted()) process.exit(tests.interrupted() === 'SIGINT' ? 130 : 143);
  // The browser tests' skip line, once more below the summary where a user looks.
  const browserless = skipLine(findChromium());
  if (browserless && !browserRequired() && files.some((f) => f.startsWith(join('test', 'reports'))))
    console.log(`\n${browserless}`);
  process.exit(status);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: unknown) => exitWith(TEST.prefix, e));
}
