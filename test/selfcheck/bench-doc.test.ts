// Where the bench's whole command spent its time, from the results.json it wrote; and a bench run
// rewrites the blocks of docs/benchmarks.md of the sections it measured, keeping the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pacedRequests, phasesMarkdown, phasesOf, type CommandRun } from '../../tools/bench/command.js';
import type { ResultsFile } from '../../src/results.js';
import { updateBenchDoc } from '../../tools/bench/doc.js';
import { figure } from '../../tools/bench/figures.js';
import { machine } from '../../tools/bench/report.js';
import { parseTestOutput } from '../../tools/bench/tests.js';
import { REAL_TIME_HEADER } from '../../tools/run-tests.js';
import { TIMING_SKIP_WORDS } from '../support/stalls.js';

const iso = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const at = (ms: number) => Date.UTC(2026, 0, 1) + ms;

test("command phases: start, preflight, contract stage and end cut at results.json's edges, and their table", () => {
  const results = {
    startedAt: iso(400),
    stages: [
      { stage: 'probes', startedAt: iso(410), finishedAt: iso(900) },
      { stage: 'contracts', startedAt: iso(450), finishedAt: iso(1150) },
    ],
  };
  const phases = phasesOf(results, at(0), at(1300));
  assert.deepEqual(phases, { startMs: 400, preflightMs: 50, contractsMs: 700, endMs: 150 });
  // No contract stage (nothing selected of it): the run's start to the exit is its end.
  assert.deepEqual(phasesOf({ startedAt: iso(400) }, at(0), at(600)), {
    startMs: 400,
    preflightMs: 0,
    contractsMs: 0,
    endMs: 200,
  });
  const run = (form: CommandRun['form'], wallMs: number, startMs: number): CommandRun => ({
    form,
    wallMs,
    cpuMs: wallMs * 1.5,
    exitCode: 0,
    summary: { pass: 1, fail: 0, observed: 0, skipped: 0, error: 0 },
    phases: { ...phases, startMs },
    paced: 19,
  });
  const table = phasesMarkdown({
    installed: [run('installed', 1300, 400), run('installed', 1100, 300), run('installed', 1200, 350)],
    clone: [run('clone', 2500, 1600)],
  });
  const lines = table.split('\n');
  assert.equal(lines[0], '| phase | `chainprobe` (installed) | `npm start --` (clone) |');
  assert.equal(lines[1], '|---|---|---|');
  assert.match(lines[2]!, /^\| spawned to the run's start .* \| 0\.35 s \| 1\.60 s \|$/);
  assert.match(lines[4]!, /^\| contract stage .* \| 0\.70 s \| 0\.70 s \|$/);
  // The stage's floor: 18 cap intervals of 53.5 ms (50 ms widened by 5 % and 1 ms) between 19 requests.
  assert.match(lines[6]!, /^\| of the contract stage, at least: .*\(19, 19 requests\) \| 0\.96 s \| 0\.96 s \|$/);
  assert.equal(lines.at(-2), '| the whole command | 1.20 s | 2.50 s |');
  assert.equal(lines.at(-1), '| its CPU (user + system) | 1.80 s | 3.75 s |');
  assert.equal(phasesMarkdown({}), '');
});

test("the rate-limited node's paced requests: each exchange once however many checks cite it, no other node's", () => {
  const x = (seq: number, purpose: string) => ({ seq, purpose, method: 'GET', url: `http://127.0.0.1:1/${seq}` });
  const check = (...exchanges: ReturnType<typeof x>[]) => ({
    id: 'c',
    rule: 'NAUTH-07',
    verdict: 'pass',
    message: '',
    evidence: { exchanges },
  });
  const results = {
    checks: [
      check(x(1, 'node.feeStats[bearer]'), x(2, 'node.blockRest[bearer]')),
      check(x(1, 'node.feeStats[bearer]'), x(3, 'node.feeStats[head]')),
      check(x(4, 'dynamics: first request')),
    ],
  } as unknown as ResultsFile;
  assert.equal(pacedRequests(results), 2);
});

test('docs/benchmarks.md: a run rewrites the blocks it measured and keeps the others', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'benchmarks.md');
  const section = (key: string, value: number) => ({
    key,
    title: key,
    figures: [
      figure({
        id: `${key}.x`,
        group: key,
        label: 'x',
        unit: 's',
        values: [value],
        target: { op: '<=' as const, value: 2 },
      }),
    ],
    startedAt: new Date('2026-01-01T00:00:00Z'),
    loadAtStart: [0.1, 0.2, 0.3],
  });
  const run = (sections: ReturnType<typeof section>[]) =>
    updateBenchDoc(path, { machine: machine(), command: 'npm run bench', quick: false, sections });
  run([section('a', 1), section('b', 3)]);
  run([section('b', 1.5)]);
  const text = readFileSync(path, 'utf8');
  assert.match(text, /^# Benchmarks/);
  assert.equal(text.match(/<!-- bench:a -->/g)?.length, 1);
  assert.equal(text.match(/<!-- bench:b -->/g)?.length, 1);
  assert.match(text, /\| a: x \| 1 s \|/, 'the block not measured again stays');
  assert.match(text, /\| b: x \| 1\.50 s \|.*\| met \|/, 'the block measured again is rewritten');
  assert.doesNotMatch(text, /\| 3 s/);
  assert.ok(text.indexOf('bench:a') < text.indexOf('bench:b'), 'blocks keep their place');
  writeFileSync(path, '');
});

test("npm test's report: each group's duration, the counts of both, and the tests a stalled machine made skip", () => {
  const rest = [
    '✔ a short test (1.2ms)',
    '﹣ an opt-in test (0.5ms) # set CHAINPROBE_REPORT_HTML to a written index.html',
    'ℹ tests 1300',
    'ℹ pass 1298',
    'ℹ fail 0',
    'ℹ duration_ms 263473.4',
  ];
  const realTime = [
    '',
    `${REAL_TIME_HEADER} (10 files, at normal priority)`,
    '✔ nginx limit_req rate=20r/s without burst (13151.5ms)',
    `﹣ nginx limit_req without burst, header tokens (13339.8ms) # the machine held a request up by 217 ms (over 50 ms): ${TIMING_SKIP_WORDS}`,
    'ℹ tests 41',
    'ℹ fail 1',
    'ℹ duration_ms 208142.1',
  ];
  // The real-time group may end first: the rest's report goes on after its block.
  const parsed = parseTestOutput([...rest.slice(0, 2), ...realTime, ...rest.slice(2)].join('\n'));
  assert.equal(parsed.restMs, 263473.4);
  assert.equal(parsed.realTimeMs, 208142.1);
  assert.equal(parsed.tests, 1341);
  assert.equal(parsed.failed, 1);
  assert.deepEqual(parsed.timingSkips, ['nginx limit_req without burst, header tokens']);
  // Or last, after the rest's report.
  assert.deepEqual(parseTestOutput([...rest, ...realTime].join('\n')), parsed);
  // Only the files given: no real-time group.
  const alone = parseTestOutput(rest.join('\n'));
  assert.equal(alone.realTimeMs, undefined);
  assert.equal(alone.restMs, 263473.4);
  assert.deepEqual(alone.timingSkips, []);
});
