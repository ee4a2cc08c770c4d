// Every hint that names a command names it the way the user runs it: `chainprobe <command>` from the
// installed package (or when the bin started the process), the npm scripts in a clone. One helper
// (src/package.ts userCommand) makes them all; the help text's rewriting follows the same rule.
// The last test switches this process to the bin's words, so it stays last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandForm, commandIn, formOf, INSTALLED, useBinNames, userCommand } from '../../src/package.js';
import { binWords, defineCommand, invocationOf } from '../../cli/args.js';
import { planRuns, PlanError } from '../../cli/selfcheck/plan.js';

test('the form: an installed package speaks of its bin; a clone of its npm scripts, unless the bin started it', () => {
  assert.equal(formOf(true, false), 'bin');
  assert.equal(formOf(true, true), 'bin');
  assert.equal(formOf(false, true), 'bin');
  assert.equal(formOf(false, false), 'npm');
});

test('a command in each form: the run and a subcommand, with and without arguments', () => {
  assert.equal(commandIn('bin', 'reference', '--list-faults'), 'chainprobe reference --list-faults');
  assert.equal(commandIn('npm', 'reference', '--list-faults'), 'npm run reference -- --list-faults');
  assert.equal(commandIn('bin', 'start', '--help'), 'chainprobe --help');
  assert.equal(commandIn('npm', 'start', '--help'), 'npm start -- --help');
  assert.equal(commandIn('bin', 'merge'), 'chainprobe merge');
  assert.equal(commandIn('npm', 'merge'), 'npm run merge');
  assert.equal(commandIn('npm', 'start'), 'npm start');
  assert.equal(commandIn('bin', 'k6-bundle', '--out', 'k6'), 'chainprobe k6-bundle --out k6');
});

const DEMO = defineCommand({ invocation: 'npm run merge --', prefix: 'chainprobe merge', summary: '', flags: {} });

/** The hint selfcheck gives for a fault name the catalogue does not have. */
function unknownFaultHint(): string {
  try {
    planRuns([], { outRoot: '/tmp/x', onlyFaults: ['no-such-fault'] });
  } catch (e) {
    assert.ok(e instanceof PlanError);
    return e.message;
  }
  assert.fail('an unknown fault was planned');
}

test('in this clone: npm words everywhere, until the bin starts the process; then the bin words everywhere', () => {
  assert.equal(INSTALLED, false, 'the tests run in a clone');
  assert.equal(commandForm(), 'npm');
  assert.equal(userCommand('reference', '--list-faults'), 'npm run reference -- --list-faults');
  assert.match(unknownFaultHint(), /\(npm run reference -- --list-faults\)$/);
  assert.equal(invocationOf(DEMO), 'npm run merge --');
  assert.equal(binWords('see npm run reference -- --list-faults'), 'see npm run reference -- --list-faults');

  useBinNames();
  assert.equal(commandForm(), 'bin');
  assert.equal(userCommand('reference', '--list-faults'), 'chainprobe reference --list-faults');
  assert.equal(userCommand('start', '--help'), 'chainprobe --help');
  assert.match(unknownFaultHint(), /\(chainprobe reference --list-faults\)$/);
  assert.equal(invocationOf(DEMO), 'chainprobe merge');
  assert.equal(binWords('see npm run reference -- --list-faults'), 'see chainprobe reference --list-faults');
});
