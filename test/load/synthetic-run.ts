// Synthetic probe runs for the rate-limit checks' table tests: a plan-shaped list of samples
// (quick run, pause, burst above the cap, drain under the cap, recovery) sent on a virtual clock
// to the independent simulator (sim-horizon.ts), each answer optionally edited by the row, then
// analysed by the real `analyze` into the CheckInput the checks read, as load/suite.ts builds it.
import { analyze } from '../../load/analysis.js';
import type { CheckInput } from '../../load/checks/index.js';
import type { PhaseName, PhaseRecord, PlanOutcome } from '../../load/plan.js';
import type { DrainResult } from '../../load/probes/drain.js';
import type { DynamicsResult } from '../../load/probes/dynamics.js';
import type { SpacingSummary } from '../../load/model/proxy.js';
import type { RecoveryResult } from '../../load/probes/recovery.js';
import { parseRateLimitHeaders, type Sample } from '../../load/session.js';
import type { IntegrityResult } from '../../load/probes/integrity.js';
import { capVariations, integrityVariations, leadInVariations, tagOf, type Variation } from '../../load/variations.js';
import { seededRandom } from '../../src/random.js';
import { SimHorizon, type SimFault } from './sim-horizon.js';
import { timeToFullMs } from '../../load/model/possible.js';

/** What one answer looks like before it becomes a Sample: a row may change it. */
export interface Answer {
  status?: number;
  /** Header names in lower case, as the engine hands them over. */
  headers: Record<string, string>;
  error?: string;
}

/** Which request of the plan an answer belongs to. */
export type Step =
  | 'quick'
  | 'full'
  | 'leadIn'
  | 'burst'
  | 'burstVariation'
  | 'underCap'
  | 'beforeEdge'
  | 'oneTLater'
  | 'afterPromise'
  | 'afterZero'
  | 'integrity'
  | 'whileEmpty'
  | 'atEdge';

export interface SynthOptions {
  /** The limiter: 3600/h (T 1 s) and burst 9 (Limit 10) unless stated. */
  hourlyLimit?: number;
  burst?: number;
  /** The proxy's cap on passed requests per sliding second, and the one the checks are told. */
  perSecondCap?: number;
  declaredCap?: number;
  faults?: SimFault[];
  /** One-way network delay each way, ms. */
  delayMs?: number;
  /** Edits an answer before it becomes a Sample (seq: 0-based send order; variation: its id, for a varied request). */
  edit?: (a: Answer, at: { seq: number; step: Step; method: string; sentAt: number; variation?: string }) => Answer;
  /**
   * The drain's lead-in sends the token in each header form first, under the cap (as the real plan
   * does, load/variations.ts leadInVariations). Off unless asked, so the other rows' burst starts from
   * a full bucket.
   */
  leadIn?: boolean;
  /** Phases left out of the run, as if never made (the checks then find them missing). */
  skip?: ('pause' | 'burst' | 'drain' | 'recovery' | 'integrity')[];
  /** A phase record with this stop, as a budget cut leaves it. */
  stopped?: { phase: PhaseName; reason: string };
  /** What the proxy's refusals taught the pacing, as the plan reports it. */
  spacing?: SpacingSummary;
  /** No plan stated (RL-09 names the matching plan instead). */
  planAssumed?: boolean;
  /** Requests sent between the 429 after Remaining 0 and the retry-after edge (the real plan's integrity hook), one cap interval apart. */
  whileEmpty?: number;
  /** Varied requests (their ids) the proxy's cap does not see, while the GCRA limits them as the token's (RL-14). */
  pastCap?: string[];
  /**
   * Varied requests (their ids) the simulator never sees: a bucket of their own answers them, from
   * full, with the limiter's headers (RL-14's defect as a limiter keyed on the query string has it).
   */
  ownBucket?: string[];
  /** The customer's terms the checks are told (default: dedicated, the simulator's hourly limit). */
  customer?: string;
  statedHourlyLimit?: number;
}

export interface SynthRun {
  input: CheckInput;
  samples: Sample[];
}

