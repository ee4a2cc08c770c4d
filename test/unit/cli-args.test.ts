// The shared flag table: what it accepts, how a bad value is worded, and that --help is made from
// it; and the output folder check every command with --out makes before it starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineCommand, helpText, parseCommand } from '../../cli/args.js';
import { UsageError } from '../../cli/fatal.js';
import { prepareOutDir } from '../../cli/outdir.js';
import { nearest } from '../../src/suggest.js';
import { parseSelectors } from '../../src/select.js';

const DEMO = defineCommand({
  invocation: 'demo --',
  prefix: 'demo',
  summary: 'A command for the tests.',
  flags: {
    target: { type: 'string', value: '<file.json>', path: true, help: 'the file' },
    only: { type: 'string', value: '<selectors>', help: 'a subset' },
    out: { type: 'string', value: '<dir>', path: true, default: 'reports/x', help: 'the folder' },
    customer: { type: 'string', choices: ['dedicated', 'shared'], help: 'the plan' },
    runs: { type: 'string', integer: [2, 100], default: '10', help: 'how many' },
    fault: { type: 'string', multiple: true, list: true, value: '<name>', help: 'faults' },
    quick: { type: 'boolean', help: 'fewer repetitions' },
  },
});

const parse = (...argv: string[]) => {
  const r = parseCommand(DEMO, argv);
  assert.ok(!('show' in r));
  return r.values;
};

/** The one line a bad command line gives. */
function problem(...argv: string[]): string {
  try {
    parseCommand(DEMO, argv);
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    assert.ok(!e.message.includes('\n'), 'one line');
    return e.message;
  }
  assert.fail(`accepted: ${argv.join(' ')}`);
}

test('values come back typed: defaults, booleans, numbers, repeated and comma lists', () => {
  const v = parse('--runs', '5', '--fault', 'a,b', '--fault', 'c', '--quick', '--customer', 'shared');
  assert.equal(v.runs, 5);
  assert.deepEqual(v.fault, ['a', 'b', 'c']);
  assert.equal(v.quick, true);
  assert.equal(v.customer, 'shared');
  const d = parse();
  assert.equal(d.runs, 10);
  assert.equal(d.quick, false);
  assert.deepEqual(d.fault, []);
  assert.equal(d.out, resolve('reports/x'));
});

test('a relative path is taken from the folder npm was run from (INIT_CWD), an absolute one as given', () => {
  const saved = process.env.INIT_CWD;
  try {
    process.env.INIT_CWD = '/home/someone/project/sub';
    assert.equal(parse('--target', 'staging.json').target, '/home/someone/project/sub/staging.json');
    assert.equal(parse('--target', '/etc/t.json').target, '/etc/t.json');
  } finally {
    if (saved === undefined) delete process.env.INIT_CWD;
    else process.env.INIT_CWD = saved;
  }
});

const BAD: [argv: string[], line: string][] = [
  [['--targt', 'x'], '--targt: unknown option (did you mean --target?); see demo -- --help'],
  [['--bogus'], '--bogus: unknown option; see demo -- --help'],
  [['--out'], '--out: needs a value <dir>'],
  [['--out', '--quick'], '--out: needs a value <dir> (for one starting with "-", write --out=-...)'],
  [['--quick=yes'], '--quick: takes no value'],
  [['--only', ''], '--only: is empty; expected <selectors>'],
  [['--only', '  '], '--only: is empty; expected <selectors>'],
  [['--fault', ','], '--fault: is empty'],
  [['--customer', 'shard'], '--customer: must be dedicated or shared, not "shard" (did you mean shared?)'],
  [['--runs', 'ten'], '--runs: expected a whole number from 2 to 100, not "ten"'],
  [['--runs', '1'], '--runs: expected a whole number from 2 to 100, not "1"'],
  [['--runs', '2.5'], '--runs: expected a whole number from 2 to 100, not "2.5"'],
  [['staging.json'], 'unexpected argument "staging.json": demo -- takes only flags; see demo -- --help'],
];

for (const [argv, line] of BAD) {
  test(`bad command line ${JSON.stringify(argv.join(' '))}: one line naming the flag`, () => {
    assert.equal(problem(...argv), line);
  });
}

test('--help and -h answer with the help text, --version with the version, before any check of the other flags', () => {
  for (const flag of ['--help', '-h']) {
    const r = parseCommand(DEMO, [flag, '--runs', 'not-a-number']);
    assert.ok('show' in r && r.show === 'help');
    assert.equal(r.text, helpText(DEMO));
  }
  const v = parseCommand(DEMO, ['--version']);
  assert.ok('show' in v && /^chainprobe \d+\.\d+\.\d+\n$/.test(v.text));
});

test('the help lists every flag of the table with its placeholder, choices, range and default', () => {
  const help = helpText(DEMO);
  for (const name of Object.keys(DEMO.flags)) assert.match(help, new RegExp(`--${name}\\b`));
  assert.match(help, /--target <file\.json>\s+the file/);
  assert.match(help, /--customer dedicated\|shared\s+the plan/);
  assert.match(help, /--runs <n>\s+how many \[2 to 100; default 10\]/);
  assert.match(help, /-h, --help/);
  assert.match(help, /--version/);
});

test('suggestions: only plausible typos, never a far-fetched name', () => {
  assert.equal(nearest('nodez', ['name', 'api', 'nodes', 'limits']), 'nodes');
  assert.equal(nearest('lmits', ['name', 'api', 'nodes', 'limits']), 'limits');
  assert.equal(nearest('grpcAdress', ['grpcAddress', 'grpcTls']), 'grpcAddress');
  assert.equal(nearest('settings', ['name', 'api', 'nodes', 'limits']), undefined);
  assert.equal(nearest('x', ['api']), undefined);
});

test('the output folder: missing levels are made, a file in the way or an unmakeable folder is one line naming the flag', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-out-'));
  try {
    const nested = join(dir, 'a', 'b', 'c');
    prepareOutDir(nested);
    assert.ok(statSync(nested).isDirectory());
    assert.deepEqual(readdirSync(nested), [], 'the write test leaves nothing behind');
    prepareOutDir(nested); // an existing folder is fine
    writeFileSync(join(dir, 'f'), '');
    assert.throws(() => prepareOutDir(join(dir, 'f', 'x')), {
      message: `--out ${join(dir, 'f', 'x')}: ${join(dir, 'f')} is a file, not a folder`,
    });
    assert.throws(() => prepareOutDir(join(dir, 'f'), '--out-dir'), {
      message: `--out-dir ${join(dir, 'f')}: is a file, not a folder`,
    });
    assert.throws(() => prepareOutDir('/proc/chainprobe-nope/x'), {
      message: '--out /proc/chainprobe-nope/x: a folder cannot be made there',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--only: a misspelt selector gets the nearest one, nothing after the commas is an error', () => {
  const problemOf = (spec: string) => {
    try {
      parseSelectors(spec);
    } catch (e) {
      return (e as Error).message;
    }
    return 'accepted';
  };
  assert.equal(problemOf('nftt'), '--only: unknown selector "nftt" (did you mean nft?)');
  assert.equal(problemOf('auth,NFT-9'), '--only: unknown selector "NFT-9" (did you mean NFT-09?)');
  assert.match(
    problemOf('xyz'),
    /^--only: unknown selector "xyz" \(use contracts, auth, .* a rule id such as NFT-09\)$/,
  );
  assert.match(problemOf(' , '), /^--only: no selector given/);
  assert.equal(parseSelectors('').all, true, 'no --only at all runs everything');
});
