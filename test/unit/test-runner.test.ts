// npm test's own runner (tools/run-tests.ts): which files run at normal priority, and how the short
// ones share processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BATCH, batched, LONGEST_FIRST, REAL_TIME, testFiles } from '../../tools/run-tests.js';
import { ROOT } from '../support/checkout.js';

const FILES = testFiles(join(ROOT, 'test'))
  .map((f) => relative(ROOT, f))
  .sort();

/** What a file judges against the stall it measured (test/support/stalls.ts, the probe harness's). */
const STALL_JUDGES = /\b(judgeSteady|judgeProbeErrors|timelineStallMs|runStallMs|machineStallMs|watchStalls)\(/;

test('the real-time group is exactly the files that judge timing against a measured stall', () => {
  const judging = FILES.filter((f) => STALL_JUDGES.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual([...REAL_TIME].sort(), judging);
});

test('every listed file exists', () => {
  for (const f of [...REAL_TIME, ...LONGEST_FIRST]) assert.ok(FILES.includes(f), f);
});

test('batches: every file runs once; long, real-time and top-level-await files alone; batches load as ESM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-batch-test-'));
  try {
    const tla = join(dir, 'tla.test.ts');
    writeFileSync(tla, "import { test } from 'node:test';\nawait Promise.resolve();\ntest('x', () => {});\n");
    const files = [...FILES.map((f) => join(ROOT, f)), tla].map((f) => relative(process.cwd(), f));
    const out = batched(files, dir);
    const batches = out.filter((f) => f.startsWith(dir) && f !== relative(process.cwd(), tla));
    const alone = out.filter((f) => !batches.includes(f));
    const members = batches.flatMap((b) => {
      assert.match(b, /\.test\.mts$/, 'ESM whatever the folder');
      const lines = readFileSync(b, 'utf8').trim().split('\n');
      assert.ok(lines.length >= 1 && lines.length <= BATCH, b);
      return lines.map((l) => relative(process.cwd(), fileURLToPath(JSON.parse(l.replace(/^import (.*);$/, '$1')))));
    });
    assert.deepEqual([...alone, ...members].sort(), [...files].sort(), 'each file exactly once');
    for (const f of [...REAL_TIME, ...LONGEST_FIRST].map((f) => relative(process.cwd(), join(ROOT, f))))
      assert.ok(alone.includes(f), `${f} alone`);
    assert.ok(alone.includes(relative(process.cwd(), tla)), 'top-level await alone');
    assert.ok(batches.length > 0 && batches.length < members.length, 'short files share processes');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
