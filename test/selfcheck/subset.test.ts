// The self-check's representative subset (one fault per rule section) plus the fault-free full run:
// each fault must be caught on its own rule, and the fault-free run must be clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSelfcheck } from '../../cli/selfcheck.js';
import { textReport } from '../../cli/selfcheck/render.js';
import { HANG_MS } from '../support/backstops.js';
import { commandArgs } from '../support/command.js';
import { judgeProbeErrors, runStallMs } from '../support/stalls.js';

test(
  'the representative subset is caught on its own rules and the fault-free run is clean',
  { timeout: HANG_MS },
  async (t) => {
    const outRoot = mkdtempSync(join(tmpdir(), 'chainprobe-selfcheck-'));
    t.after(() => rmSync(outRoot, { recursive: true, force: true }));
    const report = await runSelfcheck({
      outRoot,
      subset: true,
      concurrency: 2,
      timeoutMs: HANG_MS,
      start: commandArgs('cli/start.ts'),
      log: (l) => t.diagnostic(l),
    });
    t.diagnostic(`\n${textReport(report)}`);
    const sections = new Set(report.faults.map((f) => f.rule.split('-')[0]));
    assert.ok(sections.size >= 8, `one fault per rule section expected, got sections ${[...sections].join(', ')}`);
    for (const row of report.faults) {
      assert.equal(
        row.outcome,
        'caught',
        `${row.fault} (${row.rule}): ${row.outcome}${row.problem ? ` - ${row.problem}` : ''}; rule verdict ${row.ruleVerdict ?? 'none'}`,
      );
    }
    const ff = report.faultFree;
    assert.ok(ff, 'the fault-free run is part of the subset');
    const bad = (verdict: string) =>
      ff.bad
        .filter((b) => b.verdict === verdict)
        .map((b) => `${b.rule} ${b.verdict}: ${b.message ?? ''}`)
        .join('; ');
    // No fail, ever; an error ("could not test") on a steady run only (judgeProbeErrors).
    assert.equal(ff.problem, undefined, `fault-free run: ${ff.problem}`);
    assert.equal(bad('fail'), '', 'fault-free run fails rules');
    judgeProbeErrors(t, runStallMs(dirname(join(outRoot, ff.report))), ff.bad, 'fault-free run has errors');
    assert.equal(report.summary.caught, report.summary.total);
  },
);
