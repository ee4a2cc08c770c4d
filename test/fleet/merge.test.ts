// `npm run merge`: runs made elsewhere merge into one report whose summary is the sum of theirs,
// whose rules roll up over everything, and in which the same run given twice counts once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultsFile } from '../../src/results.js';
import { mergeResults } from '../../src/fleet/merge.js';
import { fleetOf } from '../../src/fleet/rollup.js';
import { emptySummary, VERDICTS } from '../../src/verdict.js';
import { production, staging, check, limiter } from './fixture.js';
import { k6Results } from '../../load/k6/run.js';
import { ROOT } from '../safety/support/cli.js';
import { commandArgs } from '../support/command.js';
import { syntheticResults } from '../reports/fixture.js';
import { renderHtml } from '../../reports/html.js';
import { renderJunit } from '../../reports/junit.js';
import { writeResultsJson } from '../../reports/write.js';
import type { CheckResult } from '../../src/verdict.js';
import { CheckSpool } from '../../src/fleet/check-spool.js';
import { countLines } from '../../src/run-summary.js';
import { readInputs } from '../../cli/merge.js';
import { UsageError } from '../../cli/fatal.js';
import { summaryMarkdown } from '../../reports/summary-md.js';

test('two runs merge: the summary is the sum, rules roll up over both, both deployments named', () => {
  const a = staging();
  const b = production();
  const { results, runs, duplicates } = mergeResults([
    { source: 'a/results.json', results: a },
    { source: 'b/results.json', results: b },
  ]);
  const sum = emptySummary();
  for (const v of VERDICTS) sum[v] = a.summary[v] + b.summary[v];
  assert.deepEqual(results.summary, sum);
  assert.equal(results.rules['AUTH-01'], 'fail', 'fail in one run fails the rule');
  assert.equal(results.rules['RL-02'], 'error');
  assert.equal(results.rules['NFT-01'], 'observed');
  assert.equal(results.target, 'staging, production');
  assert.equal(results.startedAt, '2026-01-01T00:00:00.000Z');
  assert.equal(results.finishedAt, '2026-01-01T00:02:00.000Z');
  assert.equal(runs.length, 2);
  assert.deepEqual(duplicates, []);
  const fleet = fleetOf(results)!;
  assert.deepEqual(
    fleet.targets.map((t) => [t.name, t.summary.pass + t.summary.fail + t.summary.error + t.summary.observed]),
    [
      ['staging', 4],
      ['production', 3],
    ],
  );
  // The single run's probes ran on its one horizon node: its RL checks and estimates are that node's.
  assert.deepEqual(
    fleet.nodes.map((n) => [n.target, n.name, n.limiter?.limit ?? null]),
    [
      ['staging', 'horizon', 101],
      ['production', 'eu', 101],
      ['production', 'us', null],
    ],
  );
  assert.equal(fleet.nodes[0]!.summary.pass, 2);
  assert.equal(results.limiter, null, 'three horizon nodes: estimates per node only');
});

test('the same run given twice is counted once, and the merge says so', () => {
  const a = staging();
  const { results, duplicates } = mergeResults([
    { source: 'x/results.json', results: a },
    { source: 'y/results.json', results: structuredClone(a) },
  ]);
  assert.deepEqual(results.summary, a.summary);
  assert.deepEqual(duplicates, [{ source: 'y/results.json', sameRunAs: 'x/results.json' }]);
  assert.match(
    String((results.merged as { note: string }).note),
    /1 input\(s\) repeat a run already merged and were counted once/,
  );
  assert.deepEqual(results.limiter, a.limiter, 'one horizon node: limiter as in the run');
});

test('npm run merge: files and folders, duplicates named on stdout, one report written', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-merge-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'artifacts/job-a'), { recursive: true });
  mkdirSync(join(dir, 'artifacts/job-b'), { recursive: true });
  writeFileSync(join(dir, 'artifacts/job-a/results.json'), JSON.stringify(staging()));
  writeFileSync(join(dir, 'artifacts/job-b/results.json'), JSON.stringify(production()));
  writeFileSync(join(dir, 'artifacts/job-b/timeline.json'), '[]');
  writeFileSync(join(dir, 'artifacts/job-b/other.json'), '{"not":"ours"}');
  cpSync(join(dir, 'artifacts/job-a/results.json'), join(dir, 'again.json'));
  const out = join(dir, 'merged');
  const run = spawnSync(
    process.execPath,
    [...commandArgs('cli/merge.ts'), join(dir, 'artifacts'), join(dir, 'again.json'), '--out', out],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(run.status, 1, `a failing check in a merged run fails the merge: ${run.stderr}`);
  assert.match(run.stdout, /2 run\(s\) of staging, production/);
  assert.match(run.stdout, /counted once: .*again\.json is the same run as .*job-a\/results\.json/);
  const merged = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
  assert.equal(merged.checks.length, 7);
  for (const f of ['index.html', 'junit.xml']) assert.ok(readFileSync(join(out, f), 'utf8').length > 0);
  const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
  assert.match(junit, /name="RL-02 rl-02\.x \[production\/eu\]"/, "a node's test case names its deployment and node");
  assert.match(junit, /name="RL-02 rl-02\.x \[production\/us\]"/);
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /staging, production/);

  const bad = spawnSync(process.execPath, [...commandArgs('cli/merge.ts'), join(dir, 'artifacts/job-b/other.json')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(bad.status, 2);
  assert.deepEqual(bad.stderr.trim().split('\n'), [
    `chainprobe merge: ${join(dir, 'artifacts/job-b/other.json')}: not a chainprobe results.json (no tool, target, summary and checks)`,
  ]);
});

