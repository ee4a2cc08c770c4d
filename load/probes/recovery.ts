// Phase 3: after the first denial.
//   before the edge: a HEAD at once (a 429 for HEAD; with retry-after 0 it is already past the edge)
//   one T later:     a GET one T after the last acceptance, long before Reset (RL-05)
//   after zero:      a HEAD right after that acceptance (Remaining 0: a 429, RL-06), whose wait is
//                    almost a whole T, so the retry-after it announces can really be tested:
//   at the edge:     a GET once that retry-after has passed (must succeed, RL-07)
//   tick-up:         a GET when the model says Remaining is back to at least 1 (RL-04, refines T)
//   after tick-up:   a HEAD right after (Remaining > 0: must succeed, RL-08)
import { analyze, tatAfterLast } from '../analysis.js';
import { burstOf, ceilSeconds, type Interval } from '../model/gcra.js';
import type { ReplayStep } from '../model/replay.js';
import type { Sample, Session } from '../session.js';

export interface RecoveryPlan {
  cap: number;
  /** The customer's T, used when the answers fit no single T. */
  declaredT: number;
  /** After a waited edge, and between back-to-back requests, ms. */
  marginMs: number;
  gapMs: number;
}

export interface RecoveryResult {
  beforeEdge?: Sample;
  oneTLater?: Sample;
  afterZero?: Sample;
  atEdge?: Sample;
  tickUp?: Sample;
  afterTickUp?: Sample;
  /** The retry-after edge the at-edge request waited for, engine ms, and the 429 that set it. */
  edge?: { at: number; from: number; retryAfter: number };
  notes: string[];
}

/** The longest honest retry-after for a denial, s: the replay's prediction, capped at ceil(T). */
export function retryAfterBound(step: ReplayStep | undefined, T: Interval | undefined): number | undefined {
  const byT = T ? ceilSeconds(T.hi) : undefined;
  const byModel = step?.prediction.denied?.retryAfter.hi;
  if (byModel === undefined || !Number.isFinite(byModel)) return byT;
  return byT === undefined ? byModel : Math.min(byModel, byT);
}

const isOk = (s?: Sample) => s?.status !== undefined && s.status >= 200 && s.status < 300;

export async function runRecovery(session: Session, denial: Sample, plan: RecoveryPlan): Promise<RecoveryResult> {
  const out: RecoveryResult = { notes: [] };
  const model = () => analyze(session.samples, plan.cap, { quick: true, declaredT: plan.declaredT });
  session.enter('recovery: before the retry-after edge');
  out.beforeEdge = await session.send('HEAD', 'right after the first 429, before its retry-after edge', denial.receivedAt + plan.marginMs);

  const m1 = model();
  const T = m1.T;
  const lastAccepted = [...m1.samples].reverse().find((s) => isOk(s));
  if (!T || !lastAccepted) {
    out.notes.push('T could not be estimated or nothing was accepted: recovery not followed');
    return out;
  }
  session.enter('recovery: one T after the last acceptance', lastAccepted.receivedAt + T.hi - session.now());
  out.oneTLater = await session.send('GET', 'one T after the last acceptance', Math.max(session.now(), lastAccepted.receivedAt + T.hi + plan.marginMs));
  if (!isOk(out.oneTLater)) {
    out.notes.push(`the request one T after the last acceptance got ${out.oneTLater.status ?? out.oneTLater.error}: recovery not followed further`);
    return out;
  }

  session.enter('recovery: retry-after edge');
  out.afterZero = await session.send('HEAD', 'right after an acceptance that used the recovered quota', out.oneTLater.receivedAt + plan.gapMs);
  const z = out.afterZero;
  if (z.status === 429 && z.rl.retryAfter !== undefined) {
    const m2 = model();
    // A GCRA wait after a denial is under one T, so retry-after can honestly be at most ceil(T) + 1 s.
    const bound = retryAfterBound(m2.steps[m2.samples.indexOf(z)], m2.T);
    if (bound !== undefined && z.rl.retryAfter > bound + 1) {
      out.notes.push(`retry-after ${z.rl.retryAfter} s is longer than the GCRA wait allows (at most ${bound} s + 1 s): not waited for`);
    } else {
      out.edge = { at: z.receivedAt + z.rl.retryAfter * 1000, from: z.seq, retryAfter: z.rl.retryAfter };
      out.atEdge = await session.send('GET', `once retry-after (${z.rl.retryAfter} s) has passed`, out.edge.at + plan.marginMs);
    }
  } else if (z.status === 429) out.notes.push('the 429 right after Remaining 0 had no usable retry-after: its edge cannot be tested');
  else out.notes.push(`the request right after Remaining 0 got ${z.status ?? z.error}, not 429: no retry-after edge to test`);

  // When Remaining will show at least 1: the backlog must fall to (burst - 1) x T.
  const m3 = model();
  const tat = tatAfterLast(m3);
  const last = session.samples.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a));
  const T3 = m3.T ?? T;
  let tickAt = last.receivedAt + 2 * T3.hi + plan.marginMs;
  if (tat && m3.limit !== undefined && Number.isFinite(tat.hi)) tickAt = Math.min(Math.max(tat.hi - (burstOf(m3.limit) - 1) * T3.lo, last.receivedAt) + plan.marginMs, tickAt + T3.hi);
  session.enter('recovery: Remaining ticks back up', tickAt - session.now());
  out.tickUp = await session.send('GET', 'when the model says Remaining is back to at least 1', tickAt);
  if ((out.tickUp.rl.remaining ?? 0) > 0 && isOk(out.tickUp)) {
    out.afterTickUp = await session.send('HEAD', 'right after an answer with Remaining > 0', out.tickUp.receivedAt + plan.gapMs);
  }
  return out;
}
