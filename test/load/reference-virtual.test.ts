// The probes against the reference horizon node's own code on the virtual clock
// (virtual-reference.ts): every limiter fault of the catalogue fails its rule, the open-behaviour
// variants fail nothing, and what a fault that surprises the plan leaves failing is exactly the rule
// it breaks. The node decides each request with its real limiter, cap, token check, faults and
// variants; only time is virtual, so no verdict here depends on the machine's speed and no run is
// skipped for a stall. Real time and the HTTP path: reference.test.ts, against the served node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITER_FAULTS } from '../../reference/faults/limiter.js';
import { CAP_STRICT_SPACING_VARIANT } from '../../reference/limiter/cap.js';
import {
  proxyRefusal,
  QUERY_ONLY_VARIANT,
  type HorizonAnswer,
  type HorizonRequest,
} from '../../reference/nodes/horizon.js';
import { defaultOptions } from '../../reference/options.js';
import { retryAfterViolations } from '../safety/support/pace.js';
import { assertEveryRuleJudged, verdictLines } from './reference-harness.js';
import {
  virtualReferenceRun,
  VirtualReferenceNode,
  type VirtualReferenceOptions,
  type VirtualReferenceRun,
} from './virtual-reference.js';

/**
 * A faster limiter where a fault shows the same (T = 0.5 s, burst 30). The cap faults get quota to
 * spare for finding a server second to place the burst across.
 */
const FAULT_NODE: VirtualReferenceOptions = { hourlyLimit: 7200, burst: 30 };
const FAULT_NODE_FOR: Record<string, VirtualReferenceOptions> = {
  'rl-cap-calendar-second': { hourlyLimit: 7200, burst: 100 },
  'rl-cap-token-bucket': { hourlyLimit: 7200, burst: 100 },
  'rl-cap-25': { hourlyLimit: 7200, burst: 100 },
  'rl-no-cap': { hourlyLimit: 7200, burst: 100 },
};
const faultRun = (fault: string) => virtualReferenceRun({ ...FAULT_NODE, ...FAULT_NODE_FOR[fault], faults: [fault] });

const failing = (r: VirtualReferenceRun) =>
  [...new Set(r.outcome.checks.filter((c) => c.verdict === 'fail').map((c) => c.id))].sort();

/** Every RL rule judged, none fails or errs; every request went through the budget and the recorder. */
function assertClean(r: VirtualReferenceRun, expectedT: number) {
  assertEveryRuleJudged(r.outcome);
  assert.deepEqual(failing(r), [], verdictLines(r.outcome));
  const l = r.outcome.limiter!;
  assert.equal(l.limit, 101);
  assert.ok(Math.abs(l.emissionIntervalMs - expectedT) / expectedT <= 0.01, `T ${l.emissionIntervalMs} ms`);
  assert.equal(l.requestsSent, r.node.served);
  assert.equal(r.outcome.timeline.length, l.requestsSent);
  assert.ok(!JSON.stringify(r.outcome).includes(r.node.opts.credentials.horizonToken), 'the token in the outcome');
}

test('dedicated 3600/h, burst 100: every RL rule judged, none fails or errs, T within 1% of 1 s', async () => {
  const r = await virtualReferenceRun();
  assertClean(r, 1000);
  assert.ok(r.outcome.limiter!.requestsSent <= 101 + 40, `${r.outcome.limiter!.requestsSent} requests`);
});

test('shared 2000/h: none fails or errs, T within 1% of 1.8 s', async () => {
  assertClean(await virtualReferenceRun({ customer: 'shared', hourlyLimit: 2000 }), 1800);
});

test('a proxy that spaces requests strictly (nginx limit_req without burst): none fails; its refusals are RL-13 and counted', async () => {
  const r = await virtualReferenceRun({ variants: [CAP_STRICT_SPACING_VARIANT] });
  assertClean(r, 1000);
  assert.equal(r.outcome.checks.find((c) => c.rule === 'RL-13')!.verdict, 'observed');
  // Paced sends keep at least one cap interval from the start: the spacing costs no refusals to learn.
  assert.ok((r.outcome.limiter!.pacingGapMs as number) >= 50, `paced gap ${r.outcome.limiter!.pacingGapMs} ms`);
});