/** A plan-shaped run against the simulator on a virtual clock starting at 0. */
export function synthRun(o: SynthOptions = {}): SynthRun {
  const hourlyLimit = o.hourlyLimit ?? 3600;
  const T = 3_600_000 / hourlyLimit;
  const cap = o.perSecondCap ?? 4;
  const delay = o.delayMs ?? 0.5;
  const sim = new SimHorizon({
    hourlyLimit,
    burst: o.burst ?? 9,
    perSecondCap: cap,
    delay: () => ({ in: delay, out: delay }),
    faults: new Set(o.faults ?? []),
  });
  const skip = new Set(o.skip ?? []);
  let ownUsed = 0;
  const ownAnswer = (sentAt: number) => ({
    status: 200,
    headers: {
      'X-RateLimit-Limit': String(sim.limit),
      'X-RateLimit-Remaining': String(sim.limit - 1 - ownUsed++),
      'X-RateLimit-Reset': String(Math.ceil((ownUsed * sim.T) / 1000)),
    },
    doneAt: sentAt + 2 * delay,
  });
  const samples: Sample[] = [];
  let phase = 'dynamics';
  // The simulator has one bucket for the token, whatever form or parameters a request varies (RL-14).
  const send = (step: Step, method: 'GET' | 'HEAD', sentAt: number, variation?: Variation): Sample => {
    const seq = samples.length;
    const own = variation !== undefined && (o.ownBucket ?? []).includes(variation.id);
    const a = own
      ? ownAnswer(sentAt)
      : sim.request(sentAt, method, variation !== undefined && (o.pastCap ?? []).includes(variation.id));
    let answer: Answer = {
      status: a.status,
      headers: Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k.toLowerCase(), v])),
    };
    if (o.edit) answer = o.edit(answer, { seq, step, method, sentAt, variation: variation?.id });
    const receivedAt = a.doneAt;
    const s: Sample = {
      seq,
      phase,
      purpose: step,
      method,
      scheduledAt: sentAt,
      sentAt,
      receivedAt,
      status: answer.status,
      rl: parseRateLimitHeaders(answer.headers),
      ...(answer.error ? { error: answer.error } : {}),
      exchange: {
        seq,
        method,
        url: 'http://horizon.test/fee_stats',
        requestHeaders: {},
        status: answer.status,
        responseHeaders: answer.headers,
        sentAt,
        receivedAt,
      },
      ...(variation ? { variation: tagOf(variation) } : {}),
    };
    samples.push(s);
    return s;
  };
  const rnd = seededRandom(7);
  const ok = (s: Sample) => s.status !== undefined && s.status >= 200 && s.status < 300;
  const phases: PhaseRecord[] = [];

  // 1. Dynamics: GET, HEAD, GET 5 ms apart, then a pause as long as the last Reset.
  const first = send('quick', 'GET', 0);
  const quick = [first, send('quick', 'HEAD', first.receivedAt + 5)];
  quick.push(send('quick', 'GET', quick[1]!.receivedAt + 5));
  const dynamics: DynamicsResult = { first, quick };
  const pausedAfter = quick[2]!;
  let now = pausedAfter.receivedAt;
  if (!skip.has('pause')) {
    dynamics.pausedAfter = pausedAfter;
    // The last Reset, or (not usable) the model's time to full at the customer's T, as the probe does.
    const reset = pausedAfter.rl.reset;
    const limit = pausedAfter.rl.limit ?? sim.limit;
    const modelMs = timeToFullMs(limit, pausedAfter.rl.remaining, 3_600_000 / (o.statedHourlyLimit ?? hourlyLimit));
    dynamics.pause =
      reset !== undefined
        ? { ms: reset * 1000, basis: 'reset' }
        : { ms: modelMs, basis: 'model', why: `the last Reset "${pausedAfter.rl.raw.reset}" is no GCRA's` };
    dynamics.full = send('full', 'GET', pausedAfter.receivedAt + dynamics.pause.ms + 25);
    now = dynamics.full.receivedAt;
  } else dynamics.note = 'the time budget did not allow it';
  phases.push({ name: 'dynamics', status: 'done' });

  // 2. Drain: twice the cap within one second, then under the cap until the limiter's first 429.
  let drain: DrainResult | undefined;
  if (!skip.has('drain')) {
    phase = 'drain';
    drain = { leadIn: [], burst: [], underCap: [], spacingMs: 1000 / cap + 50, rttAllowanceMs: 2 * delay };
    if (o.leadIn)
      drain.leadInVariations = leadInVariations().map((v, i) =>
        send('leadIn', 'GET', now + (i + 1) * drain!.spacingMs, v),
      );
    const start = now + 1000;
    if (!skip.has('burst')) {
      const n = 2 * cap;
      for (let i = 0; i < n; i++) drain.burst.push(send('burst', 'GET', start + (i * 1000) / n));
      // The varied request that rides on the burst, within its second (RL-14's cap part).
      drain.burstVariations = capVariations(rnd).burst.map((v) =>
        send('burstVariation', 'GET', start + ((n - 0.5) * 1000) / n, v),
      );
      drain.burstPlacement = 'at once';
    } else drain.burstNote = `only ${cap} requests of quota were left, not more than the cap of ${cap}`;
    now = start + 1000 + 10;
    for (let i = 0; i < 40; i++) {
      const s = send('underCap', 'GET', now);
      drain.underCap.push(s);
      now += drain.spacingMs;
      // The limiter's denial: a refusal with its headers (the proxy's carry none).
      if (!ok(s) && (s.rl.raw.limit !== undefined || s.rl.raw.retryAfter !== undefined)) {
        drain.firstDenial = s;
        break;
      }
    }
    phases.push({ name: 'drain', status: 'done' });
  } else phases.push({ name: 'drain', status: 'not-needed' });

  // 3. Recovery: before the edge, one T after the last acceptance, right after it, at the edge.
  let recovery: RecoveryResult | undefined;
  let integrity: IntegrityResult | undefined;
  const denial = drain?.firstDenial;
  if (!skip.has('recovery') && denial) {
    phase = 'recovery';
    recovery = { notes: [] };
    recovery.beforeEdge = send('beforeEdge', 'HEAD', denial.receivedAt + 25);
    const lastAccepted = [...samples].reverse().find(ok)!;
    recovery.oneTLater = send('oneTLater', 'GET', lastAccepted.receivedAt + T + 25);
    let recovered: Sample | undefined = recovery.oneTLater;
    // A 429 there promises all the same: a GET once its retry-after has passed (load/probes/recovery.ts).
    const surprise = recovery.oneTLater;
    if (!ok(surprise)) {
      const promised = surprise.status === 429 ? surprise.rl.retryAfter : undefined;
      recovered = undefined;
      if (promised === undefined)
        recovery.notes.push(`the request one T after the last acceptance got ${surprise.status}`);
      else {
        const at = surprise.receivedAt + promised * 1000;
        const test = send('afterPromise', 'GET', at + 25);
        recovery.promises = [{ at, from: surprise.seq, retryAfter: promised, test }];
        if (ok(test)) recovered = test;
        else
          recovery.notes.push('the request once its retry-after had passed was refused: recovery not followed further');
      }
    }
    const z = recovered ? send('afterZero', 'HEAD', recovered.receivedAt + 5) : undefined;
    if (z) recovery.afterZero = z;

    const ra = z?.rl.retryAfter;
    if (!z) {
      // Recovery not followed further.
    } else if (z.status === 429 && ra !== undefined) {
      recovery.edge = { at: z.receivedAt + ra * 1000, from: z.seq, retryAfter: ra };
      for (let i = 1; i <= (o.whileEmpty ?? 0); i++)
        send('whileEmpty', 'GET', z.receivedAt + i * (drain?.spacingMs ?? 300));
      recovery.atEdge = send('atEdge', 'GET', recovery.edge.at + 25);
    } else recovery.notes.push('the 429 right after Remaining 0 had no usable retry-after: its edge cannot be tested');
    phases.push({ name: 'recovery', status: 'done' });
  } else phases.push({ name: 'recovery', status: 'not-needed' });

  // 4. Integrity (RL-14): the varied requests one by one under the cap, as the bucket is about empty
  // again after the recovery (with a cap of 4 a second, the recovery's wait has no room for them).
  if (!skip.has('integrity') && drain?.firstDenial) {
    phase = 'integrity';
    integrity = { denial: drain.firstDenial, sent: [], notSent: [] };
    const last = samples[samples.length - 1]!;
    let t = last.receivedAt + drain.spacingMs;
    for (const v of integrityVariations(rnd)) {
      integrity.sent.push({ variation: v, sample: send('integrity', 'GET', t, v) });
      t += drain.spacingMs;
    }
    now = t;
    phases.push({ name: 'integrity', status: 'done' });
  } else phases.push({ name: 'integrity', status: 'not-needed' });

  if (o.stopped) {
    const p = phases.find((x) => x.name === o.stopped!.phase)!;
    Object.assign(p, { status: 'stopped', stop: 'budget', reason: o.stopped.reason });
  }
  const plan: PlanOutcome = {
    samples,
    phases,
    dynamics,
    ...(drain ? { drain } : {}),
    ...(recovery ? { recovery } : {}),
    ...(integrity ? { integrity } : {}),
    durationMs: now,
    ...(o.spacing ? { spacing: o.spacing } : {}),
  };
  const declaredCap = o.declaredCap ?? cap;
  const statedHourlyLimit = o.statedHourlyLimit ?? hourlyLimit;
  const a = analyze(samples, declaredCap, { declaredT: 3_600_000 / statedHourlyLimit });
  return {
    samples,
    input: {
      a,
      plan,
      cap: declaredCap,
      customer: o.customer ?? 'dedicated',
      hourlyLimit: statedHourlyLimit,
      ...(o.planAssumed ? { planAssumed: true } : {}),
      t0: 0,
    },
  };
}
