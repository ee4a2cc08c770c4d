// The run's bounds, counted by the reference's own servers: limits.maxRequests and
// limits.maxSeconds hold for the whole run (contracts in Playwright workers and probes), checks
// cut short say "budget"; the probes never send faster than their plan states and wait out every
// retry-after except in the phases that exist to test it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_PLAN } from '../../load/plan.js';
import type { ResultsFile } from '../../src/results.js';
import type { TimelineEntry } from '../../src/stages.js';
import type { TargetFile } from '../../src/types/generated/target.js';
import { runCli, stackTraceLines, type CliRun } from './support/cli.js';
import { BURST_PHASE, busiestWindow, retryAfterViolations, WINDOW_MS } from './support/pace.js';
import type { ReferenceOptions } from '../../reference/options.js';
import { QUICK_PROBES, startWatchedReference, type WatchedReference } from './support/reference.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';
import { judgeSteady, runStallMs, watchStalls } from '../support/stalls.js';

/**
 * Time a run may take beyond its deadline (limits.maxSeconds from its start): the contracts stage's
 * grace to stop Playwright (2.5 s, contracts/run.ts), the kill after it and writing the reports,
 * a few seconds on a quiet machine. Only a run that was not cut short gets near it: the one below
 * would take minutes.
 */
const AFTER_DEADLINE_MS = SLOW_MACHINE_MS;
/**
 * A request the budget let out just before the deadline may arrive this much later, plus however
 * long the test process (where the servers stamp arrivals) was stalled meanwhile, and its sender
 * waited for the CPU (CliRun.heldUpMs).
 */
const IN_FLIGHT_MS = 250;
/** Every answer's delay in the maxSeconds run: the contracts alone would take minutes. */
const SLOW_ANSWER_MS = 1_000;

function results(out: string): ResultsFile {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
}

interface RunSpec {
  /** Replaces the target file's limits. */
  limits?: TargetFile['limits'];
  args?: string[];
  reference?: Partial<ReferenceOptions>;
}

/** One CLI run against a fresh reference; the reference is closed after. */
async function withRun<T>(
  { limits, args = [], reference }: RunSpec,
  judge: (x: { ref: WatchedReference; run: CliRun; out: string; stallMs: number }) => T,
): Promise<T> {
  const ref = await startWatchedReference({ ...QUICK_PROBES, ...reference });
  const stalls = watchStalls();
  try {
    const target = ref.writeTarget(limits && ((f) => (f.limits = limits)));
    const out = join(ref.dir, 'out');
    const run = await runCli(['--target', target, ...args, '--out', out]);
    return judge({ ref, run, out, stallMs: stalls.maxMs() });
  } finally {
    stalls.stop();
    await ref.close();
  }
}

const budgetErrors = (r: ResultsFile) => r.checks.filter((c) => c.verdict === 'error' && /budget/i.test(c.message));

test('limits.maxRequests holds for the whole run, counted by the servers; cut checks say "budget"', async (t) => {
  const maxRequests = 60;
  await withRun({ limits: { maxRequests, maxSeconds: 120, timeoutMs: 5000 } }, ({ ref, run, out }) => {
    const seen = ref.options.counters.total();
    t.diagnostic(
      `exit ${run.code} in ${Math.round(run.wallMs)} ms; the servers counted ${seen} requests ${JSON.stringify(ref.options.counters.snapshot())}`,
    );
    assert.equal(run.code, 1, run.stderr.slice(-400));
    assert.ok(seen <= maxRequests, `the servers counted ${seen} requests, limits.maxRequests is ${maxRequests}`);
    // The bound was reached, not merely respected by a run that needed fewer.
    assert.ok(seen >= maxRequests * 0.8, `only ${seen} requests: the run did not use its budget`);
    const r = results(out);
    const cut = budgetErrors(r);
    assert.ok(cut.length > 0, 'no check says it was cut short by the budget');
    for (const c of cut) assert.ok(!c.message.includes('\n'), `${c.id}: message is not one line`);
    // The probes run beside the contracts: the phases that found room ran (their checks judged),
    // the drain (more than the whole budget) found none and said so instead of sending.
    const rl = r.checks.filter((c) => c.rule.startsWith('RL-'));
    const rlCut = rl.filter((c) => c.verdict === 'error' && /budget/i.test(c.message));
    const rlLines = `RL checks: ${rl.map((c) => `${c.rule} ${c.verdict} ${c.message}`).join('; ')}`;
    assert.ok(rlCut.length > 0, rlLines);
    // The phases that ran judge timing: RL-03 needs two answers less than T (QUICK_PROBES: 200 ms) apart, which
    // a stress run could not give ("no two answers came faster than one per T"). Judged on a run
    // whose requests were held up by less than half of T.
    judgeSteady(
      t,
      runStallMs(out),
      () =>
        assert.ok(
          rl.every((c) => rlCut.includes(c) || c.verdict === 'pass' || c.verdict === 'observed'),
          rlLines,
        ),
      3_600_000 / QUICK_PROBES.hourlyLimit! / 2,
    );
    assert.deepEqual(stackTraceLines(run.stderr), []);
  });
});

