// RL-05 (recovery is gradual), RL-07 (retry-after honest both ways) and RL-08 (Remaining > 0
// under the cap means the next request is accepted).
import { retryAfterBound } from '../model/retry-after.js';
import { DEFAULT_PLAN } from '../plan.js';
import type { Sample } from '../session.js';
import { classOf, fmtT, notLimiters, ok, stepOf, type CheckInput, type Finding, type Known } from './common.js';

export function checkGradualRecovery(input: CheckInput, { recovery: rec, T }: Pick<Known, 'recovery' | 'T'>): Finding {
  const { a } = input;
  const problems: { why: string; samples: Sample[] }[] = [];

  // Remaining may rise only by what leaked meanwhile: for ordered acceptances j then k, with n
  // acceptances surely between (j included), Remaining_k <= Remaining_j - n + elapsed / T + 1.
  // A fixed window breaks this when its count starts over.
  const accepted = a.samples.filter((s) => ok(s) && s.rl.remaining !== undefined);
  for (let i = 1; i < accepted.length; i++) {
    const [prev, cur] = [accepted[i - 1]!, accepted[i]!];
    if (prev.receivedAt > cur.sentAt) continue;
    const n = 1 + accepted.filter((x) => x.sentAt >= prev.receivedAt && x.receivedAt <= cur.sentAt).length;
    const most = prev.rl.remaining! - n + (cur.receivedAt - prev.sentAt) / T.lo + 1;
    if (cur.rl.remaining! > most) {
      problems.push({
        why:
          `Remaining jumped from ${prev.rl.remaining} (#${prev.seq}) to ${cur.rl.remaining} (#${cur.seq}) ` +
          `in ${((cur.receivedAt - prev.sentAt) / 1000).toFixed(2)} s; ` +
          `at T ${fmtT(T)} at most ${Math.floor(most)} can have recovered`,
        samples: [prev, cur],
      });
    }
  }
  // A request about one T after the last acceptance succeeds, long before Reset elapses.
  const probes = [rec.atEdge, rec.oneTLater].filter((s): s is Sample => s !== undefined);
  const lastBefore = (s: Sample) => [...a.samples].reverse().find((x) => x.seq < s.seq && ok(x));
  // Judged within a quarter of the last Reset (a fixed window would still be closed). A refusal
  // fails only when one T has surely passed between the two (GCRA has leaked a request); an
  // acceptance counts when one T may have passed between the limiter's two decisions: an answer
  // that reached the client late (a busy machine) must not hide a recovery the limiter made.
  // Without a usable Reset (one no GCRA sends is RL-12's), the model's time to full stands for it.
  const resetMsOf = (prev: Sample): number | undefined => {
    if (prev.rl.reset !== undefined) return prev.rl.reset * 1000;
    const ttl = stepOf(input, prev)?.prediction.accepted?.ttlMs.lo;
    return ttl !== undefined && Number.isFinite(ttl) && ttl > 0 ? ttl : undefined;
  };
  const judged = probes
    .flatMap((p) => {
      const prev = lastBefore(p);
      const resetMs = prev && resetMsOf(prev);
      if (!prev || resetMs === undefined) return [];
      return [{ p, prev, resetMs, waited: p.sentAt - prev.receivedAt }];
    })
    .filter((x) => {
      const surely = x.waited >= T.hi;
      const maybe = ok(x.p) && x.p.receivedAt - x.prev.sentAt >= T.lo;
      return (surely || maybe) && x.waited * 4 <= x.resetMs;
    });
  const success = judged.find((x) => ok(x.p));
  const failed = judged.filter((x) => x.waited >= T.hi && classOf(input, x.p)?.limiterDenial);
  const resetText = (x: { prev: Sample; resetMs: number }) =>
    x.prev.rl.reset !== undefined
      ? `Reset ${x.prev.rl.reset} s`
      : `the model's time to full ${(x.resetMs / 1000).toFixed(1)} s, its Reset not usable`;
  for (const x of failed) {
    problems.push({
      why:
        `#${x.p.seq} sent ${(x.waited / 1000).toFixed(2)} s after the last acceptance ` +
        `(#${x.prev.seq}, ${resetText(x)}) got 429; a GCRA has recovered one request after T ${fmtT(T)}`,
      samples: [x.prev, x.p],
    });
  }
  const evidence = {
    expected:
      'about one T after the last acceptance a request succeeds, long before Reset elapses; Remaining rises only by what leaks at one per T',
    actual: {
      judged: judged.map((x) => ({
        seq: x.p.seq,
        afterMs: Math.round(x.p.sentAt - x.prev.receivedAt),
        status: x.p.status,
        resetThen: x.prev.rl.reset ?? `model: ${Math.round(x.resetMs)} ms`,
      })),
      problems: problems.slice(0, 5).map((p) => p.why),
    },
    tolerance:
      'judged when at most a quarter of the last Reset has passed, and at least T: surely for a refusal, ' +
      "possibly (between the limiter's two decisions) for an acceptance; rises: +1 for rounding; " +
      `T ${fmtT(T)} (${a.Tsource === 'declared' ? "the customer's T: no single T explains the answers" : 'estimated'})`,
  };
  if (problems.length)
    return { verdict: 'fail', message: problems[0]!.why, evidence, samples: problems.flatMap((p) => p.samples) };
  if (!success)
    return {
      verdict: 'error',
      message: "no request was sent about one T after the drain's last acceptance",
      evidence: { ...evidence, cause: rec.notes.join('; ') || 'no probe' },
    };
  const afterS = (success.p.sentAt - success.prev.receivedAt) / 1000;
  const still =
    success.prev.rl.reset !== undefined
      ? `Reset still said ${success.prev.rl.reset} s`
      : `the bucket still needed ${(success.resetMs / 1000).toFixed(1)} s to be full (the model's; its Reset not usable)`;
  return {
    verdict: 'pass',
    message: `a request ${afterS.toFixed(2)} s after the last acceptance succeeded while ${still}: recovery is gradual`,
    evidence,
    samples: [success.prev, success.p],
  };
}

