// The probes against the served reference horizon node (reference/nodes/horizon.ts) in real time,
// over HTTP: a dedicated node (3600/h) and the same behind 80 ms of network latency, and the small
// in-process cases (skip, budget, abort, a node that is down). Every
// limiter fault and variant is run on the node's own code on the virtual clock
// (reference-virtual.test.ts), where no verdict depends on the machine's speed. The two full runs
// take real seconds, so they run in child processes side by side while the small cases go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RL_RULES } from '../../load/plan.js';
import {
  machineStallMs,
  probeInChild,
  probeReference,
  verdictLines,
  type ChildSpec,
  type ProbeRun,
} from './reference-harness.js';
import { startHorizonNode } from '../../reference/nodes/horizon.js';
import { runProbes } from '../../load/run.js';
import { defaultOptions } from '../../reference/options.js';
import type { RunContext } from '../../src/stages.js';
import { Redactor } from '../../src/record/redact.js';
import { closedPort } from '../support/ports.js';
import { judgeSteady } from '../support/stalls.js';

const TOKEN = defaultOptions().credentials.horizonToken;

const LATENCY = { baseMs: 80, jitterMs: 40 };
/** The most the latency run's node delays an answer, ms (what machineStallMs leaves out). */
const LATENCY_MAX_MS = LATENCY.baseMs + LATENCY.jitterMs;

const FULL_RUNS: Record<string, ChildSpec['options']> = {
  dedicated: {},
  latency: { latency: LATENCY },
};

// Start both child runs now; each test awaits its own.
const specs = Object.entries(FULL_RUNS);
const runs = specs.map(([, options]) => probeInChild({ options }));
const runOf = (name: string): Promise<ProbeRun> => runs[specs.findIndex(([n]) => n === name)]!;

const byRule = (r: ProbeRun) => {
  const out: Record<string, string[]> = {};
  for (const c of r.outcome.checks) (out[c.rule] ??= []).push(c.verdict);
  return out;
};

function assertCleanFullRun(r: ProbeRun, expectedT: number, within: number) {
  const lines = verdictLines(r.outcome);
  const judged = new Set(r.outcome.checks.filter((c) => c.verdict !== 'skipped').map((c) => c.rule));
  const unjudged = RL_RULES.filter((rule) => !judged.has(rule));
  assert.deepEqual(unjudged, [], `not judged: ${unjudged.join(', ')}\n${lines}`);
  // The first line names what went wrong: a skipped test's diagnostic shows only that line.
  const bad = r.outcome.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
  assert.deepEqual(
    bad.map((c) => c.id),
    [],
    `${bad.map((c) => `${c.rule} ${c.verdict} ${c.id}: ${c.message}`).join(' | ')}\n${lines}`,
  );
  const l = r.outcome.limiter!;
  assert.equal(l.limit, 101);
  assert.ok(
    Math.abs(l.emissionIntervalMs - expectedT) / expectedT <= within,
    `T ${l.emissionIntervalMs} ms, expected ${expectedT} ms ±${within * 100}%`,
  );
  // Every request went through the budget and the recorder: the node saw exactly what was sent.
  assert.equal(l.requestsSent, r.served);
  assert.equal(r.outcome.timeline.length, l.requestsSent);
  assert.ok(!JSON.stringify(r.outcome).includes(TOKEN), 'the token appears in the probe outcome');
}

// How long a run takes is the benchmark's figure (tools/bench/probes.ts): tests judge verdicts.
test('dedicated 3600/h, burst 100: every RL rule judged, none fails, T within 2% of 1 s, at most Limit + 40 requests', async (t) => {
  const r = await runOf('dedicated');
  judgeSteady(t, machineStallMs(r), () => {
    assertCleanFullRun(r, 1000, 0.02);
    const l = r.outcome.limiter!;
    assert.ok(l.requestsSent <= l.limit + 40, `${l.requestsSent} requests`);
    assert.equal(r.outcome.checks.find((c) => c.rule === 'RL-13')?.evidence.observation?.usedQuota, 'no');
  });
  // Progress reached the CLI: every phase, with requests counted.
  const phases = new Set(r.progress.map((e) => (e.stage === 'probes' ? e.phase.split(':')[0] : '')));
  for (const p of ['dynamics', 'drain', 'recovery']) assert.ok(phases.has(p), p);
});

test('80 ms ± 40 ms of network latency: the verdicts are unchanged and T is within 5%', async (t) => {
  const slow = await runOf('latency');
  const local = await runOf('dedicated');
  judgeSteady(t, Math.max(machineStallMs(slow, LATENCY_MAX_MS), machineStallMs(local)), () => {
    assertCleanFullRun(slow, 1000, 0.05);
    assert.deepEqual(byRule(slow), byRule(local));
  });
});