test('limits.maxSeconds holds: the run ends in time and no request reaches a server after the deadline', async (t) => {
  const maxSeconds = 9;
  // A second on every answer and one request in flight per worker (limits.concurrency 2): the
  // contracts would take minutes, so the deadline falls while Playwright workers wait on answers
  // and send, whatever the start-up took.
  await withRun(
    {
      limits: { maxRequests: 5000, maxSeconds, timeoutMs: 5000, concurrency: 2 },
      reference: { latency: { baseMs: SLOW_ANSWER_MS, jitterMs: 0 } },
    },
    ({ ref, run, out, stallMs }) => {
      const r = results(out);
      const deadline = Date.parse(r.startedAt) + maxSeconds * 1000;
      const lastArrival = Math.max(...ref.arrivals.map((a) => performance.timeOrigin + a.at));
      // A request let out just before the deadline leaves when its sender next runs: on a loaded
      // machine, as late as the CLI or a worker waited for the CPU from a second before the deadline on.
      const heldUp = run.heldUpMs(deadline - performance.timeOrigin - 1000, lastArrival - performance.timeOrigin);
      const late = ref.arrivals.filter(
        (a) => performance.timeOrigin + a.at > deadline + IN_FLIGHT_MS + stallMs + heldUp,
      );
      const ended = performance.timeOrigin + run.exitedAt;
      t.diagnostic(
        `exit ${run.code} ${Math.round(ended - deadline)} ms after the deadline (${Math.round(run.wallMs)} ms in all); ` +
          `last arrival ${Math.round(lastArrival - deadline)} ms from the deadline; ${ref.arrivals.length} requests; ` +
          `longest stall of the test process ${Math.round(stallMs)} ms; senders held up ${Math.round(heldUp)} ms`,
      );
      assert.ok(
        ended - deadline <= AFTER_DEADLINE_MS,
        `the run ended ${Math.round(ended - deadline)} ms after its deadline`,
      );
      assert.deepEqual(
        late.map((a) => `${a.server} +${Math.round(performance.timeOrigin + a.at - deadline)} ms`),
        [],
        `requests arrived after the deadline (+ ${IN_FLIGHT_MS} ms in flight, a ${Math.round(stallMs)} ms stall here, ` +
          `senders held up ${Math.round(heldUp)} ms)`,
      );
      assert.ok(
        budgetErrors(r).some((c) => /maxSeconds|time/i.test(c.message)),
        `no check says the time budget cut it: ${JSON.stringify(r.summary)}`,
      );
      assert.deepEqual(stackTraceLines(run.stderr), []);
    },
  );
});