test('a results file of another format version, named or in a folder: merge refuses it, naming the file and both versions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-merge-format-'));
  try {
    mkdirSync(join(dir, 'artifacts/job-a'), { recursive: true });
    const future = join(dir, 'artifacts/job-a/results.json');
    writeFileSync(future, JSON.stringify({ ...staging(), format: 2 }));
    const line = (path: string) =>
      new RegExp(
        `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: results format 2, written by chainprobe \\S+; this chainprobe reads format 1$`,
      );
    for (const given of [future, join(dir, 'artifacts')])
      assert.throws(
        () => [...readInputs([given])],
        (e: unknown) => e instanceof UsageError && line(future).test(e.message),
        given,
      );
    // Format 1 is what a file without `format` is: read as before.
    writeFileSync(future, JSON.stringify(staging()));
    assert.equal([...readInputs([join(dir, 'artifacts')])].length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('k6 runners, one per horizon node (CHAINPROBE_NODE_NAME): the merge names each node with its estimates', () => {
  const runner = (node: string, minute: number, T: number) =>
    k6Results({
      name: 'production',
      node,
      selection: 'all',
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
      finishedAt: new Date(Date.UTC(2026, 0, 1, 0, minute, 12)).toISOString(),
      outcome: { checks: [check('RL-02', 'pass'), check('RL-10', 'pass')], limiter: limiter(101, T), timeline: [] },
    });
  const { results } = mergeResults([
    { source: 'eu.json', results: runner('horizon-eu-1', 0, 1000) },
    { source: 'us.json', results: runner('horizon-us-1', 0, 1002) },
  ]);
  const fleet = fleetOf(results)!;
  assert.deepEqual(
    fleet.targets.map((t) => t.name),
    ['production'],
  );
  assert.deepEqual(
    fleet.nodes.map((n) => [n.name, n.limiter?.emissionIntervalMs, n.summary.pass]),
    [
      ['horizon-eu-1', 1000, 2],
      ['horizon-us-1', 1002, 2],
    ],
  );
  assert.ok(results.checks.every((c) => c.target === 'production' && c.nodeKind === 'horizon'));
});

test('a merge keeps its checks on disk: its reports are those of the merge in memory, results.json the same bytes', async (t) => {
  const full = syntheticResults({ scale: 30 });
  assert.ok(full.checks.some((c) => c.evidence?.exchanges?.length && !['fail', 'error'].includes(c.verdict)));
  // Two deployments and a fleet section: the tallies the merge folds (summary, rules, fleet) are compared too.
  const inputs = () => [
    { source: 'a', results: full },
    { source: 'eu', results: staging() },
    { source: 'us', results: production() },
  ];
  const spool = new CheckSpool();
  t.after(() => spool.remove());
  const spooled = mergeResults(inputs(), new Date(0), spool);
  const whole = mergeResults(inputs(), new Date(0));
  assert.deepEqual(spooled.results.checks, [], 'the merge holds no check');
  assert.deepEqual({ ...spooled.results, checks: whole.results.checks }, whole.results);
  const seen: CheckResult[] = [];
  for await (const c of spool.full()) seen.push(c);
  const asJson = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;
  assert.deepEqual(seen, asJson(whole.results.checks), 'the spool has every check in full, in order');
  assert.equal(spool.count, whole.checks.count);
  assert.deepEqual(spool.rules(), whole.checks.rules());
  for (const rule of spool.rules()) {
    assert.deepEqual([...spool.verdicts(rule)].sort(), [...whole.checks.verdicts(rule)].sort());
    assert.ok(spool.of(rule).every((c) => c.rule === rule));
  }
  assert.ok(JSON.stringify([...spool.all()]).length < JSON.stringify(whole.results.checks).length, 'slim copies');
  const files = { results: 'results.json', junit: 'junit.xml', timeline: 'timeline.json' };
  assert.equal(
    renderHtml({ results: spooled.results, checks: spool, timeline: [], files }),
    renderHtml({ results: whole.results, timeline: [], files }),
  );
  assert.equal(renderJunit(spooled.results, spool), renderJunit(whole.results));
  assert.deepEqual(countLines(spooled.results, spool), countLines(whole.results));
  assert.equal(
    summaryMarkdown(spooled.results, { outDir: 'x', checks: spool }),
    summaryMarkdown(whole.results, { outDir: 'x' }),
  );
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-merge-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await writeResultsJson(join(dir, 'streamed.json'), spooled.results, spool.full());
  assert.equal(readFileSync(join(dir, 'streamed.json'), 'utf8'), `${JSON.stringify(whole.results, null, 2)}\n`);
  async function* none(): AsyncGenerator<CheckResult> {}
  const empty = { ...whole.results, checks: [] };
  await writeResultsJson(join(dir, 'empty.json'), empty, none());
  assert.equal(readFileSync(join(dir, 'empty.json'), 'utf8'), `${JSON.stringify(empty, null, 2)}\n`);
});