/**
 * The least wait the model is sure of after a denial, when retry-after is shorter than it by more
 * than the plan's margin: the edge test alone catches such a value only when its request happens to
 * land after a refill (a chance of about margin / T per run), the model catches it on every 429 it
 * can place. Only where T is known to 1% and the step was surely a denial.
 */
/** How sharp the header estimate of T must be for the model to judge a retry-after as too short. */
const SHARP_T = 0.01;

function tooShort(input: CheckInput, s: Sample, retryAfterS: number): number | undefined {
  const { estimate: est, T } = input.a;
  // The replay's T must lie within a sharp estimate from the headers themselves (a wrong retry-after
  // makes the full model inconsistent, while Remaining alone still pins T down).
  if (!est || !T || est.uncertaintyMs > est.emissionIntervalMs * SHARP_T) return undefined;
  if (T.lo < est.band.lo || T.hi > est.band.hi) return undefined;
  const p = stepOf(input, s)?.prediction;
  if (!p?.denied || p.acceptPossible) return undefined;
  const least = p.denied.waitMs.lo;
  return retryAfterS * 1000 + DEFAULT_PLAN.marginMs < least ? Math.floor(least) : undefined;
}

/** One retry-after the recovery tested: the 429 that promised it, and the request sent once it had passed. */
interface PromiseTest {
  /** How the report names it. */
  what: string;
  edge: { at: number; from: number; retryAfter: number };
  test: Sample;
}

/** The promises the recovery tested: unexpected 429s' (from one T after the last acceptance on), and the edge after Remaining 0. */
function promiseTests(rec: Known['recovery']): PromiseTest[] {
  const out: PromiseTest[] = [];
  (rec.promises ?? []).forEach((p, i) =>
    out.push({
      what:
        i === 0
          ? 'the unexpected 429 one T after the last acceptance'
          : 'the 429 to the request testing the one before',
      edge: p,
      test: p.test,
    }),
  );
  if (rec.edge && rec.atEdge) out.push({ what: 'the 429 right after Remaining 0', edge: rec.edge, test: rec.atEdge });
  return out;
}

