// RL-06 (after Remaining 0 comes a 429 with retry-after), RL-10 (at most the cap accepted in any
// one second), RL-11 (accepted before the first 429 as the GCRA forecast says, within one) and
// RL-13 (what a cap rejection looks like: observed).
import { mostCertainInWindow, WINDOW_MS } from '../model/cap.js';
import { forecastAcceptedRun } from '../model/replay.js';
import type { Sample } from '../session.js';
import { classOf, fmtT, notLimiters, ok, stepOf, type CheckInput, type Finding, type Known } from './common.js';

/** Retry-After as a non-negative number of seconds (the rule's wording); integers are what HTTP sends. */
export function retryAfterSeconds(s: Sample): number | undefined {
  const raw = s.rl.raw.retryAfter?.trim();
  return raw !== undefined && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : undefined;
}

/** Judged once the drain ran (index.ts: need `drain`). */
export function checkDenialAfterZero(input: CheckInput): Finding {
  const { a } = input;
  const problems: { s: Sample; why: string }[] = [];
  const instances: [Sample, Sample][] = [];
  for (let i = 0; i < a.samples.length - 1; i++) {
    const zero = a.samples[i]!;
    if (!ok(zero) || zero.rl.remaining !== 0 || !a.classes[i]!.underCap) continue;
    const next = a.samples.slice(i + 1).find((s) => s.status !== undefined && !notLimiters(input, s));
    if (!next) continue;
    if (classOf(input, next)?.limiterDenial) instances.push([zero, next]);
    else if (ok(next)) {
      const p = stepOf(input, next)?.prediction;
      if (p && !p.acceptPossible)
        problems.push({
          s: next,
          why: `#${next.seq} was accepted right after Remaining 0 (#${zero.seq}) though no quota could have recovered in between`,
        });
    } else problems.push({ s: next, why: `#${next.seq} after Remaining 0 got status ${next.status}, not 429` });
  }
  for (const c of a.classes) {
    if (c.limiterDenial && retryAfterSeconds(c.sample) === undefined) {
      const raw = c.sample.rl.raw.retryAfter;
      problems.push({
        s: c.sample,
        why:
          raw === undefined
            ? `429 #${c.sample.seq} has no retry-after header`
            : `429 #${c.sample.seq} has retry-after "${raw}", not a number of seconds`,
      });
    }
  }
  const evidence = {
    expected:
      'the next request after Remaining 0 (unless quota recovered meanwhile) gets 429 with retry-after: a non-negative number of seconds',
    actual: { instances: instances.length, problems: problems.slice(0, 5).map((p) => p.why) },
  };
  if (problems.length) {
    const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : '';
    return { verdict: 'fail', message: problems[0]!.why + more, evidence, samples: problems.map((p) => p.s) };
  }
  if (instances.length) {
    const retryAfters = instances.map(([, d]) => d.rl.raw.retryAfter).join(', ');
    return {
      verdict: 'pass',
      message: `${instances.length} time(s) the request after Remaining 0 got 429 with retry-after (${retryAfters} s)`,
      evidence,
      samples: instances.slice(0, 2).flat(),
    };
  }
  return {
    verdict: 'error',
    message: 'no request followed an answer with Remaining 0 before quota recovered',
    evidence: { ...evidence, cause: 'no instance' },
  };
}

