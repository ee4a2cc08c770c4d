// RL-03 (faster than 1/T: Remaining falls, Reset grows, for GET and HEAD alike), RL-04 (a pause
// raises Remaining and lowers Reset; a pause as long as the last Reset restores a first-request
// look) and RL-12 (Reset agrees with Remaining and T). Directions are judged on answers whose order
// at the server is certain (no overlap of their network intervals); the model decides when a
// change is required, and whether a request was counted at all. A Reset no GCRA can send is RL-12's
// alone (its value is the evidence there): RL-03 and RL-04 judge what Remaining shows without it.
import { ceilSeconds, within, type Interval } from '../model/gcra.js';
import { replay, type ReplayInput } from '../model/replay.js';
import type { Sample } from '../session.js';
import { classOf, fmtT, ok, stepOf, type CheckInput, type Finding, type Known } from './common.js';

/** An answer with a Remaining to judge (its Reset is judged too where it has a usable one). */
const hasRlValues = (s: Sample) => s.rl.remaining !== undefined;

/** Both answers carry a usable Reset. */
const bothResets = (a: Sample, b: Sample) => a.rl.reset !== undefined && b.rl.reset !== undefined;

/** Why the Reset of these answers cannot be judged here, and which rule judges it. */
const unusableReset = (samples: readonly Sample[]) =>
  samples.some((s) => s.rl.impossible?.reset)
    ? 'a value no GCRA sends: RL-12 judges it'
    : 'missing or not an integer: RL-01 judges it';

/** Consecutive accepted answers (send order) whose network intervals do not overlap. */
function orderedAcceptedPairs(input: CheckInput, samples: readonly Sample[]): [Sample, Sample][] {
  const acc = samples.filter((s) => ok(s) && hasRlValues(s) && classOf(input, s)?.accepted);
  const pairs: [Sample, Sample][] = [];
  for (let i = 1; i < acc.length; i++) if (acc[i - 1]!.receivedAt <= acc[i]!.sentAt) pairs.push([acc[i - 1]!, acc[i]!]);
  return pairs;
}

/** What a quick-run request did to the bucket, read off the GET answered right after it. */
export interface MethodCharge {
  method: Sample['method'];
  seq: number;
  /** The GET after it, and what it showed (Reset when usable). */
  next: { seq: number; remaining: number; reset?: number };
  /** The model's answer for that GET with the request counted, and with it left out. */
  ifCounted: { remaining: Interval; reset: Interval };
  ifNotCounted: { remaining: Interval; reset: Interval };
  /** Which of the two the GET's answer fits ('either': both, 'neither': none). */
  seen: 'counted' | 'not counted' | 'either' | 'neither';
}

/**
 * For every accepted quick-run request followed (in a known order) by an accepted GET with headers:
 * the GCRA replay up to that GET, once with the request counted and once without it. A GET's count
 * is what the drain measures, so the GET after is the witness; the request's own headers say
 * nothing here (a limiter that does not count it may still answer as if it did).
 */
export function methodCharges(input: CheckInput, limit: number, T: Interval): MethodCharge[] {
  const { a } = input;
  const quick = (input.plan.dynamics?.quick ?? []).filter((s) => ok(s) && hasRlValues(s));
  const out: MethodCharge[] = [];
  for (let k = 0; k + 1 < quick.length; k++) {
    const x = quick[k]!;
    const next = quick[k + 1]!;
    const i = a.samples.indexOf(x);
    const j = a.samples.indexOf(next);
    if (next.method !== 'GET' || i < 0 || j <= i || x.receivedAt > next.sentAt) continue;
    const answerFor = (outcome: ReplayInput['outcome']) => {
      const inputs = a.inputs.slice(0, j + 1).map((v, n) => (n === i ? { ...v, outcome } : v));
      const p = replay(inputs, { limit, T, start: 'unknown' })[j]!.prediction.accepted;
      return p ? { remaining: p.remaining, reset: p.reset } : undefined;
    };
    const counted = answerFor('accepted');
    const notCounted = answerFor('bypassed');
    if (!counted || !notCounted) continue;
    const fits = (p: { remaining: Interval; reset: Interval }) =>
      within(next.rl.remaining!, p.remaining) && (next.rl.reset === undefined || within(next.rl.reset, p.reset));
    const [c, n] = [fits(counted), fits(notCounted)];
    out.push({
      method: x.method,
      seq: x.seq,
      next: {
        seq: next.seq,
        remaining: next.rl.remaining!,
        ...(next.rl.reset !== undefined ? { reset: next.rl.reset } : {}),
      },
      ifCounted: counted,
      ifNotCounted: notCounted,
      seen: c && n ? 'either' : c ? 'counted' : n ? 'not counted' : 'neither',
    });
  }
  return out;
}

