// Phase 2: the drain. A short burst at twice the per-second cap while quota is plentiful shows the
// cap (RL-10) and what its rejections look like (RL-13). Once fewer than the cap remain in the last
// second, the drain goes on under the cap, spaced so that no second can hold more than the cap
// whatever the network delays, until the limiter's first 429 (RL-06, RL-11).
import { mostCertainInWindow, surelyUnderCap, underCapSpacingMs, WINDOW_MS } from '../model/cap.js';
import { hasLimiterHeaders, headerlessRefusal, quotaKnownLeft, spacesRequests } from '../model/proxy.js';
import { percentile } from '../engine/stats.js';
import { nextBoundary, serverClockOffset } from '../model/clock.js';
import type { Sample, Session } from '../session.js';
import type { Variation } from '../variations.js';

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
  /**
   * The longest a refusal's retry-after may hold the drain, ms: a cap's second, or a GCRA's wait
   * (under one T) at twice T's upper end, rounded up. A longer value no cap or bucket needs sets no wait.
   */
  retryWaitMaxMs?: number;
  /** Requests beyond the forecast (in flight at the first 429, forecast error). */
  slack: number;
  /** The least gap kept between paced sends (Session.paceMs: a cap interval with margin, or what the proxy taught), ms. */
  minGapMs?: number;
  /** Varied requests that take the places of the lead-in's first plain ones (load/variations.ts leadInVariations). */
  leadIn?: readonly Variation[];
  /** Varied requests for RL-14's cap part (load/variations.ts capVariations). */
  varied?: {
    /** Sent at the burst's rate right after its plain ones (at least cap + 1 of them), while the cap is full. */
    burst: readonly Variation[];
    /**
     * Sent between the first under-cap requests, when the burst showed a proxy that spaces requests
     * (its plain requests alone fill no second there, so the burst's few varied ones cannot show the cap).
     */
    underCap: readonly Variation[];
  };
}

