// --history: each run is kept in the folder; the report shows, per rule and per node, the verdicts
// of the last runs and the drift of the limiter estimates as small inline SVG charts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildResults, type ResultsFile } from '../../src/results.js';
import { addToHistory, HISTORY_RUNS, readHistory, withCurrent } from '../../src/fleet/history.js';
import { trendsSection } from '../../reports/trends.js';
import { startReference } from '../../reference/start.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { parseSelectors } from '../../src/select.js';
import { runChainprobe } from '../../run/pipeline.js';
import { check, limiter } from './fixture.js';
import type { Verdict } from '../../src/verdict.js';
import { HANG_MS } from '../support/backstops.js';

const run = (minute: number, rl10: Verdict, T: number): ResultsFile =>
  buildResults({
    target: 'staging',
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
    finishedAt: new Date(Date.UTC(2026, 0, 1, 0, minute, 30)),
    checks: [check('RL-10', rl10), check('AUTH-01', 'pass')],
    limiter: limiter(101, T),
  });

test('per rule and per node: the verdicts of the last runs, oldest first, and T and Limit drift', () => {
  const html = trendsSection([run(0, 'pass', 1000), run(1, 'fail', 1010), run(2, 'pass', 1020)]);
  const rl10 = /<tr data-trend-rule="RL-10">(.*?)<\/tr>/.exec(html)?.[1] ?? '';
  assert.deepEqual(
    [...rl10.matchAll(/data-verdict="(\w+)"/g)].map((m) => m[1]),
    ['pass', 'fail', 'pass'],
  );
  assert.ok(!/data-trend-rule="NFT-01"/.test(html), 'rules never checked get no row');
  const node = /<tr data-trend-node="staging\/horizon\/horizon">(.*?)<\/tr>/.exec(html)?.[1] ?? '';
  assert.deepEqual(
    [...node.matchAll(/<rect [^>]*data-verdict="(\w+)"/g)].map((m) => m[1]),
    ['pass', 'fail', 'pass'],
  );
  assert.match(node, /data-series="T"/);
  assert.match(node, /T: 1000 → 1020 ms \(\+2\.0%\)/);
  assert.match(node, /Limit: 101 → 101 requests \(\+0\.0%\)/);
  assert.equal((node.match(/<circle /g) ?? []).length, 6, 'one point per run and estimate');
  assert.doesNotMatch(html, /<script|https?:\/\//, 'self-contained');
});

test('the history folder keeps one file per run, ignores what is not ours, and gives the last runs', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-history-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (let i = 0; i < HISTORY_RUNS + 3; i++) addToHistory(dir, run(i, 'pass', 1000));
  writeFileSync(join(dir, 'notes.json'), '{"not":"a run"}');
  writeFileSync(join(dir, 'broken.json'), '{');
  const runs = readHistory(dir);
  assert.equal(runs.length, HISTORY_RUNS);
  assert.equal(runs.at(-1)!.startedAt, run(HISTORY_RUNS + 2, 'pass', 1000).startedAt, 'the newest last');
  const current = run(HISTORY_RUNS + 2, 'fail', 1000);
  assert.equal(withCurrent(runs, current).at(-1), current, 'a re-written run is not counted twice');
  assert.equal(withCurrent(runs, current).length, HISTORY_RUNS);
});

test("npm start --history: the second run's report shows both runs", { timeout: HANG_MS }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-history-run-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const history = join(dir, 'history');
  const ref = await startReference();
  try {
    for (const out of ['one', 'two']) {
      await runChainprobe({
        target: resolveTarget(ref.target, {}, 'reference'),
        selection: parseSelectors('NODE-07'),
        outDir: join(dir, out),
        history,
      });
    }
  } finally {
    await ref.close();
  }
  assert.equal(readdirSync(history).length, 2);
  const page = readFileSync(join(dir, 'two', 'index.html'), 'utf8');
  assert.match(page, /<section id="trends" data-runs="2">/);
  const row = /<tr data-trend-rule="NODE-07">(.*?)<\/tr>/.exec(page)?.[1] ?? '';
  assert.deepEqual(
    [...row.matchAll(/data-verdict="(\w+)"/g)].map((m) => m[1]),
    ['pass', 'pass'],
  );
  assert.doesNotMatch(readFileSync(join(dir, 'one', 'index.html'), 'utf8'), /data-runs="2"/);
});
