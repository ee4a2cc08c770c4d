// Phase 3: after the first denial.
//   before the edge: a HEAD at once (a 429 for HEAD; with retry-after 0 it is already past the edge)
//   one T later:     a GET one T after the last acceptance, long before Reset (RL-05)
//   after zero:      a HEAD right after that acceptance (Remaining 0: a 429, RL-06), whose wait is
//                    almost a whole T, so the retry-after it announces can really be tested:
//   at the edge:     a GET once that retry-after has passed (must succeed, RL-07)
//   tick-up:         only while T is still uncertain: a GET when the model says Remaining is back
//                    to at least 1 (refines T), and a HEAD right after (Remaining > 0, RL-08)
// A 429 where the model expected an acceptance (one T later: a cache that replays a refusal, a
// limiter that recovers too slowly) is what RL-05 judges; its retry-after is a promise all the same,
// so a GET goes once that has passed (RL-07), and recovery is followed on from its answer.
import { is2xx as isOk } from '../../src/http/status.js';
import { analyze, tatAfterLast } from '../analysis.js';
import { burstOf } from '../model/gcra.js';
import { retryAfterBound } from '../model/retry-after.js';
import type { Sample, Session } from '../session.js';

export interface RecoveryPlan {
  cap: number;
  /** The customer's T, used when the answers fit no single T. */
  declaredT: number;
  /** After a waited edge, and between back-to-back requests, ms. */
  marginMs: number;
  gapMs: number;
  /** Runs right after the 429 that followed Remaining 0, while the bucket is empty (the integrity phase). */
  whileEmpty?: () => Promise<void>;
}

export interface RecoveryResult {
  beforeEdge?: Sample;
  oneTLater?: Sample;
  /**
   * When the request one T later got a 429 with a retry-after: each promise tested from there (the
   * 429 that made it, engine ms when it fell due) and the GET sent once it had passed. A broken one
   * is followed by a test of the promise its own 429 made, up to PROMISES_TESTED in all.
   */
  promises?: { at: number; from: number; retryAfter: number; test: Sample }[];
  afterZero?: Sample;
  atEdge?: Sample;
  tickUp?: Sample;
  afterTickUp?: Sample;
  /** The retry-after edge the at-edge request waited for, engine ms, and the 429 that set it. */
  edge?: { at: number; from: number; retryAfter: number };
  notes: string[];
}

/**
 * HEADs sent again, each right after the last answer, when the one meant to meet an empty bucket was
 * accepted: each was late enough for quota to leak back, which a starved machine can do several
 * times in a row. Each uses what leaked, so the bucket is empty again after it.
 */
export const AFTER_ZERO_RETRIES = 5;

/** Relative uncertainty of T above which the recovery phase also waits for Remaining to tick up. */
export const TICK_UP_WHEN_UNCERTAIN_BY = 0.005;

