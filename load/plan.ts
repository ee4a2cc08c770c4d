// The one plan every probe shares, so no phase starts on a bucket another left drained. At the
// dedicated 3600/h, burst 100 (Limit 101, T 1 s) a full run costs about:
//   1. dynamics  3 quick requests, a pause as long as their Reset, 1 request    ~3 s,    4 requests
//   2. drain     22 at twice the cap, then under the cap to the first 429       ~6-7 s, ~119 requests
//   3. recovery  a 429 before the edge, one T later, the retry-after edge       ~2 s,    4 requests
//      (and the tick-up of Remaining only while T is still uncertain)
//   4. integrity the request varied (RL-14) while the bucket is empty           no wait, 5 requests
//      (inside the recovery's wait for its retry-after edge; what does not fit there, after it)
// Only the phases the selected rules need run. Each phase checks the budget first; a phase cut
// short by the budget, an abort or a node that does not answer is recorded, and the rules that
// needed it get `error` with that cause.
import { rulesOf } from '../src/rules/catalogue.js';
import { analyze } from './analysis.js';
import { drainShape, rttAllowanceOf, runDrain, type DrainPlan, type DrainResult } from './probes/drain.js';
import {
  HEADER_WAIT_SLACK,
  QUICK_RUN,
  runDynamics,
  type DynamicsPlan,
  type DynamicsResult,
} from './probes/dynamics.js';
import { WINDOW_MS } from './model/cap.js';
import { ceilSeconds } from './model/gcra.js';
import { ROUNDING_S } from './model/possible.js';
import { runRecovery, type RecoveryPlan, type RecoveryResult } from './probes/recovery.js';
import { IntegrityProbe, type IntegrityPlan, type IntegrityResult } from './probes/integrity.js';
import { StopProbe, type Sample, type Session, type StopReason } from './session.js';
import type { SpacingSummary } from './model/proxy.js';
import { seededRandom } from '../src/random.js';
import { capVariations, integrityVariations, leadInVariations } from './variations.js';

export type PhaseName = 'dynamics' | 'drain' | 'recovery' | 'integrity';

/** The phases each rule's checks read. A rule is judged only when all of its phases completed. */
export const RULE_PHASES: Record<string, readonly PhaseName[]> = {
  'RL-01': ['dynamics', 'drain', 'recovery'],
  'RL-02': ['dynamics'],
  'RL-03': ['dynamics'],
  'RL-04': ['dynamics'],
  'RL-05': ['drain', 'recovery'],
  'RL-06': ['drain'],
  'RL-07': ['drain', 'recovery'],
  'RL-08': ['drain'],
  'RL-09': ['drain'],
  'RL-10': ['drain'],
  'RL-11': ['drain'],
  'RL-12': ['dynamics'],
  'RL-13': ['drain'],
  'RL-14': ['drain', 'integrity'],
};

/** Most extra requests RL-14 spends: the varied ones between the drain's under-cap requests, and the integrity phase's. */
export const RL14_MAX_EXTRA_REQUESTS = 16;

export const RL_RULES = rulesOf('probes');

export interface PhaseRecord {
  name: PhaseName;
  status: 'done' | 'not-needed' | 'stopped' | 'not-run';
  reason?: string;
  stop?: StopReason;
  startedAt?: number;
  endedAt?: number;
}

export interface PlanConfig {
  cap: number;
  /** 3600 s / the target's hourly limit, ms: what the rules call T. */
  declaredT: number;
  selected: (ruleId: string) => boolean;
  quickRunSpacingMs: number;
  marginMs: number;
  gapMs: number;
  burstExtra: number;
  burstRateFactor: number;
  /** Under-cap drain requests beyond the forecast (in flight at the first 429, forecast error). */
  drainSlack: number;
}

export const DEFAULT_PLAN: Omit<PlanConfig, 'cap' | 'declaredT' | 'selected'> = {
  quickRunSpacingMs: 5,
  marginMs: 25,
  gapMs: 5,
  burstExtra: 2,
  burstRateFactor: 2,
  drainSlack: 12,
};

export interface PlanOutcome {
  samples: Sample[];
  phases: PhaseRecord[];
  dynamics?: DynamicsResult;
  drain?: DrainResult;
  recovery?: RecoveryResult;
  integrity?: IntegrityResult;
  durationMs: number;
  /** What the proxy's refusals taught the pacing during the run. */
  spacing?: SpacingSummary;
  /** The least gap kept between paced sends at the end of the run (Session.paceMs), ms. */
  pacingGapMs?: number;
}

