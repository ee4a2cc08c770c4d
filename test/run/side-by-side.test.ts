// A full run (contracts and probes) has the contract checks and the probes side by side: the probes
// alone on the horizon node, the contract checks of the other hosts meanwhile, those of the horizon
// node once the probes stopped sending (while their analysis runs), judged on the probes' own
// answers where a probe sent the same request (the token in each form, the HEAD), so none of them
// waits for quota. results.json says so, and nothing
// fails on the conformant reference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/start.js';
import { runChainprobe, SIDE_BY_SIDE } from '../../run/pipeline.js';
import { parseSelectors } from '../../src/select.js';
import type { TimelineEntry } from '../../src/stages.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { judgeProbeErrors, judgeSteady, runStallMs } from '../support/stalls.js';

test("a full run: contracts and probes overlap, the horizon node is the probes' alone until their last answer, nothing fails", async (t) => {
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
    const horizonEvidence = results.checks
      .filter((c) => !c.rule.startsWith('RL-'))
      .flatMap((c) => (c.evidence?.exchanges ?? []).map((x) => ({ rule: c.rule, id: c.id, x })))
      .filter(({ x }) => new URL(x.url).host === horizonHost);
    // A contract request is named by its check (node.feeStats[...]); a probe's by its phase.
    const sent = horizonEvidence.filter(({ x }) => x.purpose?.startsWith('node.'));
    const judgedOnProbes = horizonEvidence.filter(({ x }) => !x.purpose?.startsWith('node.'));
    assert.ok(sent.length > 0, 'the horizon node had contract requests of its own (its refusals)');
    // The probes' last answer, in the clock of the evidence: the timeline counts from the plan's start,
    // which its first request (in a probe check's evidence) places.
    const timeline = JSON.parse(readFileSync(join(out, 'timeline.json'), 'utf8')) as TimelineEntry[];
    const probeSent = results.checks
      .filter((c) => c.rule.startsWith('RL-'))
      .flatMap((c) => c.evidence?.exchanges ?? [])
      .map((x) => x.sentAt);
    assert.ok(probeSent.length > 0, 'the probe checks show the requests they sent');
    const planStart = Math.min(...probeSent) - timeline[0]!.sentAt;
    const probesLastAnswer = planStart + Math.max(...timeline.map((e) => e.receivedAt ?? e.sentAt));
    // Evidence times are whole milliseconds.
    assert.ok(
      Math.min(...sent.map(({ x }) => x.sentAt)) >= probesLastAnswer - 1,
      "no contract request reached the horizon node before the probes' last answer",
    );
    assert.ok(
      Math.min(...sent.map(({ x }) => x.sentAt)) < at('probes', 'finishedAt'),
      'the horizon node was handed over when the probes stopped sending, before their analysis ended',
    );
    // Requests that need quota and that the probes had sent already: the plain GET and the HEAD always
    // (the first request and the quick run's HEAD); another token form when a probe's got an answer.
    const reused = [...new Set(judgedOnProbes.map(({ id }) => id))];
    const why = JSON.stringify(judgedOnProbes.map(({ id, x }) => `${id} <- ${x.purpose}`));
    assert.ok(reused.includes('node.feeStats[head]'), `node.feeStats[head]: ${why}`);
    // Each answer serves one check: the plain GET's goes to whichever of its two checks asks first.
    assert.ok(
      reused.includes('node.feeStats[auth-query]') || reused.includes('node.horizon.fee_stats'),
      `the plain GET: ${why}`,
    );
    assert.ok(
      reused.every(
        (id) => /^node\.feeStats\[(auth-query|bearer|x-auth-token|head)\]$/.test(id) || id === 'node.horizon.fee_stats',
      ),
      why,
    );
    assert.ok(
      judgedOnProbes.every(({ x }) => x.sentAt < at('probes', 'finishedAt')),
      'judged on answers the probes got',
    );
    const bad = (probes: boolean, ...verdicts: string[]) =>
      results.checks
        .filter((c) => verdicts.includes(c.verdict) && c.rule.startsWith('RL-') === probes)
        .map((c) => `${c.verdict} ${c.rule} ${c.id}: ${c.message}`);
    assert.deepEqual(bad(false, 'fail', 'error'), [], 'a conformant reference: no contract check fails or errors');
    // The probes' verdicts rest on timing (a burst above the cap must leave within one second): judged on a steady run.
    const stall = runStallMs(out);
    judgeSteady(t, stall, () =>
      assert.deepEqual(bad(true, 'fail'), [], 'a conformant reference: no probe check fails'),
    );
    judgeProbeErrors(
      t,
      stall,
      results.checks.filter((c) => c.rule.startsWith('RL-')),
      'a conformant reference: no probe check errors',
    );
    // Checks are listed in stage order however the stages overlapped: every probe check after every contract check.
    const isProbe = results.checks.map((c) => c.rule.startsWith('RL-'));
    assert.ok(isProbe.indexOf(true) > isProbe.lastIndexOf(false), 'contract checks first, then probe checks');
  } finally {
    await ref.close();
    rmSync(out, { recursive: true, force: true });
  }
});