const span = (r: Interval) => (r.lo === r.hi ? `${r.lo}` : `${r.lo}..${r.hi}`);

function chargeProblem(m: MethodCharge): string {
  return (
    `${m.method} #${m.seq} was not counted: the GET after it (#${m.next.seq}) showed Remaining ${m.next.remaining}` +
    `${m.next.reset === undefined ? '' : `, Reset ${m.next.reset} s`}, as if the ${m.method} had never reached the bucket ` +
    `(counted, it leaves Remaining ${span(m.ifCounted.remaining)}` +
    `${m.next.reset === undefined ? '' : `, Reset ${span(m.ifCounted.reset)} s`})`
  );
}

export function checkFasterThanT(input: CheckInput, { T, limit }: Pick<Known, 'T' | 'limit'>): Finding {
  const quick = (input.plan.dynamics?.quick ?? []).filter((s) => ok(s) && hasRlValues(s));
  if (quick.length < 2)
    return {
      verdict: 'error',
      message: 'the quick run got fewer than two accepted answers with rate-limit headers',
      evidence: { cause: 'too few answers' },
      samples: input.plan.dynamics?.quick,
    };
  // Arrivals are at most receivedAt - sentAt apart: that must be under T for the direction to be required.
  const fast = orderedAcceptedPairs(input, input.a.samples).filter(([a, b]) => b.receivedAt - a.sentAt < T.lo);
  const wrong = fast.filter(
    ([a, b]) => b.rl.remaining! > a.rl.remaining! || (bothResets(a, b) && b.rl.reset! < a.rl.reset!),
  );
  const first = quick[0]!;
  const last = quick[quick.length - 1]!;
  const p = stepOf(input, last)?.prediction.accepted;
  const mustFall = p !== undefined && p.remaining.hi < first.rl.remaining!;
  const mustGrow = p !== undefined && bothResets(first, last) && p.reset.lo > first.rl.reset!;
  const problems: string[] = [];
  if (wrong.length)
    problems.push(
      `${wrong.length} step(s) where Remaining rose or Reset fell, e.g. #${wrong[0]![0].seq}->#${wrong[0]![1].seq}`,
    );
  if (mustFall && !(last.rl.remaining! < first.rl.remaining!))
    problems.push(`Remaining did not fall over the quick run (${first.rl.remaining} -> ${last.rl.remaining})`);
  if (mustGrow && !(last.rl.reset! > first.rl.reset!))
    problems.push(`Reset did not grow over the quick run (${first.rl.reset} -> ${last.rl.reset})`);
  const charges = methodCharges(input, limit, T);
  const uncounted = charges.filter((m) => m.seen === 'not counted');
  problems.push(...uncounted.map(chargeProblem));
  const evidence = {
    expected: `each step faster than T (${fmtT(T)}): Remaining not up, Reset not down; over the quick run Remaining falls${mustGrow ? ' and Reset grows' : ''}`,
    actual: {
      quickRun: quick.map((s) => ({ seq: s.seq, remaining: s.rl.remaining, reset: s.rl.reset ?? s.rl.raw.reset })),
      stepsJudged: fast.length,
      wrongSteps: wrong.slice(0, 5).map(([a, b]) => `#${a.seq}->#${b.seq}`),
      // How each method moved the bucket: the GET after it, against the model with it counted and without.
      counted: charges,
      ...(input.a.uncharged
        ? { estimateLeavesOut: `${input.a.uncharged} (only without it does one T explain the answers)` }
        : {}),
    },
    tolerance:
      'steps whose network intervals overlap are not judged (their order at the server is unknown); ' +
      'a request counts as not counted only when the GET after it fits the model without it and not with it',
  };
  return problems.length
    ? {
        verdict: 'fail',
        message: problems.join('; '),
        evidence,
        samples: wrong.length ? [wrong[0]![0], wrong[0]![1], ...quick] : quick,
      }
    : fast.length === 0
      ? {
          verdict: 'error',
          message: `no two answers came faster than one per T (${fmtT(T)}) in a known order`,
          evidence: { ...evidence, cause: 'no step judged' },
          samples: quick,
        }
      : {
          verdict: 'pass',
          message:
            `over ${fast.length} steps faster than T, Remaining fell` +
            `${bothResets(first, last) ? ' and Reset grew' : ''} ` +
            (bothResets(first, last)
              ? `(${first.rl.remaining}/${first.rl.reset} s -> ${last.rl.remaining}/${last.rl.reset} s in the quick run)`
              : `(Remaining ${first.rl.remaining} -> ${last.rl.remaining} in the quick run)`) +
            `${bothResets(first, last) ? '' : `; Reset not judged here (${unusableReset(quick)})`}` +
            countedNote(charges),
          evidence,
          samples: quick,
        };
}

