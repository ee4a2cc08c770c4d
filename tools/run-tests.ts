// `npm test`: type-check, generated-types drift check, formatter check, then every test file under test/ with
// node:test (tsx loader). Pass folder names to run a subset: `npm test -- unit reference`.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, defineCommand } from '../cli/args.js';
import { exitWith } from '../cli/fatal.js';
import { browserRequired, findChromium, skipLine } from '../test/support/chromium.js';

export const TEST = defineCommand({
  invocation: 'npm test --',
  prefix: 'chainprobe test',
  summary:
    "The project's own tests: type-check, the generated-files drift check, the formatter check (Prettier), " +
    'then every test file under test/ (node:test). Given folders of test/, only their files run, without the three checks.',
  flags: {},
  positionals: {
    value: '[folder...]',
    help: 'folders of test/ to run, e.g. unit reference (default: all, with the type-check, drift and formatter checks)',
  },
  examples: ['npm test', 'npm test -- unit cli'],
  exit: ['0  every test passed', '1  a test, the type-check, the drift check or the formatter check failed'],
});

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

/**
 * The longest test files (measured on a quiet machine), longest first: node:test starts files in the
 * order given, and a long file started last runs alone at the end (tls.test.ts, 90 s, did). Every
 * other file keeps its alphabetical place after these.
 */
const LONGEST_FIRST = [
  'contracts/faults.test.ts',
  'load/reference.test.ts',
  'tls/tls.test.ts',
  'contracts/variants.test.ts',
  'safety/canary.test.ts',
  'safety/hostile.test.ts',
  'selfcheck/subset.test.ts',
].map((f) => join('test', f));

function longestFirst(files: string[]): string[] {
  const rank = (f: string) => {
    const i = LONGEST_FIRST.indexOf(f);
    return i === -1 ? LONGEST_FIRST.length : i;
  };
  // sort() is stable: the rest keep their order.
  return [...files].sort((a, b) => rank(a) - rank(b));
}

function main(): void {
  const only = commandLine(TEST).positionals;
  if (only.length === 0) {
    run('npx', ['tsc', '-p', '.']);
    if (existsSync('tools/generate-types.ts')) run('npx', ['tsx', 'tools/generate-types.ts', '--check']);
    // The formatter's check (`npm run format` fixes what it names).
    run('npx', ['prettier', '--check', '--log-level', 'warn', '.']);
  }
  const files = longestFirst((only.length ? only.map((d) => join('test', d)) : ['test']).flatMap(testFiles).sort());
  if (files.length === 0) {
    console.error(`no test files found${only.length ? ` under ${only.map((d) => join('test', d)).join(', ')}` : ''}`);
    process.exit(1);
  }
  const tests = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
    { stdio: 'inherit' },
  );
  // The browser tests' skip line, once more below the summary where a user looks.
  const browserless = skipLine(findChromium());
  if (browserless && !browserRequired() && files.some((f) => f.startsWith(join('test', 'reports'))))
    console.log(`\n${browserless}`);
  process.exit(tests.status ?? 1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (e) {
    exitWith(TEST.prefix, e);
  }
}
