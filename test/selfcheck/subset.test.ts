// The self-check's representative subset (one fault per rule section) plus the fault-free full run:
// each fault must be caught on its own rule, and the fault-free run must be clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSelfcheck } from '../../cli/selfcheck.js';
import { textReport } from '../../cli/selfcheck/render.js';

test(
  'the representative subset is caught on its own rules and the fault-free run is clean',
  { timeout: 180_000 },
  async (t) => {
    const outRoot = mkdtempSync(join(tmpdir(), 'chainprobe-selfcheck-'));
    t.after(() => rmSync(outRoot, { recursive: true, force: true }));
    const report = await runSelfcheck({
      outRoot,
      subset: true,
      concurrency: 2,
      timeoutMs: 120_000,
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
    assert.ok(report.faultFree, 'the fault-free run is part of the subset');
    assert.equal(
      report.faultFree.clean,
      true,
      `fault-free run: ${report.faultFree.problem ?? report.faultFree.bad.map((b) => `${b.rule} ${b.verdict}: ${b.message ?? ''}`).join('; ')}`,
    );
    assert.ok(report.summary.ok);
  },
);