test('no horizon node in the target: every selected RL rule is skipped with the reason', async () => {
  const ctx = {
    target: { name: 'x', nodes: {}, limits: { maxRequests: 10, maxSeconds: 10, timeoutMs: 1000 } },
    selected: (id: string) => id === 'RL-03' || id === 'RL-10',
  } as unknown as RunContext;
  const out = await runProbes(ctx);
  assert.deepEqual(
    out.checks.map((c) => [c.rule, c.verdict]),
    [
      ['RL-03', 'skipped'],
      ['RL-10', 'skipped'],
    ],
  );
  assert.match(out.checks[0]!.message, /no nodes.horizon section/);
  assert.equal(out.limiter, null);
});

test('a request budget too small for the drain: its rules get error "budget", the rest is still judged', async () => {
  const r = await probeReference({}, { maxRequests: 40, selected: (id) => ['RL-03', 'RL-06', 'RL-11'].includes(id) });
  const v = Object.fromEntries(r.outcome.checks.map((c) => [c.rule, c]));
  assert.equal(v['RL-03']?.verdict, 'pass');
  for (const rule of ['RL-06', 'RL-11']) {
    assert.equal(v[rule]?.verdict, 'error', rule);
    assert.equal(v[rule]?.evidence.cause, 'budget');
    assert.match(v[rule]!.message, /^budget: /);
  }
  assert.ok(r.served <= 40);
});

test('an abort stops sending at once: no request after the signal, unfinished checks are "interrupted"', async () => {
  // Aborted once the probes have sent a few requests; the node counts no more than they had sent
  // (those in flight may still arrive, or be cut off), however late the abort lands.
  const r = await probeReference(
    {},
    {
      abortWhen: (e) => e.stage === 'probes' && e.requestsSent >= 3,
      selected: (id) => ['RL-04', 'RL-10'].includes(id),
    },
  );
  assert.ok(r.sentAtAbort !== undefined && r.sentAtAbort >= 3, 'the run was not aborted mid-way');
  assert.ok(
    r.served <= r.sentAtAbort,
    `the node counted ${r.served} requests, ${r.sentAtAbort} were sent before the abort`,
  );
  for (const c of r.outcome.checks) {
    assert.equal(c.verdict, 'error', c.id);
    assert.equal(c.evidence.cause, 'interrupted');
  }
});

test('only RL-10 selected: no recovery phase and no pause beyond what the drain needs', async (t) => {
  const r = await probeReference({ hourlyLimit: 7200, burst: 30 }, { selected: (id) => id === 'RL-10' });
  // What this proves is the plan's shape. The verdict is RL-10's: a pass, or, where a starved machine
  // left the burst inconclusive, an error that says so (a possible honest outcome); never a fail.
  const [check, ...more] = r.outcome.checks;
  t.diagnostic(`RL-10 ${check?.verdict}: ${check?.message}`);
  assert.deepEqual(more, [], 'one RL-10 check');
  assert.equal(check?.rule, 'RL-10', 'the RL-10 check');
  assert.ok(check.verdict === 'pass' || check.verdict === 'error', `RL-10 ${check.verdict}: ${check.message}`);
  const phases = r.outcome.limiter!.phases as { name: string; status: string }[];
  assert.deepEqual(
    phases.map((p) => [p.name, p.status]),
    [
      ['dynamics', 'done'],
      ['drain', 'done'],
      ['recovery', 'not-needed'],
      ['integrity', 'not-needed'],
    ],
  );
  assert.ok(r.outcome.timeline.filter((t) => t.probe.startsWith('dynamics')).length <= 2);
});

test('a node that does not answer, or refuses the token: one request, then every check is an error saying why', async (t) => {
  const base = { name: 'x', limits: { maxRequests: 100, maxSeconds: 30, timeoutMs: 2000 } };
  const ctxFor = (endpoint: string, token: string) =>
    ({
      target: {
        ...base,
        nodes: { horizon: { endpoint, token, customer: 'dedicated', hourlyLimit: 3600, perSecondCap: 20 } },
      },
      selected: (id: string) => id.startsWith('RL-'),
      budget: new SharedArrayBuffer(4),
      deadline: Date.now() + 30_000,
      signal: new AbortController().signal,
      progress: () => undefined,
      seed: 1,
      redactor: new Redactor([token], 1),
    }) as unknown as RunContext;
  const closed = await closedPort();
  t.after(() => closed.close());
  const down = await runProbes(ctxFor(`http://127.0.0.1:${closed.port}`, 'whatever-token-123'));
  assert.equal(down.timeline.length, 1);
  assert.ok(
    down.checks.length >= RL_RULES.length &&
      down.checks.every((c) => c.verdict === 'error' && c.evidence.cause === 'network'),
    verdictLines(down),
  );

  const opts = defaultOptions();
  const node = await (await import('../../reference/nodes/horizon.js')).startHorizonNode(opts);
  try {
    const refused = await runProbes(ctxFor(node.endpoint, 'not-the-right-token-456'));
    assert.equal(refused.timeline.length, 1);
    assert.ok(
      refused.checks.every((c) => c.verdict === 'error' && c.evidence.cause === 'refused'),
      verdictLines(refused),
    );
    assert.ok(!JSON.stringify(refused).includes('not-the-right-token-456'));
  } finally {
    await node.close();
  }
});