export async function runRecovery(session: Session, denial: Sample, plan: RecoveryPlan): Promise<RecoveryResult> {
  const out: RecoveryResult = { notes: [] };
  const model = () => analyze(session.samples, plan.cap, { quick: true, declaredT: plan.declaredT });
  session.enter('recovery: before the retry-after edge');
  out.beforeEdge = await session.sendToLimiter(
    'HEAD',
    'right after the first 429, before its retry-after edge',
    denial.receivedAt + plan.marginMs,
  );

  const m1 = model();
  const T = m1.T;
  const lastAccepted = [...m1.samples].reverse().find((s) => isOk(s));
  if (!T || !lastAccepted || m1.limit === undefined) {
    out.notes.push('Limit or T could not be estimated, or nothing was accepted: recovery not followed');
    return out;
  }
  // The next request is accepted once the backlog is back to burst x T. When the replay knows that
  // edge well (one T explains every answer), the request goes just after it, so that the one after
  // it waits almost a whole T; otherwise one T after the last acceptance (the edge is no later).
  // Never sooner than one T after that acceptance's answer on the client's clock, though: a refusal
  // there then surely came a whole T later, and RL-05 judges it (an answer read late, as on a busy
  // machine, puts the replay's edge before that, and a refusal at the edge proves nothing).
  const tat = m1.Tsource === 'estimate' ? tatAfterLast(m1) : undefined;
  const burst = burstOf(m1.limit);
  const edge =
    tat && Number.isFinite(tat.lo) && Number.isFinite(tat.hi)
      ? { lo: tat.lo - burst * T.hi, hi: tat.hi - burst * T.lo }
      : undefined;
  const byClock = lastAccepted.receivedAt + T.hi;
  const oneTAt = edge && edge.hi - edge.lo <= T.lo / 4 ? Math.max(edge.hi, byClock) : byClock;
  session.enter('recovery: one T after the last acceptance', oneTAt - session.now());
  out.oneTLater = await session.sendToLimiter(
    'GET',
    'once one T has leaked since the last acceptance',
    oneTAt + plan.marginMs,
  );
  let recovered = out.oneTLater;
  if (!isOk(recovered)) {
    const kept = await testPromise(session, recovered, plan, out, model);
    if (!kept) return out;
    recovered = kept;
  }
  // Use up anything else that leaked meanwhile, so the next request meets an empty bucket.
  for (let i = 0; i < 3 && (recovered.rl.remaining ?? 0) > 0; i++) {
    const next = await session.sendToLimiter(
      'GET',
      'using up the rest of the recovered quota',
      recovered.receivedAt + plan.gapMs,
    );
    if (!isOk(next)) break;
    recovered = next;
  }

  session.enter('recovery: retry-after edge');
  // On a busy machine the request may leave late enough for quota to have leaked again: an
  // acceptance used it, so the next one right after meets an empty bucket (a few tries at most: a
  // starved machine held three in a row up past T in a stress run).
  out.afterZero = await session.sendToLimiter(
    'HEAD',
    'right after an acceptance that used the recovered quota',
    recovered.receivedAt + plan.gapMs,
  );
  for (let i = 0; i < AFTER_ZERO_RETRIES && isOk(out.afterZero); i++) {
    out.afterZero = await session.sendToLimiter(
      'HEAD',
      'right after an acceptance that used the recovered quota (the last one was accepted)',
      out.afterZero.receivedAt + plan.gapMs,
    );
  }
  let z = out.afterZero;
  if (z.status === 429 && plan.whileEmpty) {
    await plan.whileEmpty();
    // A varied request sent late (a busy machine) may have been accepted on quota that leaked back
    // meanwhile: it used what z's retry-after promised. The edge is then tested from a fresh 429.
    for (let i = 0; i < 3 && session.samples.some((s) => s.seq > z.seq && isOk(s)); i++) {
      const last = session.samples.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a));
      const again = await session.sendToLimiter(
        'HEAD',
        'right after the integrity phase, which had a request accepted: an empty bucket again',
        last.receivedAt + plan.gapMs,
      );
      if (again.status !== 429) continue;
      z = again;
    }
    if (session.samples.some((s) => s.seq > z.seq && isOk(s)))
      out.notes.push(`a request after the 429 #${z.seq} was accepted and the bucket could not be emptied again`);
  }
  if (z.status === 429 && z.rl.retryAfter !== undefined) {
    const m2 = model();
    // A GCRA wait after a denial is under one T, so retry-after can honestly be at most ceil(T) + 1 s.
    const bound = retryAfterBound(m2.steps[m2.samples.indexOf(z)], m2.T);
    if (bound !== undefined && z.rl.retryAfter > bound + 1) {
      out.notes.push(
        `retry-after ${z.rl.retryAfter} s is longer than the GCRA wait allows (at most ${bound} s + 1 s): not waited for`,
      );
    } else {
      out.edge = { at: z.receivedAt + z.rl.retryAfter * 1000, from: z.seq, retryAfter: z.rl.retryAfter };
      out.atEdge = await session.sendToLimiter(
        'GET',
        `once retry-after (${z.rl.retryAfter} s) has passed`,
        out.edge.at + plan.marginMs,
      );
    }
  } else if (z.status === 429)
    out.notes.push('the 429 right after Remaining 0 had no usable retry-after: its edge cannot be tested');
  else
    out.notes.push(
      `the request right after Remaining 0 got ${z.status ?? z.error}, not 429: no retry-after edge to test`,
    );

  // The tick-up is there to pin T down; when the answers so far already do, it is not worth its T.
  const m3 = model();
  const est = m3.estimate;
  if (est?.consistent && est.uncertaintyMs <= est.emissionIntervalMs * TICK_UP_WHEN_UNCERTAIN_BY) {
    out.notes.push(
      `T is already known to ±${((est.uncertaintyMs / est.emissionIntervalMs) * 100).toFixed(2)}%: the tick-up of Remaining was not probed`,
    );
    return out;
  }
  // When Remaining will show at least 1: the backlog must fall to (burst - 1) x T.
  const tat3 = tatAfterLast(m3);
  const last = session.samples.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a));
  const T3 = m3.T ?? T;
  let tickAt = last.receivedAt + 2 * T3.hi + plan.marginMs;
  if (tat3 && Number.isFinite(tat3.hi))
    tickAt = Math.min(Math.max(tat3.hi - (burst - 1) * T3.lo, last.receivedAt) + plan.marginMs, tickAt + T3.hi);
  session.enter('recovery: Remaining ticks back up', tickAt - session.now());
  out.tickUp = await session.sendToLimiter('GET', 'when the model says Remaining is back to at least 1', tickAt);
  if ((out.tickUp.rl.remaining ?? 0) > 0 && isOk(out.tickUp)) {
    out.afterTickUp = await session.sendToLimiter(
      'HEAD',
      'right after an answer with Remaining > 0',
      out.tickUp.receivedAt + plan.gapMs,
    );
  }
  return out;
}