/** Which methods the GETs after them showed counted, for the pass message. */
function countedNote(charges: readonly MethodCharge[]): string {
  const shown = [...new Set(charges.filter((m) => m.seen === 'counted').map((m) => m.method))];
  return shown.length ? `; ${shown.join(' and ')} counted, as the GET after each showed` : '';
}

export function checkPauses(input: CheckInput, { pause }: Pick<Known, 'pause'>): Finding {
  const T = input.a.T;
  const { full, pausedAfter } = pause;
  const limit = input.a.limit;
  const made = input.plan.dynamics?.pause;
  // The pause the rule names (the last Reset), or the model's time to full when that Reset was not usable.
  const byModel = made?.basis === 'model';
  const pauseText = byModel
    ? `a pause of ${(made.ms / 1000).toFixed(2)} s, the model's time to full (${made.why})`
    : `a pause of the last Reset (${pausedAfter.rl.reset} s)`;
  const problems: string[] = [];
  // Every ordered pair of acceptances with a pause long enough that the model requires the change.
  const resetFalls = (a: Sample, b: Sample, p: { reset: Interval }) => bothResets(a, b) && p.reset.hi < a.rl.reset!;
  const pauses = orderedAcceptedPairs(input, input.a.samples).filter(([a, b]) => {
    const p = stepOf(input, b)?.prediction.accepted;
    return p !== undefined && (p.remaining.lo > a.rl.remaining! || resetFalls(a, b, p));
  });
  const wrong = pauses.filter(([a, b]) => {
    const p = stepOf(input, b)!.prediction.accepted!;
    return (
      (p.remaining.lo > a.rl.remaining! && !(b.rl.remaining! > a.rl.remaining!)) ||
      (resetFalls(a, b, p) && !(b.rl.reset! < a.rl.reset!))
    );
  });
  if (wrong.length)
    problems.push(
      `after ${wrong.length} pause(s) long enough for recovery, Remaining did not rise or Reset did not fall (e.g. #${wrong[0]![0].seq}->#${wrong[0]![1].seq})`,
    );
  const resetCap = T ? ceilSeconds(T.hi) : undefined;
  // A Reset that is not usable is judged by RL-01 (missing, not an integer) or RL-12 (no GCRA's): the look is Remaining's.
  const fullLook =
    limit !== undefined &&
    full.rl.remaining === limit - 1 &&
    (full.rl.reset === undefined || resetCap === undefined || full.rl.reset <= resetCap);
  // A pause the model set is judged only where the model, with the run's T, says it filled the bucket.
  const surelyFull =
    !byModel || (limit !== undefined && (stepOf(input, full)?.prediction.accepted?.remaining.lo ?? -1) >= limit - 1);
  let unjudged: string | undefined;
  if (!ok(full)) {
    if (surelyFull) problems.push(`after ${pauseText} the request got status ${full.status ?? full.error}`);
    else unjudged = `the request after it got status ${full.status ?? full.error}`;
  } else if (!fullLook) {
    const showed =
      `the answer showed Remaining ${full.rl.raw.remaining}, Reset ${full.rl.raw.reset}; ` +
      `a first answer shows Remaining ${limit === undefined ? 'Limit-1' : limit - 1}, Reset <= ${resetCap ?? 'ceil(T)'}`;
    if (surelyFull) problems.push(`after ${pauseText} ${showed}`);
    else unjudged = showed;
  }
  const resetZero = input.a.samples.filter((s) => s.rl.reset === 0).length;
  const evidence = {
    expected: {
      afterPause: 'Remaining up and Reset down whenever the model says the pause recovered quota',
      afterFullPause: { remaining: limit === undefined ? 'Limit-1' : limit - 1, resetAtMost: resetCap },
    },
    actual: {
      pausesJudged: pauses.length,
      full: { remaining: full.rl.raw.remaining, reset: full.rl.raw.reset },
      pause: {
        from: pausedAfter.seq,
        waitedMs: Math.round(full.sentAt - pausedAfter.receivedAt),
        lastReset: pausedAfter.rl.reset ?? pausedAfter.rl.raw.reset ?? null,
        setBy: byModel ? `the model's time to full: ${made.why}` : 'the last Reset',
      },
    },
    tolerance: `T ${fmtT(T)}; the pause counts from the previous answer's arrival, so the server saw at least the last Reset`,
    observation: { resetZeroShown: resetZero > 0, resetZeroAnswers: resetZero },
  };
  if (problems.length)
    return {
      verdict: 'fail',
      message: problems.join('; '),
      evidence,
      samples: [pausedAfter, full, ...(wrong[0] ?? [])],
    };
  if (unjudged !== undefined) {
    const cause = `${pauseText} was shorter than the bucket can need at T ${fmtT(T)}`;
    return {
      verdict: 'error',
      message: `${cause}, so whether the answer after it looks like a first one is not judged (${unjudged})`,
      evidence: { ...evidence, cause },
      samples: [pausedAfter, full],
    };
  }
  const looked =
    full.rl.reset === undefined
      ? `Remaining ${full.rl.remaining}; its Reset not judged here (${unusableReset([full])})`
      : `Remaining ${full.rl.remaining}, Reset ${full.rl.reset}`;
  return {
    verdict: 'pass',
    message:
      `${pauses.length} pause(s) raised Remaining${pauses.some(([a, b]) => bothResets(a, b)) ? ' and lowered Reset' : ''}; ` +
      `after ${byModel ? pauseText : `the last Reset (${pausedAfter.rl.reset} s)`} the answer looked like a first one (${looked})`,
    evidence,
    samples: [pausedAfter, full],
  };
}

