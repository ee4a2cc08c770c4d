// The contract stage against the embedded reference: complete and clean; absent target sections
// skipped with the reason; the request budget and an abort cut it short with `error`, never
// `fail`; no secret in what it writes. How long a run takes is the bench's figure
// (tools/bench/contracts.ts), not a test's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultOptions } from '../../reference/options.js';
import { CONTRACT_RULES } from '../../contracts/engine.js';
import { runAgainstReference } from './harness.js';

const SECRETS = Object.values(defaultOptions().credentials);
/** Each answer's delay in the abort test: a test of a few requests then takes seconds. */
const ABORT_LATENCY_MS = 250;

describe('contract stage against the embedded reference', () => {
  it('checks every contract rule with no fail and no error, without leaking a secret', async (t) => {
    const run = await runAgainstReference();
    t.diagnostic(
      `contract run: ${Math.round(run.wallMs)} ms wall, ${run.checks.length} checks, ${run.requests} requests`,
    );
    const bad = run.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
    assert.deepEqual(
      bad.map((c) => `${c.verdict} ${c.rule} ${c.id}: ${c.message}`),
      [],
    );
    const covered = new Set(run.checks.filter((c) => c.verdict !== 'skipped').map((c) => c.rule));
    assert.deepEqual(
      CONTRACT_RULES.filter((r) => !covered.has(r)),
      [],
      'rules without a non-skipped check',
    );
    assert.ok(run.requests < run.target.limits.maxRequests, `${run.requests} requests`);
    // Progress reached the end of every family.
    const last = new Map(
      run.progress.flatMap((e) => (e.stage === 'contracts' && e.family ? [[e.family, e] as const] : [])),
    );
    assert.deepEqual([...last.keys()].sort(), ['auth', 'errors', 'native', 'nft', 'node', 'universal']);
    for (const e of last.values()) if (e.stage === 'contracts') assert.equal(e.done, e.total);
    // No credential value anywhere in the checks (evidence, messages).
    const text = JSON.stringify(run.checks);
    for (const s of SECRETS) assert.ok(!text.includes(s), `a credential appears in the output`);
  });

  it('skips, with the reason, the rules of every section the target lacks', async () => {
    const run = await runAgainstReference({
      only: 'auth,nft,native,universal,node,errors',
      edit: (t) => ({ ...t, api: undefined, nodes: { blockRest: t.nodes.blockRest } }),
    });
    const byRule = new Map<string, string[]>();
    for (const c of run.checks) byRule.set(c.rule, [...(byRule.get(c.rule) ?? []), `${c.verdict}: ${c.message}`]);
    for (const rule of CONTRACT_RULES) assert.ok(byRule.has(rule), `${rule} has no check`);
    assert.match(byRule.get('NFT-09')!.join(), /skipped: target has no api section/);
    assert.match(byRule.get('AUTH-01')!.join(), /skipped: target has no api section/);
    assert.match(byRule.get('NODE-06')!.join(), /skipped: target has no nodes\.chainB section/);
    assert.match(byRule.get('NODE-01')!.join(), /^pass/);
    assert.deepEqual(
      run.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.message),
      [],
    );
  });

  it('stops at limits.maxRequests: what could not be sent is an error with the cause "budget", never a fail', async () => {
    const run = await runAgainstReference({
      only: 'nft,native',
      edit: (t) => ({ ...t, limits: { ...t.limits, maxRequests: 12 } }),
    });
    assert.deepEqual(
      run.checks.filter((c) => c.verdict === 'fail').map((c) => c.message),
      [],
    );
    const budget = run.checks.filter((c) => c.verdict === 'error' && /budget/.test(c.message));
    assert.ok(budget.length > 0, 'some checks report the budget');
    assert.ok(run.served <= 12, `the reference received ${run.served} requests`);
  });

  it('an abort stops the run at once: nothing is sent after it, and the unfinished rules say "interrupted"', async () => {
    // Aborted once the first family is judged, while every answer takes ABORT_LATENCY_MS: the plans
    // still under way send nothing more, and whatever they had not judged is an error naming the interrupt.
    const run = await runAgainstReference({
      reference: { latency: { baseMs: ABORT_LATENCY_MS, jitterMs: 0 } },
      abortWhen: (e) => e.stage === 'contracts' && e.done > 0,
    });
    assert.ok(run.requestsAtAbort !== undefined, 'the run was aborted');
    assert.equal(run.requests, run.requestsAtAbort, 'requests taken from the budget after the abort');
    const interrupted = new Set(
      run.checks.filter((c) => c.verdict === 'error' && /interrupted/.test(c.message)).map((c) => c.rule),
    );
    assert.ok(interrupted.size > 0, 'some rule was left unfinished by the abort');
    assert.deepEqual(
      run.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.rule}: ${c.message}`),
      [],
    );
    for (const rule of CONTRACT_RULES)
      assert.ok(
        run.checks.some((c) => c.rule === rule),
        `${rule} has no check after the abort`,
      );
  });
});