export interface PhaseNeeds {
  quickRun: boolean;
  pause: DynamicsPlan['pause'];
  drain: boolean;
  capBurst: boolean;
  /** Drain on under the cap until the limiter's first 429 (not only the burst). */
  exhaust: boolean;
  recovery: boolean;
  /** Vary the request at the burst and at the empty bucket (RL-14). */
  integrity: boolean;
}

export function phaseNeeds(selected: (id: string) => boolean): PhaseNeeds {
  const any = (...ids: string[]) => ids.some(selected);
  const exhaust = any('RL-01', 'RL-05', 'RL-06', 'RL-07', 'RL-08', 'RL-09', 'RL-11', 'RL-14');
  const drain = exhaust || any('RL-10', 'RL-13');
  return {
    exhaust,
    quickRun: any('RL-01', 'RL-02', 'RL-03', 'RL-04', 'RL-12'),
    pause: selected('RL-04') ? 'always' : drain ? 'if-not-full' : 'never',
    drain,
    capBurst: any('RL-10', 'RL-13', 'RL-14'),
    recovery: any('RL-01', 'RL-05', 'RL-07'),
    integrity: selected('RL-14'),
  };
}

export async function runPlan(session: Session, cfg: PlanConfig): Promise<PlanOutcome> {
  const needs = phaseNeeds(cfg.selected);
  const t0 = session.now();
  const out: PlanOutcome = { samples: session.samples, phases: [], durationMs: 0 };
  // The variations' random parts (a parameter's value, documentation addresses) differ from run to run.
  const rnd = seededRandom(Math.floor(session.env.engine.epochMs));
  const recovers = needs.exhaust && needs.recovery;
  let integrity: IntegrityProbe | undefined;
  const wanted: [PhaseName, boolean][] = [
    ['dynamics', true],
    ['drain', needs.drain],
    ['recovery', recovers],
    ['integrity', needs.exhaust && needs.integrity],
  ];
  let stopped: { reason: StopReason; detail: string } | undefined;
  for (const [name, want] of wanted) {
    if (!want) {
      out.phases.push({ name, status: 'not-needed' });
      continue;
    }
    if (stopped) {
      out.phases.push({ name, status: 'not-run', stop: stopped.reason, reason: stopped.detail });
      continue;
    }
    const rec: PhaseRecord = { name, status: 'done', startedAt: session.now() - t0 };
    out.phases.push(rec);
    try {
      if (name === 'dynamics') {
        const plan: DynamicsPlan = {
          cap: cfg.cap,
          quickRun: needs.quickRun,
          pause: needs.pause,
          spacingMs: cfg.quickRunSpacingMs,
          marginMs: cfg.marginMs,
          declaredT: cfg.declaredT,
        };
        const short = session.env.budget.shortfall(QUICK_RUN.max + 1);
        if (short)
          throw new StopProbe('budget', `no room for the dynamics phase (${QUICK_RUN.max + 1} requests): ${short}`);
        out.dynamics = await runDynamics(session, plan);
      } else if (name === 'drain') {
        const last = session.samples[session.samples.length - 1];
        const remaining = last?.rl.remaining ?? last?.rl.limit ?? 100;
        const T = analyze(session.samples, cfg.cap, { quick: true, declaredT: cfg.declaredT }).T ?? {
          lo: cfg.declaredT,
          hi: cfg.declaredT,
        };
        const plan: DrainPlan = {
          cap: cfg.cap,
          capBurst: needs.capBurst,
          exhaust: needs.exhaust,
          burstExtra: cfg.burstExtra,
          burstRateFactor: cfg.burstRateFactor,
          leakMs: T.lo,
          retryWaitMaxMs: Math.max(WINDOW_MS, ceilSeconds(HEADER_WAIT_SLACK * T.hi) * 1000) + ROUNDING_S * 1000,
          slack: cfg.drainSlack,
          minGapMs: session.paceMs,
          leadIn: leadInVariations(),
          ...(needs.integrity ? { varied: capVariations(rnd) } : {}),
        };
        const rtt = rttAllowanceOf(session.samples);
        const shape = drainShape(plan, remaining, rtt);
        const count = shape.burstRequests + shape.underCapRequests + (plan.varied?.underCap.length ?? 0);
        const short = session.env.budget.shortfall(count);
        if (short) {
          throw new StopProbe('budget', `the drain needs up to ${count} requests: ${short}`);
        }
        if (shape.durationMs > session.env.budget.msLeft())
          throw new StopProbe(
            'budget',
            `the drain needs about ${Math.ceil(shape.durationMs / 1000)} s, more than the time left (limits.maxSeconds)`,
          );
        out.drain = await runDrain(session, plan);
        const denial = out.drain.firstDenial;
        if (needs.integrity && denial) {
          // The burst's varied request takes a plain one's place; the ones under the cap are extra.
          const integrityPlan: IntegrityPlan = {
            cap: cfg.cap,
            declaredT: cfg.declaredT,
            marginMs: cfg.marginMs,
            maxRequests: RL14_MAX_EXTRA_REQUESTS - (out.drain.underCapVariations?.length ?? 0),
          };
          integrity = new IntegrityProbe(integrityVariations(rnd), denial, integrityPlan, rnd);
          out.integrity = integrity.result;
        }
      } else if (name === 'integrity') {
        if (!integrity) {
          rec.status = 'not-run';
          rec.reason = 'the drain ended without a denial, so the bucket was never known to be empty';
          continue;
        }
        // Much of it may have run inside the recovery (its hook): the phase spans its first and last request.
        await integrity.finish(session);
        const mine = session.samples.filter((s) => s.phase.startsWith('integrity'));
        if (mine.length) rec.startedAt = Math.min(...mine.map((s) => s.sentAt)) - t0;
      } else {
        const denial = out.drain?.firstDenial;
        if (!denial) {
          rec.status = 'not-run';
          rec.reason = 'the drain ended without a denial, so there was no retry-after edge to probe';
          continue;
        }
        const short = session.env.budget.shortfall(7);
        if (short) throw new StopProbe('budget', `no room for the recovery phase (7 requests): ${short}`);
        const probe = integrity;
        const plan: RecoveryPlan = {
          cap: cfg.cap,
          declaredT: cfg.declaredT,
          marginMs: cfg.marginMs,
          gapMs: cfg.gapMs,
          ...(probe ? { whileEmpty: () => probe.whileEmpty(session) } : {}),
        };
        out.recovery = await runRecovery(session, denial, plan);
      }
    } catch (e) {
      if (!(e instanceof StopProbe)) throw e;
      stopped = { reason: e.reason, detail: e.detail };
      rec.status = 'stopped';
      rec.stop = e.reason;
      rec.reason = e.detail;
      await session.settle();
    } finally {
      rec.endedAt = session.now() - t0;
    }
  }
  await session.settle();
  out.durationMs = session.now() - t0;
  out.spacing = session.spacing.summary();
  out.pacingGapMs = session.paceMs;
  return out;
}