test(`variant ${QUERY_ONLY_VARIANT}: none fails; RL-14 says the header forms were not tested (the node refused them)`, async () => {
  const r = await virtualReferenceRun({ variants: [QUERY_ONLY_VARIANT] });
  assertClean(r, 1000);
  assert.match(
    r.outcome.checks.find((c) => c.id === 'rl.integrity[bucket]')!.message,
    /^3 varied request\(s\) were limited .*not tested: the token as Authorization: Bearer only \(the node refused it \(401\)/,
  );
});

test('RL-14 on the reference (every token form from one bucket): every variation is limited as the token', async () => {
  const r = await virtualReferenceRun();
  const rows = r.outcome.limiter!.integrity as { id: string; when: string; verdict: string }[];
  const empty = rows.filter((x) => x.when === 'empty bucket');
  assert.deepEqual(
    empty.map((x) => x.id),
    ['form:bearer', 'form:x-auth-token', 'query:extra', 'query:reordered', 'client:all'],
  );
  assert.ok(
    empty.every((x) => x.verdict === 'pass'),
    JSON.stringify(rows),
  );
  assert.deepEqual(
    rows.filter((x) => x.when === 'burst above the cap').map((x) => x.id),
    ['form:x-auth-token'],
  );
  assert.equal(r.outcome.checks.find((c) => c.id === 'rl.integrity[cap]')?.verdict, 'pass');
});

for (const fault of LIMITER_FAULTS.filter((f) => f.rule.startsWith('RL-'))) {
  test(`limiter fault ${fault.name}: ${fault.rule} fails`, async () => {
    const r = await faultRun(fault.name);
    assert.ok(
      r.outcome.checks.some((c) => c.rule === fault.rule && c.verdict === 'fail'),
      `${fault.description}\n${verdictLines(r.outcome)}`,
    );
  });
}

test("the cap faults fail RL-10 wherever the node clock's seconds begin (ten phases, RL-10 alone)", async () => {
  for (const fault of ['rl-cap-calendar-second', 'rl-cap-token-bucket']) {
    const missed: string[] = [];
    for (let phaseMs = 0; phaseMs < 1000; phaseMs += 100) {
      const r = await virtualReferenceRun({ ...FAULT_NODE_FOR[fault], faults: [fault], only: ['RL-10'], phaseMs });
      const rl10 = r.outcome.checks.find((c) => c.rule === 'RL-10');
      if (rl10?.verdict !== 'fail') missed.push(`${fault} at ${phaseMs} ms: ${rl10?.verdict}: ${rl10?.message}`);
    }
    assert.deepEqual(missed, []);
  }
});

/** What each RL-14 fault's evidence says, and that nothing else fails with it. */
const RL14_EVIDENCE: Record<string, RegExp> = {
  'rl-key-query-string': /a bucket of its own; the plain request just before got /,
  'rl-key-forwarded-for': /X-Forwarded-For.*a bucket of its own/,
  'rl-key-query-only':
    /^the token as .* only: accepted without the limiter's headers: not limited at all; the plain request just before got /,
};

for (const [fault, says] of Object.entries(RL14_EVIDENCE)) {
  test(`limiter fault ${fault}: RL-14 fails at the empty bucket with the variation and the plain answer before it, nothing else fails`, async () => {
    const r = await faultRun(fault);
    const lines = verdictLines(r.outcome);
    const bucket = r.outcome.checks.find((c) => c.id === 'rl.integrity[bucket]')!;
    assert.equal(bucket.verdict, 'fail', lines);
    assert.match(bucket.message, says);
    assert.ok((bucket.evidence.exchanges?.length ?? 0) >= 2, 'the plain exchange and the varied one');
    assert.deepEqual(
      r.outcome.checks.filter((c) => c.verdict === 'fail' && c.rule !== 'RL-14').map((c) => c.id),
      [],
      lines,
    );
  });
}

test('a limiter that never counts HEAD: RL-03 fails with the GET after the HEAD, and T, the drain and every other rule rest on the GETs', async () => {
  const r = await faultRun('rl-head-free');
  const lines = verdictLines(r.outcome);
  assert.deepEqual(
    r.outcome.checks.filter((c) => c.verdict === 'error').map((c) => c.id),
    [],
    lines,
  );
  const bad = r.outcome.checks.filter((c) => c.verdict === 'fail');
  assert.deepEqual(
    bad.map((c) => c.id),
    ['rl.dynamics.faster-than-T'],
    lines,
  );
  assert.match(bad[0]!.message, /^HEAD #\d+ was not counted: the GET after it \(#\d+\) showed Remaining \d+/, lines);
  const counted = (bad[0]!.evidence.actual as { counted: { method: string; seen: string }[] }).counted;
  assert.deepEqual(
    counted.filter((m) => m.seen === 'not counted').map((m) => m.method),
    ['HEAD'],
    'only the HEAD was not counted',
  );
  const l = r.outcome.limiter!;
  assert.ok(Math.abs(l.emissionIntervalMs - 500) / 500 <= 0.01, `T ${l.emissionIntervalMs} ms`);
  assert.equal(l.modelConsistent, true);
});

/**
 * What the faults that surprise the plan leave failing: the rule each breaks and, for a replayed
 * refusal, RL-05 as well (the request one T later was refused). Every other rule is judged: none
 * fails, and none errs.
 */
const SURPRISES: Record<string, { fails: string[]; says: Record<string, RegExp> }> = {
  // Before: a pause "as long as the last Reset" of 1.8 billion s, and every RL rule `error` in two seconds.
  'rl-reset-epoch': {
    fails: ['rl.reset-consistency'],
    says: { 'RL-12': /^\d+ answer\(s\) disagree: Reset 1\d{9} s: with Limit 31 and Remaining 30 and T at most 60 s/ },
  },
  // Before: the probes stopped following recovery at the replayed 429, and RL-07 was `error`.
  'rl-replayed-refusal': {
    fails: ['rl.gradual'],
    says: {
      'RL-07':
        /^waiting retry-after was enough each time: 1 s after the unexpected 429 one T after the last acceptance #\d+ \(#\d+ accepted\)/,
    },
  },
  'rl-replayed-refusal-stale': {
    fails: ['rl.gradual', 'rl.retry-after'],
    says: {
      'RL-07':
        /^#\d+ sent once retry-after 1 s \(from #\d+, the unexpected 429 one T after the last acceptance\) had passed still got 429$/,
    },
  },
};

for (const [fault, expected] of Object.entries(SURPRISES)) {
  test(`limiter fault ${fault}: ${expected.fails.join(' and ')} fail, every other RL rule is judged (none fails or errs)`, async () => {
    const r = await faultRun(fault);
    const lines = verdictLines(r.outcome);
    assert.doesNotMatch(lines, /past the run's time limit|the retry-after edge was not made/);
    assert.deepEqual(
      r.outcome.checks.filter((c) => c.verdict === 'error').map((c) => c.id),
      [],
      lines,
    );
    assert.deepEqual(failing(r), expected.fails, lines);
    for (const [rule, says] of Object.entries(expected.says))
      assert.match(r.outcome.checks.find((c) => c.rule === rule)!.message, says, lines);
  });
}

test('a varied request held up past a leak while the bucket is empty (a busy machine): RL-07 is tested from a fresh 429 and passes', async () => {
  // The first varied request after a HEAD (the recovery's, which met an empty bucket) leaves 1.1 s
  // late, T and retry-after being 1 s: quota has leaked back, and it is accepted on what that
  // retry-after promised. Before, RL-07 was error for it.
  let previous: string | undefined;
  let stalled = 0;
  const r = await virtualReferenceRun({
    stallMs: (method, opts) => {
      const stall = opts?.variation && previous === 'HEAD' && stalled++ === 0 ? 1100 : 0;
      previous = method;
      return stall;
    },
  });
  const lines = verdictLines(r.outcome);
  assert.equal(stalled, 1, 'no varied request followed a HEAD');
  assertClean(r, 1000);
  assert.ok(
    r.outcome.timeline.some((s) => s.variation !== undefined && s.status === 200 && s.probe.startsWith('integrity')),
    `no varied request was accepted while the bucket was to be empty\n${lines}`,
  );
  assert.match(r.outcome.checks.find((c) => c.rule === 'RL-07')!.message, /^waiting retry-after \(1 s\) was enough/);
});

test("a proxy's refusal in the drain (a starved client's requests bunched at the cap): nothing leaves before its retry-after, and nothing fails", async () => {
  // The 60th GET (in the drain under the cap) gets what the reference's proxy sends over its cap: a
  // 429 with retry-after 1 s and none of the limiter's headers, using no quota. Before, the drain
  // made up for it at once, 947 ms inside that retry-after.
  let gets = 0;
  class RefusesOnce extends VirtualReferenceNode {
    protected override decide(req: HorizonRequest, nowMs: number): HorizonAnswer {
      if (req.method !== 'GET' || ++gets !== 60) return super.decide(req, nowMs);
      return { ...proxyRefusal(this.opts), delayMs: 0 };
    }
  }
  const r = await virtualReferenceRun({ node: new RefusesOnce(defaultOptions()) });
  assert.ok(
    r.outcome.timeline.some((e) => e.probe === 'drain: under the cap' && e.status === 429 && e.remaining === undefined),
    'the refusal did not land in the drain',
  );
  assertClean(r, 1000);
  assert.deepEqual(
    retryAfterViolations(r.outcome.timeline).filter((v) => v.early.probe.startsWith('drain')),
    [],
  );
});

test('three HEADs in a row held up past a leak where the bucket should be empty (a starved machine): the recovery tries again and RL-07 passes', async () => {
  // The recovery's HEAD right after the acceptance that used the recovered quota is the third HEAD
  // of the run. It and the two next leave 1.1 s late (T and retry-after are 1 s), so each meets the
  // quota that leaked meanwhile. In a stress run, RL-07 was error for it.
  let heads = 0;
  const held: number[] = [];
  const r = await virtualReferenceRun({
    stallMs: (method) => {
      if (method !== 'HEAD' || ![3, 4, 5].includes(++heads)) return 0;
      held.push(heads);
      return 1100;
    },
  });
  assert.deepEqual(held, [3, 4, 5]);
  const edgeHeads = r.outcome.timeline.filter((e) => e.method === 'HEAD' && e.probe === 'recovery: retry-after edge');
  const statuses = edgeHeads.map((e) => e.status);
  assert.deepEqual(statuses.slice(0, 3), [200, 200, 200], `the held HEADs were not accepted: ${statuses.join(', ')}`);
  assert.equal(statuses.at(-1), 429, `the recovery did not meet an empty bucket again: ${statuses.join(', ')}`);
  assertClean(r, 1000);
  assert.match(r.outcome.checks.find((c) => c.rule === 'RL-07')!.message, /^waiting retry-after \(1 s\) was enough/);
});

test('two runs back to back on one node: the second finds the bucket not full, waits for it and says why; neither fails or errs', async () => {
  const first = await virtualReferenceRun(FAULT_NODE);
  // The second starts 1 s after the first ended: the drain's backlog has not leaked away yet.
  first.node.later(first.engine.now() + 1000);
  const second = await virtualReferenceRun({ node: first.node });
  for (const [name, r] of [
    ['first', first],
    ['second', second],
  ] as const) {
    const lines = verdictLines(r.outcome);
    assert.deepEqual(
      r.outcome.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.id),
      [],
      `${name} run\n${lines}`,
    );
    const waited = r.progress.some((p) => /not full at the start/.test(p.phase));
    assert.equal(waited, name === 'second', `${name} run: ${r.progress.map((p) => p.phase).join(' | ')}`);
  }
});
