// A full run (contracts and probes) has the contract checks and the probes side by side: the probes
// alone on the horizon node, the contract checks of the other hosts meanwhile, those of the horizon
// node after the probes. results.json says so, and no verdict differs from the stages run alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/start.js';
import { runChainprobe, SIDE_BY_SIDE } from '../../run/pipeline.js';
import { parseSelectors } from '../../src/select.js';
import { resolveTarget } from '../../src/target-file/load.js';

test("a full run: contracts and probes overlap, the horizon node is the probes' alone until they end, nothing fails", async () => {
  const ref = await startReference();
  const out = mkdtempSync(join(tmpdir(), 'chainprobe-side-'));
  try {
    const target = resolveTarget(ref.target, {}, 'reference');
    const { results } = await runChainprobe({ target, selection: parseSelectors(undefined), outDir: out });
    assert.equal(results.order, SIDE_BY_SIDE);
    const stages = results.stages as { stage: string; startedAt: string; finishedAt: string }[];
    const at = (stage: string, edge: 'startedAt' | 'finishedAt') =>
      Date.parse(stages.find((s) => s.stage === stage)![edge]);
    assert.ok(
      at('contracts', 'startedAt') < at('probes', 'finishedAt'),
      'the contracts started before the probes ended',
    );
    assert.ok(
      at('probes', 'startedAt') < at('contracts', 'finishedAt'),
      'the probes started before the contracts ended',
    );
    const horizonHost = new URL(target.nodes.horizon!.endpoint).host;
    const horizonContractSends = results.checks
      .filter((c) => !c.rule.startsWith('RL-'))
      .flatMap((c) => c.evidence?.exchanges ?? [])
      .filter((x) => new URL(x.url).host === horizonHost)
      .map((x) => x.sentAt);
    assert.ok(horizonContractSends.length > 0, 'the horizon node had contract checks');
    assert.ok(
      Math.min(...horizonContractSends) >= at('probes', 'finishedAt'),
      'no contract request reached the horizon node before the probes ended',
    );
    const bad = Object.entries(results.rules).filter(([, v]) => v === 'fail' || v === 'error');
    assert.deepEqual(bad, [], 'a conformant reference: nothing fails or errors');
    // Checks are listed in stage order however the stages overlapped: every probe check after every contract check.
    const isProbe = results.checks.map((c) => c.rule.startsWith('RL-'));
    assert.ok(isProbe.indexOf(true) > isProbe.lastIndexOf(false), 'contract checks first, then probe checks');
  } finally {
    await ref.close();
    rmSync(out, { recursive: true, force: true });
  }
});
