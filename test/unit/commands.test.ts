// Every command answers --help (exit 0, every flag of its table on one line each) and --version,
// and refuses a flag it does not know with exit 2 and one line. Run as a person runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../../tools/commands.js';
import { TOOL } from '../../src/results.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(script: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

for (const { script, def } of COMMANDS) {
  test(`${def.invocation} --help: exit 0, every flag it accepts listed with its line of help`, () => {
    const r = run(script, '--help');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const lines = r.stdout.split('\n');
    for (const [name, flag] of Object.entries({
      ...def.flags,
      help: { help: 'print this help and exit' },
      version: { help: "print chainprobe's version and exit" },
    })) {
      const at = lines.findIndex((l) => new RegExp(`^\\s+(-\\w, )?--${name}\\b`).test(l));
      assert.ok(at >= 0, `--${name} listed`);
      // The help text follows on the same line, or on the next one when the flag is long.
      assert.ok(`${lines[at]} ${lines[at + 1]}`.includes(flag.help), `--${name}'s help shown`);
    }
  });

  test(`${def.invocation} with an unknown flag: exit 2, one line`, () => {
    const r = run(script, '--no-such-flag');
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `${def.prefix}: --no-such-flag: unknown option; see ${def.invocation} --help\n`);
  });
}

test('npm start -- --version prints the package version', () => {
  const r = run('cli/start.ts', '--version');
  assert.equal(r.code, 0);
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
  assert.equal(TOOL.version, pkg.version, 'results.json and --version report the package version');
  assert.equal(r.stdout, `chainprobe ${pkg.version}\n`);
});

test('package.json runs exactly the commands the list knows (a new script gets --help too)', () => {
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: Record<string, string> };
  // tsc and prettier answer --help themselves.
  const user = Object.entries(pkg.scripts).filter(([name]) => name !== 'typecheck' && name !== 'format');
  for (const [name, cmd] of user) {
    const script = /tsx ((?:cli|tools)\/\S+\.ts)/.exec(cmd)?.[1];
    assert.ok(script && COMMANDS.some((c) => c.script === script), `npm run ${name} (${cmd}) is in tools/commands.ts`);
  }
});

test('output piped into a reader that stops early (| head) ends the command quietly, with no stack trace', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/reference.ts', '--list-faults'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.destroy(); // the reader is gone before the first line
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(stderr, '');
  assert.equal(code, 0);
});