test('the probes never send faster than their plan and wait out every retry-after outside the edge tests', async (t) => {
  await withRun({ args: ['--only', 'load'] }, ({ ref, run, out, stallMs }) => {
    assert.ok(run.code === 0 || run.code === 1, run.stderr.slice(-400));
    const timeline = JSON.parse(readFileSync(join(out, 'timeline.json'), 'utf8')) as TimelineEntry[];
    const r = results(out);
    const cap = ref.target.nodes!.horizon!.perSecondCap!;
    const burstCap = cap * DEFAULT_PLAN.burstRateFactor;
    const isBurst = (e: TimelineEntry) => e.probe === BURST_PHASE;
    assert.ok(
      timeline.some(isBurst) && timeline.some((e) => e.status === 429 && !isBurst(e)),
      `the probes did not run their whole plan (no burst or no limiter 429): RL-10 ${JSON.stringify(
        r.checks.filter((c) => c.rule === 'RL-10').map((c) => `${c.verdict}: ${c.message}`),
      )}; bucket at start ${JSON.stringify(r.limiter?.bucketAtStart)}; statuses ${timeline
        .map((e) => `${e.status ?? '-'}/${e.remaining ?? '-'}`)
        .join(' ')}; longest stall ${Math.round(stallMs)} ms`,
    );

    // Client side: send times per sliding second.
    const calm = busiestWindow(timeline.filter((e) => !isBurst(e)).map((e) => e.sentAt));
    const burst = busiestWindow(timeline.filter(isBurst).map((e) => e.sentAt));
    const all = busiestWindow(timeline.map((e) => e.sentAt));
    // Server side: arrivals at the horizon node, in order; the burst is a contiguous stretch of
    // them, at least a second away from its neighbours, so order tells which arrivals it was.
    const arrivals = ref.arrivals.filter((a) => a.server === 'horizon').map((a) => a.at);
    assert.equal(
      arrivals.length,
      timeline.length,
      'the horizon node counted another number of requests than the timeline holds',
    );
    const bySend = timeline.map((e, i) => ({ e, i })).sort((a, b) => a.e.sentAt - b.e.sentAt);
    const burstArrivals = arrivals.filter((_, k) => isBurst(bySend[k]!.e));
    const calmArrivals = arrivals.filter((_, k) => !isBurst(bySend[k]!.e));
    const serverCalm = busiestWindow(calmArrivals);
    const serverBurst = busiestWindow(burstArrivals);
    const serverAll = busiestWindow(arrivals);
    // Arrivals held up by a stall of the test process are stamped together when it ends: a window
    // may hold what was sent over its second and the stall before it.
    const atServer = (perWindow: number) => Math.floor((perWindow * (WINDOW_MS + stallMs)) / WINDOW_MS);
    t.diagnostic(
      `${timeline.length} requests; busiest second: client ${calm.count} outside the burst (plan: ${cap}), ` +
        `${burst.count} in the burst (plan: ${burstCap}), ${all.count} overall; ` +
        `server ${serverCalm.count} / ${serverBurst.count} / ${serverAll.count} (longest stall ${Math.round(stallMs)} ms); ` +
        `pacing ${JSON.stringify(r.limiter?.pacing)}`,
    );
    assert.ok(
      calm.count <= cap,
      `the probes sent ${calm.count} requests in one second outside the burst (plan: at most ${cap})`,
    );
    assert.ok(
      serverCalm.count <= atServer(cap),
      `the node received ${serverCalm.count} requests in one second outside the burst (plan: at most ${cap}; ${atServer(cap)} with the stall)`,
    );
    assert.ok(
      burst.count <= burstCap && serverBurst.count <= atServer(burstCap),
      `burst: ${burst.count} sent / ${serverBurst.count} received in one second (plan: ${burstCap})`,
    );
    assert.ok(
      all.count <= burstCap && serverAll.count <= atServer(burstCap),
      `overall: ${all.count} / ${serverAll.count} in one second (plan: ${burstCap})`,
    );
    assert.equal(WINDOW_MS, 1000);

    const violations = retryAfterViolations(timeline);
    assert.deepEqual(
      violations.map(
        (v) =>
          `#${v.early.index} (${v.early.probe}) sent ${v.shortByMs} ms before the retry-after ${v.after.retryAfter} s ` +
          `of #${v.after.index} (${v.after.probe}, ${v.after.status}) ran out`,
      ),
      [],
    );
    // The deliberate edge test did happen (else the exemption above exempted nothing).
    assert.ok(
      timeline.some((e) => e.probe === 'recovery: before the retry-after edge'),
      'no request before the retry-after edge',
    );
  });
});
