// Pacing precision of the Node engine at fixed rates against a local server (in its own process),
// side by side with autocannon at the same target rate (its `overallRate`). The server records
// when each request arrived, so both tools' bunching is judged on the same clock.
import { figure, ratios, type Figure } from './figures.js';
import { cannon, type CannonRun } from './cannon.js';
import { startChild, type ChildMessage, type RunningChild } from './child.js';
import { driveEngine, type EngineRun } from './engine-driver.js';
import { maxInWindow } from './stats.js';

export interface PacingSettings {
  reps: number;
  rates: readonly number[];
  /** Seconds per run, by rate. */
  seconds: Record<number, number>;
}

const WINDOW_MS = 50;

interface EngineStats {
  lagP50: number;
  lagP99: number;
  lagMax: number;
  maxSentIn50: number;
  maxArrivedIn50: number;
  achieved: number;
}

interface CannonStats extends CannonRun {
  maxArrivedIn50: number;
  achieved: number;
}

type Server = RunningChild<ChildMessage & { url: string }>;

async function arrivals(server: Server): Promise<number[]> {
  return (await server.request<ChildMessage & { times: number[] }>('arrivals')).times;
}

/** What autocannon achieved in each run: its rate and latency, beside its burstiness. */
function autocannonNote(cs: readonly CannonStats[]): string {
  const achieved = cs.map((c) => c.achieved.toFixed(1)).join(', ');
  const p50 = cs.map((c) => c.latencyP50Ms).join(', ');
  const p99 = cs.map((c) => c.latencyP99Ms).join(', ');
  return `10 connections; achieved ${achieved} req/s; its latency p50 ${p50} ms, p99 ${p99} ms`;
}

/** The engine reports its own lateness (send - scheduled); the windows come from its send times. */
function engineStats(r: EngineRun, arrived: number[]): EngineStats {
  return {
    lagP50: r.pacing.p50Ms,
    lagP99: r.pacing.p99Ms,
    lagMax: r.pacing.maxMs,
    maxSentIn50: maxInWindow(r.sent, WINDOW_MS),
    maxArrivedIn50: maxInWindow(arrived, WINDOW_MS),
    achieved: (r.ok * 1000) / r.durationMs,
  };
}

export async function benchPacing(s: PacingSettings): Promise<Figure[]> {
  const server: Server = await startChild('tools/bench/serve.ts', ['trivial']);
  try {
    const url = server.ready.url;
    // Warm the server, the engine and autocannon once.
    await server.request('record');
    await driveEngine(url, 50, 0.5);
    await cannon({ url, seconds: 1, overallRate: 50, connections: 10 });
    await arrivals(server);

    const engine = new Map<number, EngineStats[]>();
    const ac = new Map<number, CannonStats[]>();
    for (let i = 0; i < s.reps; i++) {
      for (const rate of s.rates) {
        const seconds = s.seconds[rate] ?? 3;
        await server.request('record');
        const e = await driveEngine(url, rate, seconds);
        engine.set(rate, [...(engine.get(rate) ?? []), engineStats(e, await arrivals(server))]);
        await server.request('record');
        const c = await cannon({ url, seconds: Math.max(1, Math.round(seconds)), overallRate: rate, connections: 10 });
        const arrived = await arrivals(server);
        ac.set(rate, [
          ...(ac.get(rate) ?? []),
          { ...c, maxArrivedIn50: maxInWindow(arrived, WINDOW_MS), achieved: c.rps },
        ]);
      }
    }

    const figures: Figure[] = [];
    for (const rate of s.rates) {
      const group = `Pacing at ${rate} req/s`;
      const es = engine.get(rate) ?? [];
      const cs = ac.get(rate) ?? [];
      const ideal = Math.ceil((WINDOW_MS * rate) / 1000);
      const lagTarget = rate <= 50 ? { target: { op: '<' as const, value: 2 } } : {};
      figures.push(
        figure({
          id: `pacing.${rate}.engine.lag-p50`,
          group,
          label: 'engine send - scheduled, p50',
          unit: 'ms',
          values: es.map((e) => e.lagP50),
        }),
        figure({
          id: `pacing.${rate}.engine.lag-p99`,
          group,
          label: 'engine send - scheduled, p99',
          unit: 'ms',
          values: es.map((e) => e.lagP99),
          ...lagTarget,
        }),
        figure({
          id: `pacing.${rate}.engine.lag-max`,
          group,
          label: 'engine send - scheduled, max',
          unit: 'ms',
          values: es.map((e) => e.lagMax),
        }),
        figure({
          id: `pacing.${rate}.engine.max-in-50ms`,
          readme: rate <= 50,
          group,
          label: 'engine: most requests sent in any 50 ms',
          unit: 'req',
          values: es.map((e) => e.maxSentIn50),
          note:
            `a perfectly even schedule puts at most ${ideal} in any 50 ms (${ideal + 1} with the slightest jitter); ` +
            `at the server: ${es.map((e) => e.maxArrivedIn50).join(', ')}`,
        }),
        figure({
          id: `pacing.${rate}.autocannon.max-in-50ms`,
          readme: rate <= 50,
          group,
          label: 'autocannon (overallRate): most requests arriving in any 50 ms',
          unit: 'req',
          values: cs.map((c) => c.maxArrivedIn50),
          note: autocannonNote(cs),
          details: { runs: cs },
        }),
        figure({
          id: `pacing.${rate}.burstiness-ratio`,
          group,
          label: 'autocannon / engine, most in any 50 ms (at the server)',
          unit: 'x',
          values: ratios(
            cs.map((c) => c.maxArrivedIn50),
            es.map((e) => e.maxArrivedIn50),
          ),
          note: 'ratio per repetition, both measured by the same server',
        }),
        figure({
          id: `pacing.${rate}.engine.achieved`,
          group,
          label: 'engine achieved rate',
          unit: 'req/s',
          values: es.map((e) => e.achieved),
        }),
        figure({
          id: `pacing.${rate}.autocannon.achieved`,
          group,
          label: 'autocannon achieved rate',
          unit: 'req/s',
          values: cs.map((c) => c.achieved),
        }),
      );
    }
    return figures;
  } finally {
    await server.stop();
  }
}
