// The bench's trace breakdown and docs/benchmarks.md: where a contract run's time went, from its
// trace; and a bench run rewrites the blocks of the sections it measured, keeping the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { traceBreakdown } from '../../tools/bench/trace.js';
import { updateBenchDoc } from '../../tools/bench/doc.js';
import { figure } from '../../tools/bench/figures.js';
import { machine } from '../../tools/bench/report.js';
import type { TestTrace } from '../../src/stages.js';

const t = (family: string, slot: number, worker: number, start: number, ms: number, extra: Partial<TestTrace> = {}) =>
  ({
    family,
    title: `${family} ${start}`,
    workerIndex: worker,
    parallelIndex: slot,
    status: 'passed',
    startTime: 1000 + start,
    durationMs: ms,
    bodyMs: ms,
    ...extra,
  }) satisfies TestTrace;

test('trace breakdown: runner start and end, time between tests per slot, workers started, families', () => {
  const b = traceBreakdown({
    spawnedAt: 0,
    closedAt: 1000 + 900,
    runnerCpuMs: 400,
    tests: [
      t('auth', 0, 0, 0, 300, { networkMs: 250, cpuMs: 40, requests: 20, workerCpuAtStartMs: 500 }),
      t('auth', 0, 2, 500, 300, { networkMs: 100, cpuMs: 50, requests: 20, workerCpuAtStartMs: 450 }),
      t('node', 1, 1, 0, 800, { networkMs: 50, cpuMs: 30, requests: 5, workerCpuAtStartMs: 520 }),
    ],
  });
  assert.equal(b.startMs, 1000);
  assert.equal(b.endMs, 100);
  assert.deepEqual(b.slots, [
    { slot: 0, testMs: 600, betweenMs: 200, workers: 2 },
    { slot: 1, testMs: 800, betweenMs: 0, workers: 1 },
  ]);
  assert.equal(b.workers, 3);
  assert.equal(b.workerStartCpuMs, 1470);
  assert.deepEqual(
    b.families.map((f) => [f.family, f.tests, f.requests, f.networkMs, f.otherMs]),
    [
      ['node', 1, 5, 50, 750],
      ['auth', 2, 40, 350, 250],
    ],
  );
  assert.equal(b.slowest[0]!.family, 'node');
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
