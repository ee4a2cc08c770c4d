// Phase 1: a short run faster than one request per T (GET and HEAD), then a pause as long as the
// last Reset, after which GCRA must show full quota again. Draining only a few requests keeps
// that pause at a few T. It also leaves the bucket in a known state (full) for the drain.
import { analyze } from '../analysis.js';
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
}

export interface DynamicsResult {
  first: Sample;
  /** The bucket was not full at the start (an earlier run, another client on the token): what was seen and done. */
  notFullAtStart?: { remaining?: number; limit?: number; waitedMs?: number; note: string };
  quick: Sample[];
  /** The answer after the pause, and the sample whose Reset set the pause. */
  full?: Sample;
  pausedAfter?: Sample;
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
  const waitS = first.rl.reset ?? first.rl.retryAfter;
  const state = `Remaining ${first.rl.raw.remaining ?? '?'} of Limit ${first.rl.raw.limit ?? '?'}${first.status === 429 ? ', status 429' : ''}`;
  if (waitS === undefined)
    return {
      first,
      notFull: {
        remaining: first.rl.remaining,
        limit: first.rl.limit,
        note: `the bucket was not full at the start (${state}) and no Reset said for how long`,
      },
    };
  const waitMs = waitS * 1000 + plan.marginMs;
  if (waitMs > session.env.budget.msLeft() - PLAN_ROOM_MS) {
    return {
      first,
      notFull: {
        remaining: first.rl.remaining,
        limit: first.rl.limit,
        note:
          `the bucket was not full at the start (${state}); waiting its Reset of ${waitS} s does not fit the time limit, ` +
          'so the run goes on with the quota left',
      },
    };
  }
  const note =
    `the bucket was not full at the start (${state}: an earlier run, another client on this token or a fleet's bucket-sharing probe); ` +
    `waiting its Reset of ${waitS} s for full quota`;
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
  if (reset === undefined) {
    result.note = 'the last answer had no usable X-RateLimit-Reset, so the time to full quota is unknown';
    return result;
  }
  // Waiting out Reset is only meaningful for a leaky bucket; answers no T explains (a fixed window,
  // say) leave the refill time unknown, and the later phases judge such a limiter without the wait.
  const model = analyze(session.samples, plan.cap, { quick: true });
  if (!model.estimate?.consistent) {
    result.note =
      `the answers so far fit no GCRA (Limit ${model.limit ?? 'unknown'}), so Reset ${reset} s says nothing certain ` +
      'about when the quota is full: not waited for';
    return result;
  }
  session.enter('dynamics: pause as long as the last Reset', reset * 1000);
  result.pausedAfter = last;
  result.full = await session.sendToLimiter(
    'GET',
    `after a pause as long as the last Reset (${reset} s)`,
    last.receivedAt + reset * 1000 + plan.marginMs,
  );
  return result;
}
