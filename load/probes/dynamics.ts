// Phase 1: a short run faster than one request per T (GET and HEAD), then a pause as long as the
// last Reset, after which GCRA must show full quota again. Draining only a few requests keeps
// that pause at a few T. It also leaves the bucket in a known state (full) for the drain.
// A wait rests on a header only as far as the model allows: a Reset no GCRA can send is parsed as
// absent (model/possible.ts), and one longer than the bucket can need at twice the customer's T
// gives way to the model's time to full ((Limit - Remaining) x T), as does a missing one.
import { analyze } from '../analysis.js';
import { ROUNDING_S, timeToFullMs } from '../model/possible.js';
import { hasLimiterHeaders } from '../model/proxy.js';
import { StopProbe, type Session, type Sample } from '../session.js';

export interface DynamicsPlan {
  cap: number;
  /** GET, HEAD, GET, GET... back to back (RL-01 GET/HEAD 2xx, RL-03, RL-12). */
  quickRun: boolean;
  /** Pause as long as the last Reset and look again: always (RL-04), or only when the bucket is not full (to start the drain full). */
  pause: 'always' | 'if-not-full' | 'never';
  /** Least time between the quick run's requests, ms (each also waits for the previous answer). */
  spacingMs: number;
  /** Added to a waited Reset, ms. */
  marginMs: number;
  /** The customer's T (3600 s / hourly limit), ms: what the model's waits rest on until the answers say more. */
  declaredT: number;
}

export interface DynamicsResult {
  first: Sample;
  /** The bucket was not full at the start (an earlier run, another client on the token): what was seen and done. */
  notFullAtStart?: { remaining?: number; limit?: number; waitedMs?: number; note: string };
  quick: Sample[];
  /** The answer after the pause, and the sample whose Reset set the pause. */
  full?: Sample;
  pausedAfter?: Sample;
  /**
   * How long the pause was and what set it: the last Reset (the rule's pause), or the model's time to
   * full, when that Reset was not usable (absent, or no GCRA's) or longer than the bucket can need.
   */
  pause?: { ms: number; basis: 'reset' | 'model'; why?: string };
  /** Why the pause was not made, when it was wanted. */
  note?: string;
}

/**
 * The quick run goes on until Reset shows at least 2 s, so that the pause spans more than Reset's
 * one-second rounding: 3 requests when T is about a second (enough to see a trend), more when T
 * is short (at most 16, well under any one-second cap). GET first, then HEAD, then GETs.
 */
export const QUICK_RUN = { min: 3, max: 16, resetAtLeast: 2 } as const;

/** Time a wait for full quota leaves the rest of the run, ms: the plan itself needs a few tens of seconds at most. */
export const PLAN_ROOM_MS = 60_000;

/**
 * A wait a header asks for is kept up to the model's time to full at this many times the T known so
 * far: a node slower than its customer's T is still waited for, a header no bucket of its Limit can
 * mean is not.
 */
export const HEADER_WAIT_SLACK = 2;

/**
 * The longest a header may make the plan wait for full quota, ms: the model's time to full from
 * this answer (Limit, Remaining; none on a refusal) at HEADER_WAIT_SLACK times T's upper end, plus
 * the second a header rounds up. Undefined without a Limit.
 */
export function headerWaitBoundMs(s: Sample, Thi: number): number | undefined {
  const limit = s.rl.limit;
  if (limit === undefined) return undefined;
  const ok = s.status !== undefined && s.status >= 200 && s.status < 300;
  return timeToFullMs(limit, ok ? s.rl.remaining : undefined, HEADER_WAIT_SLACK * Thi) + ROUNDING_S * 1000;
}

/** Probing on makes no sense when the node does not answer, or refuses the token. */
function assertAnswered(first: Sample): void {
  if (first.status === undefined)
    throw new StopProbe('network', `the node did not answer the first request (${first.error ?? 'no response'})`);
  if ((first.status < 200 || first.status >= 300) && first.status !== 429) {
    throw new StopProbe(
      'refused',
      `the node answered the first request with status ${first.status}, not 2xx or 429 (wrong token or endpoint?)`,
    );
  }
}

/** Looks like a first request: Remaining = Limit - 1. */
export const looksFull = (s: Sample): boolean =>
  s.rl.limit !== undefined && s.rl.remaining !== undefined && s.rl.remaining === s.rl.limit - 1;

/**
 * A bucket that is not full at the start is a normal state: the first answer says how long until it
 * is (Reset, or retry-after on a 429). The probes wait that long when the time budget allows, and
 * start again from a full bucket; otherwise they go on with what is left and say so.
 */
