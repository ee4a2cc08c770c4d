// Drives the probes' Node engine (load/engine/node.ts) at a fixed rate against a URL, the way the
// drain probe does: wait until t_i = t0 + i * interval, send without awaiting the answer.
import { NodeEngine } from '../../load/engine/node.js';
import type { EngineResponse, PacingStats } from '../../load/engine/types.js';

export interface EngineRun {
  /** Engine ms per request. */
  scheduled: number[];
  sent: number[];
  ok: number;
  durationMs: number;
  /** The engine's own pacing report. */
  pacing: PacingStats;
}

/** `url` is the server's origin: the engine always asks for `/fee_stats?auth=<token>` on it. */
export async function driveEngine(url: string, rate: number, seconds: number): Promise<EngineRun> {
  const engine = new NodeEngine({ endpoint: url.replace(/\/+$/, ''), token: 'bench-not-a-secret', timeoutMs: 10_000 });
  try {
    const n = Math.max(1, Math.round(rate * seconds));
    const interval = 1000 / rate;
    // A short lead-in so the first request is on schedule too.
    const t0 = engine.now() + 20;
    const scheduled: number[] = [];
    const pending: Promise<EngineResponse>[] = [];
    for (let i = 0; i < n; i++) {
      const at = t0 + i * interval;
      await engine.sleepUntil(at);
      scheduled.push(at);
      pending.push(engine.send('GET', at));
    }
    const responses = await Promise.all(pending);
    const last = Math.max(...responses.map((r) => r.receivedAt));
    return {
      scheduled,
      sent: responses.map((r) => r.sentAt),
      ok: responses.filter((r) => r.status !== undefined && r.status >= 200 && r.status < 300).length,
      durationMs: last - t0,
      pacing: engine.pacing(),
    };
  } finally {
    await engine.close();
  }
}
