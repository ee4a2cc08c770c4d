// The whole probe suite (load/suite.ts) on the virtual event loop against the simulated horizon
// node (sim-horizon.ts) through the Node engine's way of waiting (virtual-node-engine.ts): a run of
// many virtual seconds takes a fraction of a real one, and its timing is the same on any machine.
import type { ProbesOutcome } from '../../src/stages.js';
import { counterBudget, k6Config, K6_ENV } from '../../load/k6/config.js';
import { runSuite } from '../../load/suite.js';
import { Recorder } from '../../src/record/recorder.js';
import { Redactor } from '../../src/record/redact.js';
import { SimHorizon, type SimFault } from './sim-horizon.js';
import { VirtualNodeEngine } from './virtual-node-engine.js';

const TOKEN = 'virtual-run-token-5a4b3c2d1e';

export interface VirtualRun {
  outcome: ProbesOutcome;
  engine: VirtualNodeEngine;
  sim: SimHorizon;
  /** Every progress line the probes wrote, with the wait it announced (virtual ms). */
  progress: { phase: string; expectedRemainingMs?: number }[];
}

export interface VirtualRunOptions {
  faults?: SimFault[];
  /** The limiter (default 7200/h, burst 30: T 0.5 s, Limit 31) and the plan the probes are told. */
  hourlyLimit?: number;
  burst?: number;
  statedHourlyLimit?: number;
  maxSeconds?: number;
}

export async function virtualRun(o: VirtualRunOptions = {}): Promise<VirtualRun> {
  const hourlyLimit = o.hourlyLimit ?? 7200;
  const sim = new SimHorizon({
    hourlyLimit,
    burst: o.burst ?? 30,
    perSecondCap: 20,
    delay: () => ({ in: 1, out: 1 }),
    faults: new Set(o.faults ?? []),
  });
  const engine = new VirtualNodeEngine(sim, TOKEN);
  const cfg = k6Config({
    [K6_ENV.endpoint]: 'http://sim.invalid',
    [K6_ENV.token]: TOKEN,
    [K6_ENV.customer]: 'dedicated',
    [K6_ENV.hourlyLimit]: String(o.statedHourlyLimit ?? hourlyLimit),
    [K6_ENV.maxSeconds]: String(o.maxSeconds ?? 120),
  });
  const progress: VirtualRun['progress'] = [];
  const outcome = await runSuite({
    engine,
    horizon: cfg.horizon,
    selected: (id) => id.startsWith('RL-'),
    budget: counterBudget(cfg.limits, () => engine.loop.clock),
    record: (x) => new Recorder(new Redactor([TOKEN])).record(x),
    aborted: () => false,
    progress: (phase, expectedRemainingMs) => progress.push({ phase, expectedRemainingMs }),
  });
  return { outcome, engine, sim, progress };
}