export function checkRetryAfterHonest(input: CheckInput, { recovery: rec }: Pick<Known, 'recovery'>): Finding {
  const { a } = input;
  const problems: { why: string; samples: Sample[] }[] = [];
  const values: { seq: number; retryAfter: number | string; modelMax?: number }[] = [];
  for (const c of a.classes) {
    if (!c.limiterDenial) continue;
    const impossible = c.sample.rl.impossible?.retryAfter;
    if (impossible !== undefined) {
      // A value no GCRA can send (model/possible.ts): never waited for, failed with the value.
      values.push({ seq: c.sample.seq, retryAfter: c.sample.rl.raw.retryAfter ?? '' });
      problems.push({ why: `429 #${c.sample.seq}: ${impossible}`, samples: [c.sample] });
      continue;
    }
    const ra = c.sample.rl.retryAfter;
    if (ra === undefined) continue;
    const hi = retryAfterBound(stepOf(input, c.sample), a.T);
    values.push({ seq: c.sample.seq, retryAfter: ra, modelMax: hi });
    if (hi !== undefined && ra > hi + 1) {
      problems.push({
        why: `429 #${c.sample.seq} said retry-after ${ra} s; the GCRA wait rounds up to at most ${hi} s (+1 s allowed)`,
        samples: [c.sample],
      });
    }
    const short = tooShort(input, c.sample, ra);
    if (short !== undefined)
      problems.push({
        why:
          `429 #${c.sample.seq} said retry-after ${ra} s, but the GCRA model puts the wait at ${short} ms at least: ` +
          'a request sent once that had passed would still be refused',
        samples: [c.sample],
      });
  }
  // Every promise tested is judged on its own answer, whatever came before the 429 that made it.
  const tests = promiseTests(rec).map((t) => ({
    ...t,
    // A request the limiter accepted between the 429 and the test (a varied one, sent late by a busy
    // machine once quota had leaked back) used what retry-after promised: the test says nothing.
    spoiler: a.samples.find((s) => s.seq > t.edge.from && s.seq < t.test.seq && ok(s)),
  }));
  const fromOf = (t: PromiseTest) => a.samples.find((s) => s.seq === t.edge.from);
  for (const t of tests) {
    if (ok(t.test) || notLimiters(input, t.test) || t.spoiler) continue;
    problems.push({
      why:
        `#${t.test.seq} sent once retry-after ${t.edge.retryAfter} s (from #${t.edge.from}, ${t.what}) ` +
        `had passed still got ${t.test.status ?? t.test.error}`,
      samples: [fromOf(t)!, t.test],
    });
  }
  const kept = tests.filter((t) => ok(t.test));
  const evidence = {
    expected:
      'a request sent once retry-after has passed succeeds; retry-after is at most the GCRA wait rounded up, plus 1 s',
    actual: {
      retryAfters: values.slice(0, 10),
      atEdge: rec.atEdge
        ? {
            seq: rec.atEdge.seq,
            status: rec.atEdge.status,
            waitedMs: rec.edge ? Math.round(rec.atEdge.sentAt - (rec.edge.at - rec.edge.retryAfter * 1000)) : undefined,
          }
        : null,
      promisesTested: tests.map((t) => ({
        promisedBy: t.edge.from,
        what: t.what,
        retryAfter: t.edge.retryAfter,
        seq: t.test.seq,
        status: t.test.status ?? null,
        waitedMs: Math.round(t.test.sentAt - (t.edge.at - t.edge.retryAfter * 1000)),
      })),
    },
    tolerance: `+1 s on the value (rule); the edge is counted from the 429's arrival, plus ${DEFAULT_PLAN.marginMs} ms`,
  };
  if (problems.length)
    return { verdict: 'fail', message: problems[0]!.why, evidence, samples: problems.flatMap((p) => p.samples) };
  const spoiled = tests.find((t) => t.spoiler && !ok(t.test));
  if (!kept.length && spoiled) {
    const cause =
      `#${spoiled.spoiler!.seq} was accepted after the 429 #${spoiled.edge.from} and before the edge request ` +
      `#${spoiled.test.seq}, using the quota retry-after promised`;
    return {
      verdict: 'error',
      message: `the retry-after edge could not be tested: ${cause}`,
      evidence: { ...evidence, cause },
      samples: [spoiled.spoiler, spoiled.test],
    };
  }
  if (!kept.length)
    return {
      verdict: 'error',
      message: `the request at the retry-after edge was not made: ${rec.notes.join('; ') || 'no usable retry-after'}`,
      evidence: { ...evidence, cause: rec.notes.join('; ') || 'no edge' },
    };
  const waited =
    kept.length === 1
      ? `waiting retry-after (${kept[0]!.edge.retryAfter} s) was enough (#${kept[0]!.test.seq} accepted)` +
        (kept[0]!.test !== rec.atEdge ? ` after ${kept[0]!.what} #${kept[0]!.edge.from}` : '')
      : `waiting retry-after was enough each time: ${kept
          .map((t) => `${t.edge.retryAfter} s after ${t.what} #${t.edge.from} (#${t.test.seq} accepted)`)
          .join(', ')}`;
  return {
    verdict: 'pass',
    message: `${waited} and ${values.length} retry-after value(s) were within the GCRA wait`,
    evidence,
    samples: kept.flatMap((t) => [fromOf(t), t.test]),
  };
}

export function checkRemainingTruthful(input: CheckInput): Finding {
  const { a } = input;
  const consumes = (s: Sample) =>
    ok(s) || s.status === undefined || (a.capQuotaUse === 'yes' && classOf(input, s)?.capSuspect === true);
  const instances: { prev: Sample; s: Sample; between: number }[] = [];
  const problems: { prev: Sample; s: Sample; between: number }[] = [];
  for (const [i, c] of a.classes.entries()) {
    const s = c.sample;
    if (!c.underCap || s.status === undefined || notLimiters(input, s)) continue;
    // The freshest accepted answer the client had when it sent s.
    let prev: Sample | undefined;
    for (const x of a.samples)
      if (x !== s && ok(x) && x.receivedAt <= s.sentAt && (!prev || x.receivedAt > prev.receivedAt)) prev = x;
    if (!prev || prev.rl.remaining === undefined || prev.rl.remaining <= 0) continue;
    // Requests that may have been counted between prev and s.
    const between = a.samples.filter(
      (x, j) => j !== i && x !== prev && x.sentAt < s.receivedAt && x.receivedAt > prev!.sentAt && consumes(x),
    ).length;
    if (prev.rl.remaining <= between) continue;
    instances.push({ prev, s, between });
    if (!ok(s)) problems.push({ prev, s, between });
  }
  const evidence = {
    expected:
      'a request sent while the last Remaining exceeded the requests that may have been counted since (and under the cap) is accepted',
    actual: {
      instances: instances.length,
      refused: problems.slice(0, 5).map((p) => ({
        seq: p.s.seq,
        status: p.s.status,
        lastRemaining: p.prev.rl.remaining,
        from: p.prev.seq,
        countedBetween: p.between,
      })),
    },
    tolerance: 'requests whose network intervals overlap are counted against the quota',
  };
  const first = problems[0];
  return first
    ? {
        verdict: 'fail',
        message:
          `#${first.s.seq} got ${first.s.status} although #${first.prev.seq} said Remaining ${first.prev.rl.remaining} ` +
          `(${first.between} request(s) possibly counted between)`,
        evidence,
        samples: problems.flatMap((p) => [p.prev, p.s]),
      }
    : instances.length
      ? {
          verdict: 'pass',
          message: `${instances.length} request(s) sent while Remaining was > 0 under the cap were all accepted`,
          evidence,
        }
      : {
          verdict: 'error',
          message: 'no request was sent while a Remaining > 0 was known',
          evidence: { ...evidence, cause: 'no instance' },
        };
}
