// SIGINT in the middle of a run: sending stops at once (the reference, in this process, sees no
// request after the signal beyond those already on the wire), the partial reports are written with
// the checks not run marked "interrupted", and the CLI exits non-zero (a second or two on a quiet
// machine; the bound is a backstop against a hang).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ResultsFile } from '../../src/results.js';
import { runCli, stackTraceLines } from './support/cli.js';
import { startWatchedReference, type WatchedReference } from './support/reference.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';
import { watchStalls } from '../support/stalls.js';

const EXIT_WITHIN_MS = SLOW_MACHINE_MS;
/**
 * A request the CLI wrote to the socket just before the signal can be counted by the server a
 * little after it: loopback delivery plus this process's event loop, which also sends the signal.
 * On a loaded machine, plus the longest stall of this process meanwhile (support/stalls.ts).
 */
const IN_FLIGHT_MS = 50;

interface Interrupted {
  run: Awaited<ReturnType<typeof runCli>>;
  /** performance.now() of this process when it sent the signal. */
  signalAt: number;
  /** How long after the signal the CLI handled it (results.json `interruptedAt`), ms: until then it cannot stop. */
  handledAfterMs: number;
  /** The longest stall of this process's event loop during the run, ms. */
  stallMs: number;
  results: ResultsFile;
  out: string;
}

/** Runs the whole suite and sends SIGINT once `ready` says so (checked on each stderr line and arrival). */
async function interruptWhen(ref: WatchedReference, ready: (stderrSoFar: string) => boolean): Promise<Interrupted> {
  const out = join(ref.dir, 'out');
  let child: ChildProcess | undefined;
  let stderr = '';
  let signalAt = -1;
  const maybeSignal = () => {
    if (signalAt >= 0 || !child || !ready(stderr)) return;
    signalAt = performance.now();
    child.kill('SIGINT');
  };
  ref.options.counters.onHit(() => maybeSignal());
  const stalls = watchStalls();
  const run = await runCli(['--target', ref.writeTarget(), '--out', out], {
    onSpawn: (c) => (child = c),
    onStderrLine: (line) => {
      stderr += `${line}\n`;
      maybeSignal();
    },
  });
  const stallMs = stalls.maxMs();
  stalls.stop();
  assert.ok(signalAt >= 0, `the moment to interrupt never came; stderr:\n${stderr.slice(-800)}`);
  assert.ok(
    existsSync(join(out, 'results.json')),
    `no partial results.json (exit ${run.code}, held up ${Math.round(run.heldUpMs(signalAt, run.exitedAt))} ms` +
      ` after the signal); stderr:\n${run.stderr.slice(-800)}`,
  );
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile & {
    interruptedAt?: string;
  };
  assert.ok(results.interruptedAt, 'results.json says when the run was interrupted');
  const handledAfterMs = Math.max(0, Date.parse(results.interruptedAt) - (performance.timeOrigin + signalAt));
  return { run, signalAt, handledAfterMs, stallMs, out, results };
}

function assertCleanStop(
  t: { diagnostic(s: string): void },
  ref: WatchedReference,
  x: Interrupted,
  stage: string,
  graceMs: number,
): void {
  const after = ref.arrivals.filter((a) => a.at > x.signalAt);
  // Sending stops once the CLI has handled the signal: what it sent until then may still arrive.
  const handled = x.signalAt + x.handledAfterMs;
  // A request the CLI let out just before it handled the signal leaves when its sender next runs.
  const lastArrival = Math.max(x.signalAt, ...after.map((a) => a.at));
  const heldUp = x.run.heldUpMs(x.signalAt - 1000, lastArrival);
  const late = after.filter((a) => a.at > handled + graceMs + x.stallMs + heldUp);
  const exitMs = x.run.exitedAt - x.signalAt;
  const counted = after.map((a) => `${a.server} +${(a.at - x.signalAt).toFixed(1)} ms`).join(', ') || 'none';
  t.diagnostic(
    `${stage}: handled ${Math.round(x.handledAfterMs)} ms and exit ${x.run.code} ${Math.round(exitMs)} ms after SIGINT; ` +
      `${after.length} request(s) counted after the signal (${counted}); longest stall of the test process ${Math.round(x.stallMs)} ms; ` +
      `senders held up ${Math.round(heldUp)} ms`,
  );
  assert.deepEqual(
    late.map((a) => `${a.server} +${Math.round(a.at - x.signalAt)} ms`),
    [],
    `requests reached the reference more than ${graceMs} ms (+ a ${Math.round(x.stallMs)} ms stall, ` +
      `senders held up ${Math.round(heldUp)} ms) after the CLI handled the signal ` +
      `(${Math.round(x.handledAfterMs)} ms after it was sent)`,
  );
  assert.ok(exitMs <= EXIT_WITHIN_MS, `exited ${Math.round(exitMs)} ms after SIGINT`);
  assert.ok(x.run.code !== 0 && x.run.code !== null, `exit status ${x.run.code} (signal ${x.run.signal})`);
  assert.equal(x.results.interrupted, true);
  for (const f of ['index.html', 'junit.xml']) assert.ok(existsSync(join(x.out, f)), `${f} missing`);
  assert.match(x.run.stderr, /interrupted/);
  assert.deepEqual(stackTraceLines(x.run.stderr + x.run.stdout), []);
}