export interface PlanFloor {
  requests: number;
  ms: number;
  /** What the floor is made of, for the benchmark's report. */
  parts: Record<string, { requests: number; ms: number }>;
}

/**
 * The least a full run needs with these limiter parameters, whatever the engine: a few quick
 * requests and a pause of their Reset (whole seconds), a drain at the cap until Limit plus what
 * leaks meanwhile is used, one T for partial recovery, and the retry-after edge (whole seconds).
 * The benchmark reports a run's time and requests as ratios to this.
 */
export function planFloor(limit: number, emissionIntervalMs: number, cap: number): PlanFloor {
  const T = emissionIntervalMs;
  const net = cap - 1000 / T;
  const drainMs = net > 0 ? (limit / net) * 1000 : Infinity;
  const quick = QUICK_RUN.min;
  const parts = {
    dynamics: { requests: quick + 1, ms: Math.ceil((quick * T) / 1000) * 1000 },
    drain: { requests: Math.ceil(limit + drainMs / T), ms: drainMs },
    partialRecovery: { requests: 1, ms: T },
    retryAfterEdge: { requests: 2, ms: Math.ceil(T / 1000) * 1000 },
  };
  const all = Object.values(parts);
  return { requests: all.reduce((n, p) => n + p.requests, 0), ms: all.reduce((n, p) => n + p.ms, 0), parts };
}