/** Reset (whole seconds) allowed for an answer whose drain time lies in ttl, within one T plus a second. */
function resetWindow(ttl: Interval, T: Interval): Interval {
  return { lo: (ttl.lo - T.hi - 1000) / 1000, hi: (ttl.hi + T.hi + 1000) / 1000 };
}

export function checkResetAgrees(input: CheckInput, { limit, T }: Pick<Known, 'limit' | 'T'>): Finding {
  const counted = input.a.samples.filter((s) => ok(s) && s.rl.reset !== undefined);
  const bad: { s: Sample; why: string }[] = [];
  // A Reset no GCRA can send (a Unix timestamp, milliseconds, days where Limit x T allows seconds),
  // on any of the limiter's answers: its value is the evidence (model/possible.ts says why).
  const impossible = input.a.samples.filter(
    (s) => s.rl.impossible?.reset !== undefined && (ok(s) || classOf(input, s)?.limiterDenial),
  );
  for (const s of impossible) bad.push({ s, why: s.rl.impossible!.reset! });
  for (const s of counted) {
    const reset = s.rl.reset!;
    if (s.rl.remaining !== undefined && s.rl.remaining < limit) {
      const k = limit - s.rl.remaining;
      const w = resetWindow({ lo: (k - 1) * T.lo, hi: k * T.hi }, T);
      if (reset < w.lo || reset > w.hi)
        bad.push({
          s,
          why: `Reset ${reset} s but Remaining ${s.rl.remaining} means ${(((k - 1) * T.lo) / 1000).toFixed(1)}..${((k * T.hi) / 1000).toFixed(1)} s to drain`,
        });
    }
    const ttl = stepOf(input, s)?.prediction.accepted?.ttlMs;
    if (ttl && Number.isFinite(ttl.hi)) {
      const w = resetWindow(ttl, T);
      if (reset < w.lo || reset > w.hi)
        bad.push({
          s,
          why: `Reset ${reset} s but the model's drain time is ${(ttl.lo / 1000).toFixed(1)}..${(ttl.hi / 1000).toFixed(1)} s`,
        });
    }
  }
  bad.sort((x, y) => x.s.seq - y.s.seq);
  const evidence = {
    expected: 'Reset within one T plus one second of the drain time, computed from Remaining and from the GCRA replay',
    actual: {
      answers: counted.length + impossible.filter((s) => ok(s)).length,
      disagreeing: bad.length,
      examples: bad.slice(0, 5).map((b) => ({ seq: b.s.seq, reset: b.s.rl.raw.reset, why: b.why })),
      ...(impossible.length ? { noGcraSends: impossible.length } : {}),
    },
    tolerance: `±(T + 1 s), T ${fmtT(T)}, arrival within [sent, received]`,
  };
  return bad.length
    ? {
        verdict: 'fail',
        message: `${bad.length} answer(s) disagree: ${bad[0]!.why}`,
        evidence,
        samples: bad.map((b) => b.s),
      }
    : counted.length
      ? {
          verdict: 'pass',
          message: `Reset agreed with Remaining and T on all ${counted.length} accepted answers`,
          evidence,
        }
      : { verdict: 'error', message: 'no accepted answer carried Reset', evidence: { cause: 'no Reset' } };
}
