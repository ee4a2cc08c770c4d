// action.yml's script steps, run as the Actions runner runs a composite action (GitHub itself is
// not reachable here): each `run:` with `bash --noprofile --norc -eo pipefail`, its `${{ }}`
// expressions substituted (inputs, step outputs, always()), GITHUB_PATH, GITHUB_OUTPUT and
// GITHUB_STEP_SUMMARY as files, the action's own folder a clean checkout of this tree. The `uses:`
// steps (setup-node, upload-artifact) are GitHub's own; the test checks what they are given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parse } from 'yaml';
import { cleanCheckout, ROOT, userEnv } from '../support/checkout.js';

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

interface Job {
  inputs: Record<string, string>;
  outputs: Map<string, Record<string, string>>;
  failed: boolean;
}

/** One `${{ }}` expression, as far as action.yml uses them; anything else fails the test. */
function evaluate(expr: string, job: Job): string {
  const e = expr.trim();
  if (e === 'always()') return 'true';
  let m = /^inputs\.([\w-]+)$/.exec(e);
  if (m) {
    assert.ok(m[1]! in action.inputs, `input ${m[1]} is declared`);
    return job.inputs[m[1]!] ?? action.inputs[m[1]!]!.default ?? '';
  }
  m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
  if (m) return job.outputs.get(m[1]!)?.[m[2]!] ?? '';
  assert.fail(`an expression the test runner does not know: ${e}`);
}

const substitute = (text: string, job: Job) => text.replace(/\$\{\{(.*?)\}\}/g, (_m, e: string) => evaluate(e, job));

/** KEY=value lines (the form GITHUB_OUTPUT and GITHUB_PATH take here). */
const keyValues = (file: string) =>
  Object.fromEntries(
    (existsSync(file) ? readFileSync(file, 'utf8') : '')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

interface RunResult {
  job: Job;
  ran: string[];
  skippedUses: Step[];
  summary: string;
  log: string;
  workspace: string;
  /** What the steps added to GITHUB_PATH (the install step: chainprobe's bin folder). */
  path: string[];
}

const INSTALL = 'Install chainprobe';

/** Runs the composite action's steps in `workspace`, as a job of one step using the action. */
function runAction(o: {
  actionPath: string;
  workspace: string;
  temp: string;
  inputs: Record<string, string>;
  /**
   * GITHUB_PATH as an earlier run's install step left it: that step is then not run again (it
   * packs and installs the same checkout each time; the first run checks it).
   */
  installed?: string[];
}): RunResult {
  const job: Job = { inputs: o.inputs, outputs: new Map(), failed: false };
  const summary = join(o.temp, 'step-summary.md');
  const pathFile = join(o.temp, 'github-path');
  writeFileSync(summary, '');
  writeFileSync(pathFile, (o.installed ?? []).map((p) => `${p}\n`).join(''));
  const ran: string[] = [];
  const skippedUses: Step[] = [];
  let log = '';
  action.runs.steps.forEach((step, i) => {
    const condition = step.if ? substitute(step.if, job) : job.failed ? 'false' : 'true';
    if (condition !== 'true' || (o.installed && step.name === INSTALL)) return;
    if (step.uses) {
      skippedUses.push({
        ...step,
        with: Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), job)])),
      });
      return;
    }
    assert.equal(step.shell, 'bash', `${step.name}: a composite step names its shell`);
    const output = join(o.temp, `output-${i}`);
    writeFileSync(output, '');
    const script = join(o.temp, `step-${i}.sh`);
    writeFileSync(script, substitute(step.run!, job));
    const added = readFileSync(pathFile, 'utf8').split('\n').filter(Boolean).reverse();
    const base = userEnv();
    const env = {
      ...base,
      PATH: [...added, base.PATH ?? ''].join(delimiter),
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: o.actionPath,
      GITHUB_WORKSPACE: o.workspace,
      RUNNER_TEMP: o.temp,
      GITHUB_PATH: pathFile,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), job)])),
    };
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd: o.workspace,
      env,
      encoding: 'utf8',
      timeout: 300_000,
    });
    log += `== ${step.name} (exit ${r.status})\n${r.stdout}${r.stderr}`;
    ran.push(step.name ?? `step ${i}`);
    if (step.id) job.outputs.set(step.id, keyValues(output));
    if (r.status !== 0) job.failed = true;
  });
  const path = readFileSync(pathFile, 'utf8').split('\n').filter(Boolean);
  return { job, ran, skippedUses, summary: readFileSync(summary, 'utf8'), log, workspace: o.workspace, path };
}