export function checkCap(input: CheckInput, { drain }: Pick<Known, 'drain'>): Finding {
  // The plain requests: varied ones that step around the cap are RL-14's.
  const accepted = input.a.samples.filter((s) => ok(s) && !s.variation);
  const w = mostCertainInWindow(accepted);
  const burst = drain.burst;
  // The check stresses the cap only if more than the cap surely arrived within one second.
  const offered = mostCertainInWindow(burst).count;
  const rtts = accepted.map((s) => s.receivedAt - s.sentAt);
  const maxRtt = Math.max(0, ...rtts);
  const evidence = {
    expected: `at most ${input.cap} requests accepted in any one second`,
    actual: {
      mostAcceptedInOneSecond: w.count,
      windowMs: Math.round(w.to - w.from),
      burst: {
        sent: burst.length,
        surelyInOneSecond: offered,
        accepted: burst.filter(ok).length,
        rateFactor: 'x2 the cap',
        placed: drain.burstPlacement ?? null,
        underCapBefore: drain.leadIn.length + (drain.leadInVariations?.length ?? 0),
      },
    },
    tolerance:
      'an answer counts in a window only if its whole [sent, received] interval lies inside it ' +
      `(allowance = its round trip, at most ${maxRtt.toFixed(1)} ms here)`,
  };
  if (burst.length === 0)
    return {
      verdict: 'error',
      message: `inconclusive: no burst above the cap was sent${drain.burstNote ? ` (${drain.burstNote})` : ''}`,
      evidence: { ...evidence, cause: drain.burstNote ?? 'no burst' },
    };
  // A node that refuses the whole burst (503 to everything) shows no cap at all: 0 accepted is not a pass.
  if (!burst.some(ok))
    return {
      verdict: 'error',
      message: `inconclusive: none of the ${burst.length} burst requests was accepted, so the cap could not be seen`,
      evidence: { ...evidence, cause: 'nothing accepted' },
    };
  if (w.count <= input.cap && offered <= input.cap)
    return {
      verdict: 'error',
      message:
        `inconclusive: at most ${offered} burst requests surely arrived within one second ` +
        `(network delays of up to ${maxRtt.toFixed(0)} ms), not more than the cap`,
      evidence: { ...evidence, cause: 'cap not stressed' },
    };
  if (w.count > input.cap) {
    const members = w.members.map((i) => accepted[i]!);
    return {
      verdict: 'fail',
      message: `${w.count} requests were accepted within ${Math.round(w.to - w.from)} ms, over the cap of ${input.cap} per second`,
      evidence,
      samples: [members[0], members[members.length - 1], ...members],
    };
  }
  return {
    verdict: 'pass',
    message:
      `at most ${w.count} requests were accepted in any one second (cap ${input.cap}) ` +
      `while ${burst.length} were sent at twice the cap, ${drain.burstPlacement ?? 'at once'}`,
    evidence,
    samples: burst.slice(0, 2),
  };
}

export function checkAcceptedBeforeFirst429(
  input: CheckInput,
  { drain, limit, T }: Pick<Known, 'drain' | 'limit' | 'T'>,
): Finding {
  const { a } = input;
  const drained = new Set([
    ...drain.leadIn,
    ...(drain.leadInVariations ?? []),
    ...drain.burst,
    ...(drain.burstVariations ?? []),
    ...drain.underCap,
    ...(drain.underCapVariations ?? []),
  ]);
  // Refusals the proxy made, or may have made where the bucket may be empty, did not reach the limiter as far as anyone can tell.
  const reach = a.samples.filter(
    (s) =>
      drained.has(s) &&
      (a.capQuotaUse === 'yes' ? classOf(input, s)?.refusedBy !== 'either' : !notLimiters(input, s)) &&
      s.status !== undefined,
  );
  const firstIdx = a.samples.findIndex((s) => drained.has(s));
  const start = firstIdx > 0 ? a.steps[firstIdx - 1]!.tatAfter : { lo: -Infinity, hi: -Infinity };
  const rtts = reach.map((s) => s.receivedAt - s.sentAt).sort((x, y) => x - y);
  const then = { everyMs: drain.spacingMs, rttMs: rtts[Math.floor(rtts.length / 2)] ?? 0 };
  const forecast = forecastAcceptedRun(start, reach, T, limit, then);
  const denial = drain.firstDenial;
  const observed = reach.filter((s) => ok(s) && (!denial || s.seq < denial.seq)).length;
  const evidence = {
    expected: {
      acceptedBeforeFirst429: `${forecast.countLo}..${forecast.countHi}`,
      from: `Limit ${limit} plus what recovers at T ${fmtT(T)} while the drain sends, starting from the replayed bucket`,
    },
    actual: {
      acceptedBeforeFirst429: observed,
      firstDenial: denial?.seq ?? null,
      requestsReachingLimiter: reach.length,
    },
    tolerance: 'within one; cap rejections are left out (they do not reach the limiter)',
  };
  const withinOne = observed >= forecast.countLo - 1 && observed <= forecast.countHi + 1;
  const seen = `${observed} requests were accepted before the first 429`;
  const range = `${forecast.countLo}..${forecast.countHi}`;
  // No 429 in the drain (it ended first, as on a machine that sent too late to find the bucket
  // empty): the count stopped with the drain, not at the limiter. Only more than a GCRA accepts is known.
  if (!denial && observed <= forecast.countHi + 1)
    return {
      verdict: 'error',
      message:
        `inconclusive: the drain ended after ${observed} accepted request(s) without a 429, ` +
        `so the count before the first 429 is unknown (the GCRA forecast is ${range})`,
      evidence: { ...evidence, cause: 'no denial' },
      samples: reach.slice(-2),
    };
  if (withinOne)
    return {
      verdict: 'pass',
      message: `${seen}; the GCRA forecast is ${range}`,
      evidence,
      samples: denial ? [denial] : [],
    };
  return {
    verdict: 'fail',
    message: `${seen}; a GCRA with Limit ${limit} and T ${fmtT(T)} accepts ${range} (±1)`,
    evidence,
    samples: denial ? [denial] : reach.slice(-2),
  };
}