test('SIGINT during the probes stops sending at once, writes partial reports and exits non-zero', async (t) => {
  // Quota for a drain of several seconds (burst 100, T = 200 ms), so the signal lands mid-drain.
  const ref = await startWatchedReference({ hourlyLimit: 18_000, burst: 100 });
  try {
    // Only the horizon node's arrivals: the contract checks of the other hosts run beside the probes.
    const horizon = () => ref.arrivals.filter((a) => a.server === 'horizon');
    const inLastSecond = (at: number) => horizon().filter((a) => a.at > at - 1000 && a.at <= at).length;
    let drainFrom = -1;
    const x = await interruptWhen(ref, (stderr) => {
      if (drainFrom < 0 && /probes · drain: under the cap/.test(stderr)) drainFrom = horizon().length;
      // Several requests into the under-cap drain, and some of them just now: the probes are sending
      // (a loaded machine may pause them; the signal waits for them to send again).
      return drainFrom >= 0 && horizon().length >= drainFrom + 10 && inLastSecond(performance.now()) >= 3;
    });
    const before = inLastSecond(x.signalAt);
    t.diagnostic(`${before} requests reached the horizon node in the second before the signal`);
    assert.ok(before >= 3, 'the probes were not sending when the signal came');
    assertCleanStop(t, ref, x, 'probes', IN_FLIGHT_MS);
    const rl = x.results.checks.filter((c) => c.rule.startsWith('RL-'));
    const cut = rl.filter((c) => c.verdict === 'error' && /interrupted/i.test(c.message));
    assert.ok(
      cut.length > 0,
      `no RL check says it was interrupted: ${rl.map((c) => `${c.rule} ${c.verdict} ${c.message}`).join('; ')}`,
    );
    // The contract checks run beside the probes: those that finished keep their verdicts, the
    // rest say they were interrupted; none is made a fail by the interruption.
    const contracts = x.results.checks.filter((c) => !c.rule.startsWith('RL-'));
    assert.deepEqual(
      contracts.filter((c) => c.verdict === 'fail').map((c) => c.id),
      [],
    );
    const cutContracts = contracts.filter((c) => c.verdict === 'error' && !/interrupted/i.test(c.message));
    assert.deepEqual(
      cutContracts.map((c) => `${c.id}: ${c.message}`),
      [],
      'a contract check cut short by the signal says so',
    );
  } finally {
    await ref.close();
  }
});

test('SIGINT during the contracts stops sending at once (the engine runs in the CLI) and exits non-zero', async (t) => {
  const ref = await startWatchedReference({ hourlyLimit: 18_000, burst: 100 });
  try {
    // A previous run's Playwright report (--runner playwright) in the same folder: this run writes
    // none, and the partial report must neither sit beside the old one nor link to it.
    const stale = join(ref.dir, 'out', 'playwright');
    mkdirSync(stale, { recursive: true });
    writeFileSync(join(stale, 'index.html'), '<p>the previous run</p>');
    const x = await interruptWhen(ref, () => ref.arrivals.length >= 40);
    assertCleanStop(t, ref, x, 'contracts', IN_FLIGHT_MS);
    assert.equal(existsSync(stale), false, "the previous run's playwright/ is still there");
    assert.doesNotMatch(readFileSync(join(x.out, 'index.html'), 'utf8'), /data-link="playwright"/);
    const notRun = x.results.checks.filter((c) => c.verdict === 'error' && /interrupted/i.test(c.message));
    assert.ok(notRun.length > 0, 'no check is marked as not run because of the interruption');
    assert.ok(
      x.results.checks.some((c) => c.rule.startsWith('RL-') && /interrupted/i.test(c.message)),
      'the probes are not marked as not run',
    );
  } finally {
    await ref.close();
  }
});
