// Every command answers --help (exit 0, every flag of its table on one line each) and --version,
// and refuses a flag it does not know with exit 2 and one line. Run as a person runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../../tools/commands.js';
import { commandArgs } from '../support/command.js';
import { helpText, parseCommand } from '../../cli/args.js';
import { UsageError } from '../../cli/fatal.js';
import { TOOL } from '../../src/results.js';
import { HANG_MS } from '../support/backstops.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(script: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [...commandArgs(script), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: HANG_MS,
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
      // A flag's line: two spaces, then `-h, ` or four spaces (a wrapped line of help may start with a --flag).
      const at = lines.findIndex((l) => new RegExp(`^ {2}(-\\w, | {4})--${name}\\b`).test(l));
      assert.ok(at >= 0, `--${name} listed`);
      // The help text follows on the same line or the next, wrapped over the lines up to the next flag.
      const end = lines.findIndex((l, i) => i > at && (!l.trim() || /^ {2}(-\w, | {4})--\w/.test(l)));
      const text = lines.slice(at, end).join(' ').replace(/\s+/g, ' ');
      assert.ok(text.includes(flag.help), `--${name}'s help shown`);
      assert.ok(
        lines.every((l) => l.length <= 80),
        'help wraps to 80 columns when not a terminal',
      );
    }
  });

  test(`${def.invocation} with an unknown flag: a usage error naming the flag and the help`, () => {
    assert.throws(
      () => parseCommand(def, ['--no-such-flag']),
      (e) => e instanceof UsageError && e.message === `--no-such-flag: unknown option; see ${def.invocation} --help`,
    );
  });
}

// Every command's script reads its flags through its table (the --help runs above show it), and a
// usage error leaves by one path (cli/fatal.ts): one command run as a person runs it shows that path.
test(`${COMMANDS[0]!.def.invocation} with an unknown flag: exit 2, one line`, () => {
  const { script, def } = COMMANDS[0]!;
  const r = run(script, '--no-such-flag');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `${def.prefix}: --no-such-flag: unknown option; see ${def.invocation} --help\n`);
});

test('npm start -- --version prints the package version', () => {
  const r = spawnSync(process.execPath, [...commandArgs('cli/start.ts'), '--version'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: HANG_MS,
  });
  assert.equal(r.status, 0, r.stderr);
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
  assert.equal(TOOL.version, pkg.version, 'results.json and --version report the package version');
  assert.equal(r.stdout, `chainprobe ${pkg.version}\n`);
});

test('package.json runs exactly the commands the list knows (a new script gets --help too)', () => {
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: Record<string, string> };
  // tsc and prettier answer --help themselves.
  const user = Object.entries(pkg.scripts).filter(([name]) => name !== 'typecheck' && name !== 'format');
  for (const [name, cmd] of user) {
    // A script may only run another (prepack: npm run build), which is checked itself.
    const other = /^npm run (\S+)$/.exec(cmd)?.[1];
    if (other) {
      assert.ok(pkg.scripts[other], `npm run ${name} runs npm run ${other}, which exists`);
      continue;
    }
    const script = /tsx ((?:cli|tools)\/\S+\.ts)/.exec(cmd)?.[1];
    assert.ok(script && COMMANDS.some((c) => c.script === script), `npm run ${name} (${cmd}) is in tools/commands.ts`);
  }
});

test('output piped into a reader that stops early (| head) ends the command quietly, with no stack trace', async () => {
  const child = spawn(process.execPath, [...commandArgs('cli/reference.ts'), '--list-faults'], {
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

test("each flag's help says each thing once: what the table adds ([repeatable], [default ...]) is not in its text", () => {
  const twice: string[] = [];
  for (const { def } of COMMANDS)
    for (const [name, flag] of Object.entries(def.flags)) {
      if (flag.multiple && /\brepeat/i.test(flag.help)) twice.push(`${def.prefix} --${name}: repeatable`);
      if (flag.default !== undefined && /\bdefault\b/i.test(flag.help)) twice.push(`${def.prefix} --${name}: default`);
    }
  assert.deepEqual(twice, []);
});

test('help wraps to the width it is given; a wrapped example still pastes as the same command', () => {
  for (const { def } of COMMANDS) {
    for (const width of [60, 120]) {
      const lines = helpText(def, width).split('\n');
      assert.deepEqual(
        lines.filter((l) => l.length > width && !/^ {2}(-\w, | {4})--/.test(l)),
        [],
        `${def.prefix} at ${width} columns`,
      );
      const at = lines.indexOf('Examples:');
      if (at < 0) continue;
      const block = lines.slice(at + 1, lines.indexOf('', at)).join('\n');
      const examples = block.split(/(?<! \\)\n/).map((e) => e.replace(/ \\\n\s+/g, ' ').trim());
      assert.deepEqual(examples, def.examples, `${def.prefix}: examples at ${width} columns`);
    }
  }
});
