// Phase 2: the drain. A short burst at twice the per-second cap while quota is plentiful shows the
// cap (RL-10) and what its rejections look like (RL-13). Once fewer than the cap remain in the last
// second, the drain goes on under the cap, spaced so that no second can hold more than the cap
// whatever the network delays, until the limiter's first 429 (RL-06, RL-11).
import { is2xx } from '../../src/http/status.js';
import { surelyUnderCap, underCapSpacingMs, WINDOW_MS } from '../model/cap.js';
import type { Sample, Session } from '../session.js';

export interface DrainPlan {
  cap: number;
  /** Send above the cap first (RL-10, RL-13). */
  capBurst: boolean;
  /** Then drain under the cap until the limiter's first 429 (otherwise the burst is all). */
  exhaust: boolean;
  /** Requests of the burst beyond the cap, and its rate as a multiple of the cap. */
  burstExtra: number;
  burstRateFactor: number;
  /** T as far as known before the drain (ms, lower end): the leak the drain must outpace. */
  leakMs: number;
  /** Requests beyond the forecast (in flight at the first 429, forecast error). */
  slack: number;
}

export interface DrainResult {
  burst: Sample[];
  underCap: Sample[];
  /** The first non-2xx answer under the cap: the limiter's denial that ends the drain. */
  firstDenial?: Sample;
  spacingMs: number;
  /** Round-trip allowance the spacing was computed with, ms. */
  rttAllowanceMs: number;
  /** Why the burst was not sent, when it was wanted. */
  burstNote?: string;
}

const rttOf = (s: Sample) => s.receivedAt - s.sentAt;

/**
 * A refusal that surely came from the limiter: fewer than the cap can have arrived in the second
 * before it (counting every request answered so far), or it carries the limiter's headers.
 */
function isLimiterDenial(samples: readonly Sample[], s: Sample, cap: number): boolean {
  if (s.status === undefined || is2xx(s)) return false;
  if (s.rl.raw.limit !== undefined || s.rl.raw.remaining !== undefined) return true;
  return surelyUnderCap(samples, samples.indexOf(s), cap);
}

export interface DrainShape {
  burstRequests: number;
  /** Most under-cap requests the drain will send. */
  underCapRequests: number;
  durationMs: number;
  spacingMs: number;
  /** Round-trip allowance the spacing was computed with, ms. */
  rttAllowanceMs: number;
}

/**
 * How long and how many requests the drain takes with `remaining` quota left: under the cap it
 * gains on the leak by (1 - spacing/T) per request, after the burst has used up to a cap's worth.
 */
export function drainShape(plan: DrainPlan, remaining: number, rttMs: number): DrainShape {
  const rttAllowanceMs = rttMs * 1.25 + 5;
  const spacingMs = underCapSpacingMs(plan.cap, rttAllowanceMs);
  const burstRequests = plan.capBurst ? plan.cap + plan.burstExtra : 0;
  const burstMs = plan.capBurst ? burstRequests * (WINDOW_MS / (plan.cap * plan.burstRateFactor)) + WINDOW_MS : 0;
  const left = Math.max(remaining - (plan.capBurst ? plan.cap : 0), 0) + burstMs / plan.leakMs;
  const gain = 1 - spacingMs / plan.leakMs;
  const under = gain > 0.05 ? left / gain : left * 20;
  const underCapRequests = plan.exhaust ? Math.ceil(under + plan.slack) : 0;
  return { burstRequests, underCapRequests, spacingMs, rttAllowanceMs, durationMs: burstMs + underCapRequests * spacingMs };
}

export async function runDrain(session: Session, plan: DrainPlan): Promise<DrainResult> {
  const last = session.samples[session.samples.length - 1];
  const result: DrainResult = { burst: [], underCap: [], spacingMs: 0, rttAllowanceMs: 0 };
  const remaining = last?.rl.remaining;
  const rtt0 = Math.max(0, ...session.samples.map(rttOf));
  session.enter('drain', drainShape(plan, remaining ?? plan.cap * 5, rtt0).durationMs);

  if (plan.capBurst && remaining !== undefined && remaining <= plan.cap) {
    result.burstNote = `only ${remaining} requests of quota were left, not more than the cap of ${plan.cap}`;
  } else if (plan.capBurst) {
    session.enter('drain: burst above the cap');
    const spacing = WINDOW_MS / (plan.cap * plan.burstRateFactor);
    const t0 = session.now() + 5;
    const pending: Promise<Sample>[] = [];
    for (let i = 0; i < plan.cap + plan.burstExtra; i++) {
      const at = t0 + i * spacing;
      await session.waitUntil(at);
      pending.push(session.fire('GET', `burst at ${plan.burstRateFactor}x the cap`, at));
    }
    result.burst = await Promise.all(pending);
  }
  if (!plan.exhaust) return result;

  const rtt = Math.max(0, ...session.samples.map(rttOf));
  // A request sent at t can only be refused for requests answered after t - W: resume once fewer
  // than the cap are. The burst leaves the window faster than the drain fills it.
  const answeredLate = session.samples.map((s) => s.receivedAt).sort((x, y) => y - x);
  // A refusal's retry-after (the proxy's 429s to the burst say 1 s) is waited out too.
  const waitedOut = session.samples.map((s) => (s.status !== undefined && s.status >= 300 && s.rl.retryAfter !== undefined ? s.receivedAt + s.rl.retryAfter * 1000 : -Infinity));
  const resumeAt = Math.max(session.now(), (answeredLate[plan.cap - 1] ?? -Infinity) + WINDOW_MS, ...waitedOut) + 5;
  const latest = session.samples.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a));
  const leftAtResume = (latest.rl.remaining ?? remaining ?? plan.cap * 5) + (resumeAt - latest.receivedAt) / plan.leakMs;
  const shape = drainShape({ ...plan, capBurst: false }, leftAtResume, rtt);
  result.spacingMs = shape.spacingMs;
  result.rttAllowanceMs = shape.rttAllowanceMs;
  session.enter('drain: under the cap', resumeAt - session.now() + shape.durationMs);
  const pending: Promise<Sample>[] = [];
  let stop = false;
  // After a stall (a busy machine) the schedule moves on by the delay rather than catching up:
  // a bunch of late requests could put more than the cap into one second.
  let shift = 0;
  for (let i = 0; i < shape.underCapRequests && !stop; i++) {
    const at = resumeAt + shift + i * result.spacingMs;
    await session.waitUntil(at);
    if (stop) break;
    const late = session.now() - at;
    if (late > result.spacingMs / 4) shift += late;
    pending.push(
      session.fire('GET', 'drain under the cap', at).then((s) => {
        if (isLimiterDenial(session.samples, s, plan.cap)) {
          stop = true;
          if (!result.firstDenial || s.seq < result.firstDenial.seq) result.firstDenial = s;
        }
        return s;
      }),
    );
  }
  result.underCap = await Promise.all(pending);
  return result;
}