async function startFull(
  session: Session,
  first: Sample,
  plan: DynamicsPlan,
): Promise<{ first: Sample; notFull?: DynamicsResult['notFullAtStart'] }> {
  if (looksFull(first) || !hasLimiterHeaders(first)) return { first };
  const said = first.rl.reset ?? first.rl.retryAfter;
  const state = `Remaining ${first.rl.raw.remaining ?? '?'} of Limit ${first.rl.raw.limit ?? '?'}${first.status === 429 ? ', status 429' : ''}`;
  // Never longer than the bucket can need (at twice the customer's T); without a usable header, the
  // model's time to full at the customer's T.
  const bound = headerWaitBoundMs(first, plan.declaredT);
  const waitS = said !== undefined && (bound === undefined || said * 1000 <= bound) ? said : undefined;
  const ok = first.status !== undefined && first.status >= 200 && first.status < 300;
  const modelMs =
    first.rl.limit === undefined
      ? undefined
      : timeToFullMs(first.rl.limit, ok ? first.rl.remaining : undefined, plan.declaredT);
  if (waitS === undefined && modelMs === undefined)
    return {
      first,
      notFull: {
        remaining: first.rl.remaining,
        limit: first.rl.limit,
        note: `the bucket was not full at the start (${state}) and no Reset said for how long`,
      },
    };
  const waitMs = (waitS === undefined ? modelMs! : waitS * 1000) + plan.marginMs;
  const waitText =
    waitS !== undefined
      ? `its Reset of ${waitS} s`
      : `${(modelMs! / 1000).toFixed(2)} s, the model's time to full at the customer's T ` +
        `(${said === undefined ? 'no usable Reset said for how long' : `not the ${said} s it said, more than a bucket of its Limit needs`})`;
  if (waitMs > session.env.budget.msLeft() - PLAN_ROOM_MS) {
    return {
      first,
      notFull: {
        remaining: first.rl.remaining,
        limit: first.rl.limit,
        note:
          `the bucket was not full at the start (${state}); waiting ${waitText} does not fit the time limit, ` +
          'so the run goes on with the quota left',
      },
    };
  }
  const note =
    `the bucket was not full at the start (${state}: an earlier run, another client on this token or a fleet's bucket-sharing probe); ` +
    `waiting ${waitText} for full quota`;
  session.enter(`dynamics: ${note}`, waitMs);
  const again = await session.sendToLimiter(
    'GET',
    'first request after waiting for full quota',
    first.receivedAt + waitMs,
  );
  return {
    first: again,
    notFull: {
      remaining: first.rl.remaining,
      limit: first.rl.limit,
      waitedMs: Math.round(again.sentAt - first.receivedAt),
      note,
    },
  };
}

export async function runDynamics(session: Session, plan: DynamicsPlan): Promise<DynamicsResult> {
  session.enter('dynamics');
  const seen = await session.sendToLimiter('GET', 'first request: the state of the bucket');
  assertAnswered(seen);
  const { first, notFull } = await startFull(session, seen, plan);
  assertAnswered(first);
  const quick = [first];
  if (plan.quickRun) {
    for (let k = 1; k < QUICK_RUN.max; k++) {
      const prev = quick[quick.length - 1]!;
      if (prev.status !== undefined && (prev.status < 200 || prev.status >= 300)) break;
      if (k >= QUICK_RUN.min && (prev.rl.reset === undefined || prev.rl.reset >= QUICK_RUN.resetAtLeast)) break;
      const at = Math.max(first.sentAt + k * plan.spacingMs, prev.receivedAt + 1);
      quick.push(await session.sendToLimiter(k === 1 ? 'HEAD' : 'GET', 'quick run, faster than one per T', at));
    }
  }
  const result: DynamicsResult = { first, quick, ...(notFull ? { notFullAtStart: notFull } : {}) };
  const last = quick[quick.length - 1]!;
  if (plan.pause === 'never' || (plan.pause === 'if-not-full' && looksFull(last))) return result;
  const reset = last.rl.reset;
  const resetText = reset !== undefined ? `Reset ${reset} s` : `Reset "${last.rl.raw.reset ?? 'none'}"`;
  // Waiting out Reset is only meaningful for a leaky bucket; answers no T explains (a fixed window,
  // say) leave the refill time unknown, and the later phases judge such a limiter without the wait.
  const model = analyze(session.samples, plan.cap, { quick: true });
  if (!model.estimate?.consistent) {
    result.note =
      `the answers so far fit no GCRA (Limit ${model.limit ?? 'unknown'}), so ${resetText} says nothing certain ` +
      'about when the quota is full: not waited for';
    return result;
  }
  // The pause the rule names, unless the last Reset is not usable or longer than the bucket can need:
  // then the model's time to full, at the T the rules use so far (the customer's, or a sharp estimate).
  const Thi = Math.max(
    plan.declaredT,
    analyze(session.samples, plan.cap, { quick: true, declaredT: plan.declaredT }).T?.hi ?? 0,
  );
  const bound = headerWaitBoundMs(last, Thi);
  if (reset !== undefined && (bound === undefined || reset * 1000 <= bound)) {
    session.enter('dynamics: pause as long as the last Reset', reset * 1000);
    result.pausedAfter = last;
    result.pause = { ms: reset * 1000, basis: 'reset' };
    result.full = await session.sendToLimiter(
      'GET',
      `after a pause as long as the last Reset (${reset} s)`,
      last.receivedAt + reset * 1000 + plan.marginMs,
    );
    return result;
  }
  if (last.rl.limit === undefined) {
    result.note = `the last answer had no usable X-RateLimit-Limit or -Reset (${resetText}), so the time to full quota is unknown`;
    return result;
  }
  const ms = timeToFullMs(last.rl.limit, last.rl.remaining, Thi);
  const why =
    reset !== undefined
      ? `the last ${resetText} is longer than a bucket of Limit ${last.rl.limit} needs at twice T`
      : last.rl.impossible?.reset
        ? `the last ${resetText} is no GCRA's`
        : `the last answer had no usable Reset (${resetText})`;
  const secs = (ms / 1000).toFixed(2);
  session.enter(`dynamics: pause for the model's time to full (${secs} s): ${why}`, ms);
  result.pausedAfter = last;
  result.pause = { ms, basis: 'model', why };
  result.full = await session.sendToLimiter(
    'GET',
    `after a pause of the model's time to full (${secs} s; ${why})`,
    last.receivedAt + ms + plan.marginMs,
  );
  return result;
}