test('action.yml declares the inputs target, only, args, node-version and is a composite action', () => {
  for (const name of ['target', 'only', 'args', 'node-version']) assert.ok(action.inputs[name], `input ${name}`);
  assert.equal(action.runs.using, 'composite');
  const uses = action.runs.steps.filter((s) => s.uses).map((s) => s.uses!.split('@')[0]);
  assert.deepEqual(uses, ['actions/setup-node', 'actions/upload-artifact']);
  // Inputs reach the scripts as variables: an input spliced into a script would be run as code.
  for (const s of action.runs.steps)
    if (s.run) assert.doesNotMatch(s.run, /\$\{\{/, `${s.name}: no expression in the script`);
});

test(
  'the steps install chainprobe from the checkout, run it, and write the job summary',
  { timeout: 600_000 },
  async (t) => {
    const temp = mkdtempSync(join(tmpdir(), 'chainprobe-action-'));
    t.after(() => rmSync(temp, { recursive: true, force: true }));
    const actionPath = join(temp, 'action');
    if (!cleanCheckout(actionPath)) {
      t.skip('not a git checkout: the action test installs from the files git knows');
      return;
    }
    const workspace = (name: string) => {
      const dir = join(temp, name);
      mkdirSync(dir);
      return dir;
    };

    let installed: string[] | undefined;
    await t.test('a rule with a fault: exit 1, the summary names the rule, the reports are uploaded', () => {
      const runTemp = workspace('temp-fault');
      const r = runAction({
        actionPath,
        workspace: workspace('fault'),
        temp: runTemp,
        inputs: { only: 'NFT-02', args: '--fault event-wrong-id', 'node-version': '22' },
      });
      assert.deepEqual(r.ran, [INSTALL, 'Run chainprobe', 'Job summary of a run that could not start'], r.log);
      installed = r.path;
      assert.equal(r.job.outputs.get('run')?.['exit-code'], '1', r.log);
      assert.match(r.summary, /^## ❌ chainprobe: FAIL/m);
      assert.match(r.summary, /^- \*\*NFT-02\*\* \(fail\)/m);
      assert.ok(existsSync(join(r.workspace, 'chainprobe-report', 'index.html')));
      const upload = r.skippedUses.find((s) => s.uses!.startsWith('actions/upload-artifact'))!;
      assert.ok(existsSync(join(r.workspace, upload.with!.path!)), 'the artifact path exists');
      assert.equal(r.skippedUses.find((s) => s.uses!.startsWith('actions/setup-node'))!.with!['node-version'], '22');
    });

    await t.test('the same rule without a fault: exit 0, a PASS summary', () => {
      const ws = workspace('clean');
      const r = runAction({
        actionPath,
        workspace: ws,
        temp: workspace('temp-clean'),
        inputs: { only: 'NFT-02' },
        installed,
      });
      assert.equal(r.job.outputs.get('run')?.['exit-code'], '0', r.log);
      assert.match(r.summary, /^## ✅ chainprobe: PASS/m);
    });

    await t.test('a run that cannot start (a missing target file): exit 2, the summary says so', () => {
      const r = runAction({
        actionPath,
        workspace: workspace('broken'),
        temp: workspace('temp-broken'),
        inputs: { target: 'targets/missing.json' },
        installed,
      });
      assert.equal(r.job.outputs.get('run')?.['exit-code'], '2', r.log);
      assert.ok(r.job.failed);
      assert.match(r.summary, /^## chainprobe could not run \(exit 2\)$/m);
    });
  },
);