export function checkCapRejection(input: CheckInput, { burst }: Pick<Known, 'burst'>): Finding {
  const rejected = input.a.classes.filter((c) => c.capSuspect).map((c) => c.sample);
  const statuses: Record<string, number> = {};
  for (const s of rejected) statuses[String(s.status)] = (statuses[String(s.status)] ?? 0) + 1;
  const withRetry = rejected.filter((s) => s.rl.raw.retryAfter !== undefined);
  const withRl = rejected.filter(
    (s) => s.rl.raw.limit !== undefined || s.rl.raw.remaining !== undefined || s.rl.raw.reset !== undefined,
  );
  const observation = {
    rejections: rejected.length,
    statuses,
    retryAfter: { present: withRetry.length, values: [...new Set(withRetry.map((s) => s.rl.raw.retryAfter))] },
    rateLimitHeaders: { present: withRl.length },
    usedQuota: input.a.capQuotaUse,
    spacing: input.plan.spacing ?? null,
    contentType: rejected[0]?.exchange.responseHeaders['content-type'],
  };
  const usedQuota = {
    no: 'did not use quota',
    yes: 'used quota',
    undetermined: 'quota use undetermined',
    'not-seen': '',
  }[input.a.capQuotaUse];
  if (!rejected.length)
    return {
      verdict: 'observed',
      message: `no request of the burst (${burst.length} at twice the cap) was rejected`,
      evidence: { observation },
    };
  const byStatus = Object.entries(statuses)
    .map(([k, v]) => `${v}x ${k}`)
    .join(', ');
  const headers = `retry-after on ${withRetry.length}, rate-limit headers on ${withRl.length}`;
  return {
    verdict: 'observed',
    message: `the proxy refused ${rejected.length} request(s): ${byStatus}; ${headers}; ${usedQuota}${spacingNote(input)}`,
    evidence: { observation, window: `${WINDOW_MS} ms` },
    samples: rejected.slice(0, 3),
  };
}

/** What the proxy's refusals of requests under the cap taught the pacing, for RL-13's message. */
function spacingNote(input: CheckInput): string {
  const spacing = input.plan.spacing;
  if (!(spacing && spacing.refusals > 0)) return '';
  const refused =
    `; it refused ${spacing.refusals} request(s) sent under the cap, as a strict spacing does ` +
    `(widest refused gap ${Math.round(spacing.refusedGapMs ?? 0)} ms)`;
  return `${refused}: requests were then kept ${Math.round(spacing.gapMs)} ms apart`;
}
