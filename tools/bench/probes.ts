// Probe time-to-verdict and quota cost against the embedded reference, dedicated (3600/h) and
// shared (2000/h), each also as a ratio to the minimum the limiter's parameters allow.
import { join } from 'node:path';
import { figure, missingFigure, type Figure } from './figures.js';
import { runInChild } from './runs.js';
import type { RunChildResult } from './run-child.js';

export interface ProbeSettings {
  reps: number;
  outRoot: string;
  log?: (line: string) => void;
}

/**
 * The least any probe can spend, from the limiter's parameters alone (Limit = burst + 1, T = 1 h /
 * hourly limit, cap per second):
 *  time     = Limit / cap      the drain to Remaining 0 at the per-second cap (RL-06/10/11)
 *           + 2 T              full recovery after the shortest quick run that shows Remaining fall (2 requests, RL-03/04)
 *           + 2 T              after exhaustion: one T to the retry-after edge (RL-05/07), one more to the tick-up (RL-04/08)
 *  requests = Limit + ceil(Limit / (cap x T))   the quota, plus what recovers while draining at the cap
 *           + 2 + 1 + 1 + 2    quick run, one over-cap request (RL-10/13), the 429 (RL-06), edge and tick-up
 */
export const QUICK_RUN_MIN = 2;
export const AFTER_EXHAUSTION_T = 2;
export const EDGE_REQUESTS = QUICK_RUN_MIN + 1 + 1 + 2;

export interface LimiterParams {
  hourlyLimit: number;
  burst: number;
  perSecondCap: number;
}

export function minimumOf(p: LimiterParams): {
  seconds: number;
  requests: number;
  limit: number;
  tSeconds: number;
  formula: string;
} {
  const limit = p.burst + 1;
  const tSeconds = 3600 / p.hourlyLimit;
  const drainS = limit / p.perSecondCap;
  const seconds = drainS + (QUICK_RUN_MIN + AFTER_EXHAUSTION_T) * tSeconds;
  const recovered = Math.ceil(drainS / tSeconds);
  const requests = limit + recovered + EDGE_REQUESTS;
  const T = tSeconds.toFixed(2);
  return {
    seconds,
    requests,
    limit,
    tSeconds,
    formula:
      `min time = Limit/cap + ${QUICK_RUN_MIN}T + ${AFTER_EXHAUSTION_T}T = ` +
      `${limit}/${p.perSecondCap} + ${QUICK_RUN_MIN + AFTER_EXHAUSTION_T} x ${T} s = ${seconds.toFixed(2)} s; ` +
      `min requests = Limit + ceil(Limit/(cap x T)) + ${EDGE_REQUESTS} = ${limit} + ${recovered} + ${EDGE_REQUESTS} = ${requests}`,
  };
}

const CUSTOMERS = [
  { customer: 'dedicated', hourlyLimit: 3600 },
  { customer: 'shared', hourlyLimit: 2000 },
] as const;

export async function benchProbes(s: ProbeSettings): Promise<Figure[]> {
  const runs = new Map<string, RunChildResult[]>();
  const errors = new Map<string, string>();
  // Dedicated and shared run side by side (two processes): the probes mostly wait on the clock,
  // so neither slows the other, and the bench stays within its time budget.
  for (let i = 0; i < s.reps; i++) {
    await Promise.all(
      CUSTOMERS.map(async (c) => {
        try {
          const r = await runInChild({
            reference: { customer: c.customer, hourlyLimit: c.hourlyLimit },
            only: 'load',
            outDir: join(s.outRoot, 'runs', `probes-${c.customer}`),
          });
          runs.set(c.customer, [...(runs.get(c.customer) ?? []), r]);
          s.log?.(
            `probes ${c.customer} ${i + 1}/${s.reps}: ${(r.wallMs / 1000).toFixed(1)} s, ` +
              `${r.limiter?.requestsSent ?? '?'} requests, fail ${r.summary.fail} error ${r.summary.error}`,
          );
        } catch (e) {
          errors.set(c.customer, (e as Error).message);
        }
      }),
    );
  }
  const figures: Figure[] = [];
  for (const c of CUSTOMERS) {
    const group = `Probes (${c.customer}, ${c.hourlyLimit}/h)`;
    const rs = runs.get(c.customer) ?? [];
    if (!rs.length) {
      figures.push(
        missingFigure(
          { id: `probes.${c.customer}.wall`, group, label: 'time to verdict', unit: 's' },
          errors.get(c.customer) ?? 'no run',
        ),
      );
      continue;
    }
    const min = minimumOf(rs[0]!.limiterParams);
    const requests = rs.map((r) => r.limiter?.requestsSent ?? Number.NaN);
    const serverSeen = rs.map((r) => r.counters.horizon ?? 0);
    const bad = rs.filter((r) => r.summary.fail || r.summary.error).length;
    const verdicts = bad ? `; ${bad} of ${rs.length} runs had fail/error verdicts` : '; every run without fail/error';
    const details = {
      formula: min.formula,
      requestsSentByClient: requests,
      requestsSeenByServer: serverSeen,
      tEstimateMs: rs.map((r) => r.limiter?.emissionIntervalMs),
      summaries: rs.map((r) => r.summary),
    };
    figures.push(
      figure({
        id: `probes.${c.customer}.wall`,
        readme: true,
        group,
        label: 'time to verdict (probes only)',
        unit: 's',
        values: rs.map((r) => r.wallMs / 1000),
        note: `npm start -- --only load equivalent, reference start-up excluded; dedicated and shared side by side${verdicts}`,
        details,
      }),
      figure({
        id: `probes.${c.customer}.wall-ratio`,
        group,
        label: 'time / minimum',
        unit: 'x',
        values: rs.map((r) => r.wallMs / 1000 / min.seconds),
        target: { op: '<=', value: 1.5 },
        note: min.formula,
      }),
      figure({
        id: `probes.${c.customer}.requests`,
        group,
        label: 'requests sent',
        unit: 'req',
        values: requests,
        target: { op: '<=', value: min.limit + 40 },
        note: `Limit ${min.limit}; target Limit + 40; the server counted ${serverSeen.join(', ')}`,
      }),
      figure({
        id: `probes.${c.customer}.requests-ratio`,
        group,
        label: 'requests / minimum',
        unit: 'x',
        values: requests.map((n) => n / min.requests),
        note: min.formula,
      }),
    );
  }
  return figures;
}