export interface DrainResult {
  /** Under the cap before the burst, while finding the server's second boundary. */
  leadIn: Sample[];
  /** The varied requests sent first in the lead-in, in place of plain ones (DrainPlan.leadIn). */
  leadInVariations?: Sample[];
  burst: Sample[];
  /** The varied requests that followed the burst's plain ones (RL-14; not RL-10's). */
  burstVariations?: Sample[];
  /** The varied requests sent between the first under-cap requests (RL-14), behind a proxy that spaces them. */
  underCapVariations?: Sample[];
  /** Where the burst was placed and why (RL-10's evidence). */
  burstPlacement?: string;
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
 * The round trip the under-cap spacing allows for: the median, not the maximum, so that answers
 * stalled by a busy machine do not slow the whole drain. A request that did arrive too close to
 * others is not counted as surely under the cap: the analysis judges the real spans, and the
 * limiter's refusals are told apart by their headers.
 */
export function rttAllowanceOf(samples: readonly Sample[]): number {
  return percentile(
    samples.map(rttOf).sort((a, b) => a - b),
    50,
  );
}

/**
 * A refusal that ends the drain: it carries the limiter's headers, or it is headerless where the
 * proxy could not have refused it (quota not known to remain, fewer than the cap in the second
 * before, no sooner after the last forwarded request than twice the proxy's learned spacing).
 */
function isLimiterDenial(session: Session, s: Sample, cap: number): boolean {
  if (s.status === undefined || (s.status >= 200 && s.status < 300)) return false;
  if (hasLimiterHeaders(s)) return true;
  if (session.proxyMayHaveRefused(s)) return false;
  const left = quotaKnownLeft(session.samples, s);
  if (left !== undefined && left > 0) return false;
  return surelyUnderCap(session.samples, session.samples.indexOf(s), cap);
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
  const spacingMs = Math.max(underCapSpacingMs(plan.cap, rttAllowanceMs), plan.minGapMs ?? 0);
  const burstRequests = plan.capBurst ? burstSize(plan).plain + burstSize(plan).varied : 0;
  // The lead-in that finds the server's second boundary and waits for it (at most LEAD_IN_MAX_MS and a second) drains too.
  const burstMs = plan.capBurst
    ? burstRequests * (WINDOW_MS / (plan.cap * plan.burstRateFactor)) + 2 * WINDOW_MS + LEAD_IN_MAX_MS
    : 0;
  const left = Math.max(remaining - (plan.capBurst ? plan.cap : 0), 0) + burstMs / plan.leakMs;
  const gain = 1 - spacingMs / plan.leakMs;
  const under = gain > 0.05 ? left / gain : left * 20;
  const underCapRequests = plan.exhaust ? Math.ceil(under + plan.slack) : 0;
  return {
    burstRequests,
    underCapRequests,
    spacingMs,
    rttAllowanceMs,
    durationMs: burstMs + underCapRequests * spacingMs,
  };
}

/**
 * The burst's plain requests and the varied ones after them: the varied ones take the places of the
 * extra plain requests beyond cap + 1 (one more than the cap still shows it to RL-10), so RL-14 costs
 * the burst nothing there.
 */
export function burstSize(plan: DrainPlan): { plain: number; varied: number } {
  const varied = plan.varied?.burst.length ?? 0;
  return { plain: Math.max(plan.cap + 1, plan.cap + plan.burstExtra - varied), varied };
}

/** Longest a burst may be stretched by stalls of the client: with network delays it stays inside one second. */
export const BURST_SPAN_MAX_MS = 700;

/**
 * When the burst's next request goes, given when this one was due (`at`), how late it left, and how
 * many are still to go after it. After a stall (a busy machine) the burst moves on by the delay
 * rather than catching up: it stays at twice the cap, and the requests a catch-up would bunch
 * together are ones any cap refuses, so the drain would have to send more under the cap for the
 * quota they did not use. It moves on only as far as the rest still ends by BURST_SPAN_MAX_MS after
 * the burst's start (its plain span if longer): spread over more, fewer than the cap would surely
 * arrive within one second, and the cap goes untested on a small bucket that has no quota for a
 * second burst. Past that, the rest catches up.
 */
export function nextBurstAt(
  b: { t0: number; total: number; spacing: number },
  at: number,
  lateMs: number,
  left: number,
): number {
  const lastBy = b.t0 + Math.max((b.total - 1) * b.spacing, BURST_SPAN_MAX_MS);
  const movedOn = at + b.spacing + (lateMs > b.spacing / 4 ? lateMs : 0);
  return Math.min(movedOn, lastBy - (left - 1) * b.spacing);
}

/** Sends the burst: n plain requests, then the plan's varied ones at the same rate (into `varied`). */
async function sendBurst(
  session: Session,
  plan: DrainPlan,
  t0: number,
  n: number,
  spacing: number,
  varied: Sample[],
): Promise<Sample[]> {
  session.enter('drain: burst above the cap');
  const pending: Promise<Sample>[] = [];
  const tail = plan.varied?.burst ?? [];
  const tailPending: Promise<Sample>[] = [];
  const total = n + tail.length;
  let at = t0;
  for (let i = 0; i < total; i++) {
    await session.waitUntil(at);
    const late = session.now() - at;
    const v = tail[i - n];
    const purpose = `burst at ${plan.burstRateFactor}x the cap${v ? `: ${v.label}` : ''}`;
    (v ? tailPending : pending).push(session.fire('GET', purpose, at, 'burst', v));
    at = nextBurstAt({ t0, total, spacing }, at, late, total - i - 1);
  }
  varied.push(...(await Promise.all(tailPending)));
  return Promise.all(pending);
}

/**
 * How sharp the server's second boundary must be known before the burst is placed across it, ms: at
 * least this, or sharp enough that the burst, centred on it, surely has BOUNDARY_MARGIN_MS on each side.
 */
export const BOUNDARY_SHARP_MS = 200;
export const BOUNDARY_MARGIN_MS = 125;
/**
 * Longest the drain spends finding that boundary before the burst, ms. It costs neither time nor
 * quota: the lead-in drains under the cap as the drain after the burst would.
 */
export const LEAD_IN_MAX_MS = 3000;

const datedOf = (s: Sample) => ({
  sentAt: s.sentAt,
  receivedAt: s.receivedAt,
  date: s.exchange.responseHeaders['date'],
});

/**
 * Where the burst starts: across a second boundary of the server's clock (from its Date headers),
 * so that a cap counting per calendar second shows up to twice the cap inside one second. The
 * boundary is found by draining under the cap (requests the drain needs anyway) until two answers
 * straddle a second, as long as the quota the burst needs stays; it goes on draining until the
 * burst is due. Without a Date header, or without quota to spare, the burst starts at once.
 */
async function placeBurst(
  session: Session,
  plan: DrainPlan,
  burstMs: number,
  remaining: number | undefined,
  result: DrainResult,
): Promise<number> {
  const started = session.now();
  const rtt = rttAllowanceOf(session.samples);
  const step = () => Math.max(underCapSpacingMs(plan.cap, rtt * 1.25 + 5), session.paceMs);
  // Quota the burst needs left when it starts (the cap, the extra, and a few for rounding).
  const spare = () =>
    (remaining ?? Infinity) -
    result.leadIn.length -
    (result.leadInVariations?.length ?? 0) +
    (session.now() - started) / plan.leakMs -
    (burstSize(plan).plain + burstSize(plan).varied + 3);
  const offset = () => serverClockOffset(session.samples.filter((s) => s.status !== undefined).map(datedOf));
  const pending: Promise<Sample>[] = [];
  let due: number | undefined;
  let at = session.now();
  const varied = [...(plan.leadIn ?? [])];
  session.enter("drain: finding the server's second boundary (Date) under the cap");
  for (;;) {
    const o = offset();
    if (due === undefined && o && o.hi - o.lo <= Math.max(BOUNDARY_SHARP_MS, burstMs - 2 * BOUNDARY_MARGIN_MS)) {
      const b = nextBoundary(o, Math.max(session.now(), at) + burstMs / 2 + 5);
      due = (b.lo + b.hi) / 2 - burstMs / 2;
      result.burstPlacement = `across a second boundary of the server's clock (from its Date headers, known to ±${Math.round((o.hi - o.lo) / 2)} ms)`;
      session.enter('drain: under the cap until the burst is due', due - session.now());
    }
    const stopAt = due ?? started + LEAD_IN_MAX_MS;
    // Never sooner than a paced request may leave (Session.nextPacedAt).
    at = Math.max(at, session.nextPacedAt());
    if (at + step() > stopAt || spare() < 1) break;
    at = await session.waitPaced(at);
    const late = session.now() - at;
    const v = varied.shift();
    pending.push(
      v
        ? session
            .fire('GET', `drain under the cap, before the burst: ${v.label}`, at, 'spaced', v)
            .then((s) => ((result.leadInVariations ??= []).push(s), s))
        : session.fire('GET', 'drain under the cap, before the burst', at).then((s) => (result.leadIn.push(s), s)),
    );
    at += step() + (late > step() / 4 ? late : 0);
  }
  await Promise.all(pending);
  if (due === undefined) {
    const o = offset();
    result.burstPlacement = !o
      ? 'at once: the answers carried no usable Date header to place it across a server second'
      : `at once: the Date headers placed the server's second boundary only to ±${Math.round((o.hi - o.lo) / 2)} ms` +
        `${spare() < 1 ? ' (no quota to spare for finding it)' : ''}`;
    return session.now() + 5;
  }
  return Math.max(due, session.now() + 5);
}

export async function runDrain(session: Session, plan: DrainPlan): Promise<DrainResult> {
  const last = session.samples[session.samples.length - 1];
  const result: DrainResult = { leadIn: [], burst: [], underCap: [], spacingMs: 0, rttAllowanceMs: 0 };
  const remaining = last?.rl.remaining;
  const rtt0 = rttAllowanceOf(session.samples);
  session.enter('drain', drainShape(plan, remaining ?? plan.cap * 5, rtt0).durationMs);

  if (plan.capBurst && remaining !== undefined && remaining <= plan.cap) {
    result.burstNote = `only ${remaining} requests of quota were left, not more than the cap of ${plan.cap}`;
  } else if (plan.capBurst) {
    const spacing = WINDOW_MS / (plan.cap * plan.burstRateFactor);
    const n = burstSize(plan).plain;
    const t0 = await placeBurst(session, plan, (n - 1) * spacing, remaining, result);
    result.burstVariations = [];
    result.burst = await sendBurst(session, plan, t0, n, spacing, result.burstVariations);
    // A stalled machine can spread the burst so that no more than the cap surely arrived within one
    // second: the cap was not tested. Once more, after the window has cleared, if quota allows.
    // Quota left as the freshest limiter answer says (the latest answer may be a headerless refusal).
    const latest = session.samples.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a));
    const known = session.samples.filter((s) => s.rl.remaining !== undefined);
    const left = known.length ? known.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a)).rl.remaining : undefined;
    if (
      mostCertainInWindow(result.burst).count <= plan.cap &&
      left !== undefined &&
      left > plan.cap + plan.burstExtra
    ) {
      result.burstPlacement =
        `${result.burstPlacement ?? 'at once'}; sent again ${WINDOW_MS} ms later ` +
        'because fewer than the cap surely arrived within one second';
      result.burst.push(
        ...(await sendBurst(session, plan, latest.receivedAt + WINDOW_MS, n, spacing, result.burstVariations)),
      );
    }
  }
  if (!plan.exhaust) return result;

  /** When a refusal's retry-after, as far as a cap or the bucket can need it, has run out. */
  const retryAllowedAt = (s: Sample) =>
    s.status !== undefined && s.status >= 300 && s.rl.retryAfter !== undefined
      ? s.receivedAt + Math.min(s.rl.retryAfter * 1000, plan.retryWaitMaxMs ?? Infinity)
      : -Infinity;
  const rtt = rttAllowanceOf(session.samples);
  // A request sent at t can only be refused for requests answered after t - W: resume once fewer
  // than the cap are. The burst leaves the window faster than the drain fills it.
  // Only forwarded requests count: a cap counts what it let through, not what it refused.
  const answeredLate = session.samples
    .filter((s) => !headerlessRefusal(s))
    .map((s) => s.receivedAt)
    .sort((x, y) => y - x);
  // A refusal's retry-after (the proxy's 429s to the burst say 1 s) is waited out too, as far as a
  // cap or the bucket can need it.
  const waitedOut = session.samples.map(retryAllowedAt);
  const resumeAt = Math.max(session.now(), (answeredLate[plan.cap - 1] ?? -Infinity) + WINDOW_MS, ...waitedOut) + 5;
  const latest = session.samples.reduce((a, b) => (b.receivedAt > a.receivedAt ? b : a));
  const leftAtResume =
    (latest.rl.remaining ?? remaining ?? plan.cap * 5) + (resumeAt - latest.receivedAt) / plan.leakMs;
  const shape = drainShape({ ...plan, capBurst: false, minGapMs: session.paceMs }, leftAtResume, rtt);
  result.spacingMs = shape.spacingMs;
  result.rttAllowanceMs = shape.rttAllowanceMs;
  session.enter('drain: under the cap', resumeAt - session.now() + shape.durationMs);
  const pending: Promise<Sample>[] = [];
  let stop = false;
  // After a stall (a busy machine) the schedule moves on by the delay rather than catching up:
  // a bunch of late requests could put more than the cap into one second. The step never falls
  // under the paced gap (a cap interval with margin, or the proxy's spacing learned so far), and
  // each request the proxy refuses is made up for (they use no quota), up to the slack. No request
  // is due before a paced one may leave (Session.nextPacedAt: the gap after the previous actual
  // send, and after the previous request reached the server when it answered late).
  let at = resumeAt;
  let refused = 0;
  // A refusal the proxy made in the drain (a starved client's requests bunched at the cap) is made
  // up for, after its retry-after: nothing leaves while one is running.
  let heldUntil = -Infinity;
  // RL-14: behind a proxy that spaces requests, varied ones go between the first plain ones, one per
  // gap, where the plain ones alone keep the cap full.
  const mix = plan.varied && spacesRequests(session.samples, result.burst, plan.cap) ? [...plan.varied.underCap] : [];
  const mixed: Promise<Sample>[] = [];
  for (let i = 0; i < shape.underCapRequests + Math.min(refused, plan.slack) && !stop; i++) {
    at = await session.waitPaced(at);
    while (!stop && heldUntil > session.now()) at = await session.waitPaced(Math.max(at, heldUntil));
    if (stop) break;
    const scheduled = at;
    const step = Math.max(result.spacingMs, session.paceMs);
    const late = session.now() - at;
    if (late > step / 4) at += late;
    at += step;
    pending.push(
      session.fire('GET', 'drain under the cap', scheduled).then((s) => {
        if (session.proxyMayHaveRefused(s)) {
          refused++;
          heldUntil = Math.max(heldUntil, retryAllowedAt(s));
        } else if (isLimiterDenial(session, s, plan.cap)) {
          stop = true;
          if (!result.firstDenial || s.seq < result.firstDenial.seq) result.firstDenial = s;
        }
        return s;
      }),
    );
    const v = i >= 1 ? mix.shift() : undefined;
    if (v) {
      const mid = scheduled + step / 2;
      await session.waitUntil(mid);
      while (!stop && heldUntil > session.now()) await session.waitUntil(heldUntil);
      if (!stop) mixed.push(session.fire('GET', `drain under the cap: ${v.label}`, mid, 'aside', v));
    }
  }
  result.underCap = await Promise.all(pending);
  if (mixed.length) result.underCapVariations = await Promise.all(mixed);
  return result;
}