/** Most unexpected 429s whose retry-after the recovery tests in a row before it stops following recovery. */
export const PROMISES_TESTED = 2;

/**
 * The request one T after the last acceptance got a refusal the model did not expect. A 429 with a
 * retry-after the GCRA can mean promises an acceptance once it has passed: a GET then tests it
 * (RL-07), and its acceptance is where recovery goes on from; a refused test made a promise of its
 * own, tested the same way (up to PROMISES_TESTED). Anything else ends the recovery with a note: no
 * promise to test, or one longer than a GCRA's wait (RL-07 fails on the value).
 */
async function testPromise(
  session: Session,
  first: Sample,
  plan: RecoveryPlan,
  out: RecoveryResult,
  model: () => ReturnType<typeof analyze>,
): Promise<Sample | undefined> {
  let refused = first;
  let got = `the request one T after the last acceptance got ${refused.status ?? refused.error}`;
  for (let i = 0; i < PROMISES_TESTED; i++) {
    const ra = refused.rl.retryAfter;
    if (refused.status !== 429 || ra === undefined) {
      out.notes.push(
        `${got}${refused.status === 429 ? ' without a usable retry-after' : ''}: recovery not followed further`,
      );
      return undefined;
    }
    const m = model();
    const bound = retryAfterBound(m.steps[m.samples.indexOf(refused)], m.T);
    if (bound !== undefined && ra > bound + 1) {
      out.notes.push(
        `${got} with retry-after ${ra} s, longer than the GCRA wait allows (at most ${bound} s + 1 s): not waited for`,
      );
      return undefined;
    }
    const at = refused.receivedAt + ra * 1000;
    session.enter(`recovery: the retry-after of an unexpected 429 (${ra} s)`, at - session.now());
    const test = await session.sendToLimiter(
      'GET',
      `once the retry-after (${ra} s) of the unexpected 429 #${refused.seq} has passed`,
      at + plan.marginMs,
    );
    (out.promises ??= []).push({ at, from: refused.seq, retryAfter: ra, test });
    if (isOk(test)) return test;
    got = `${got}, and the request once its retry-after (${ra} s) had passed got ${test.status ?? test.error}`;
    refused = test;
  }
  out.notes.push(`${got}: recovery not followed further`);
  return undefined;
}
