// The Node engine's way of waiting (load/engine/node.ts) on the virtual event loop: a timer until
// the due time, sends queued behind the previous departure with the least gap between actual sends,
// answers delivered as they arrive. The k6 adapter is held to it: same plan, same waits.
import type {
  Engine,
  EngineResponse,
  PacingStats,
  ProbeMethod,
  RequestVariation,
  SendOptions,
} from '../../load/engine/types.js';
import { feeStatsUrl } from '../../load/engine/types.js';
import { PacingRecorder } from '../../load/engine/stats.js';
import { counterBudget, k6Config, K6_ENV } from '../../load/k6/config.js';
import { runK6Probes } from '../../load/k6/run.js';
import { runSuite } from '../../load/suite.js';
import { Recorder } from '../../src/record/recorder.js';
import { Redactor } from '../../src/record/redact.js';
import { FAKE_EPOCH, FakeK6 } from './k6-double.js';
import { SimHorizon, type SimAnswer } from './sim-horizon.js';
import { VirtualLoop } from './virtual-loop.js';

/** An answer on the virtual clock; a node that reads the request itself says what was sent and what came back. */
export interface VirtualAnswer extends SimAnswer {
  body?: string;
  request?: EngineResponse['request'];
}

/** A node on the virtual clock: the answer to a request that leaves at `sentAt` (virtual ms). */
export interface VirtualNode {
  request(sentAt: number, method: ProbeMethod, variation?: RequestVariation): VirtualAnswer;
}

/** The simulated node answers every variation as the plain request: one bucket, as a conformant node. */
const simNode = (sim: SimHorizon): VirtualNode => ({ request: (sentAt, method) => sim.request(sentAt, method) });

export class VirtualNodeEngine implements Engine {
  readonly name = 'node';
  readonly epochMs = FAKE_EPOCH;
  readonly loop = new VirtualLoop(FAKE_EPOCH);
  private readonly pacingRec = new PacingRecorder();
  private readonly url: string;
  private readonly node: VirtualNode;
  private departed: Promise<number> = Promise.resolve(-Infinity);
  /** Virtual ms the engine's timers waited (sleepUntil, and the least gap before a send). */
  waitedMs = 0;

  constructor(
    node: SimHorizon | VirtualNode,
    token: string,
    /** How much later than asked a request leaves (a busy machine's stall), virtual ms. */
    private readonly stallMs: (method: ProbeMethod, opts?: SendOptions) => number = () => 0,
  ) {
    this.url = feeStatsUrl('http://sim.invalid', token);
    this.node = node instanceof SimHorizon ? simNode(node) : node;
  }

  now(): number {
    return this.loop.clock - FAKE_EPOCH;
  }

  async sleepUntil(t: number): Promise<void> {
    const from = this.now();
    if (t <= from) return;
    await this.loop.at(FAKE_EPOCH + t, () => undefined);
    this.waitedMs += this.now() - from;
  }

  async send(method: ProbeMethod, scheduledAt?: number, minGapMs = 0, opts?: SendOptions): Promise<EngineResponse> {
    const request = { method, url: this.url, headers: { accept: 'application/json' } };
    const previous = this.departed;
    let leave!: (t: number) => void;
    this.departed = new Promise((r) => (leave = r));
    const last = await previous;
    if (minGapMs > 0 && this.now() < last + minGapMs) await this.sleepUntil(last + minGapMs);
    const stall = this.stallMs(method, opts);
    if (stall > 0) await this.sleepUntil(this.now() + stall);
    const sentAt = this.now();
    if (minGapMs > 0 && Number.isFinite(last)) this.pacingRec.addGap(sentAt - last, minGapMs);
    leave(sentAt);
    if (scheduledAt !== undefined) this.pacingRec.add(scheduledAt, sentAt);
    const a = this.node.request(sentAt, method, opts?.variation);
    const headers = Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const body = method === 'HEAD' ? undefined : (a.body ?? '{"last_ledger":"1"}');
    return this.loop.at(FAKE_EPOCH + a.doneAt, () => ({
      sentAt,
      receivedAt: a.doneAt,
      status: a.status,
      headers,
      body,
      bodyBytes: body === undefined ? 0 : Buffer.byteLength(body),
      request: a.request ?? request,
    }));
  }

  pacing(): PacingStats {
    return this.pacingRec.stats();
  }

  async close(): Promise<void> {}
}

/**
 * The same plan on the same simulated node through the k6 adapter (its double) and through the Node
 * engine's way of waiting: requests reach the node 1 ms after they leave, answers take `outMs(seq)` back.
 */
export async function bothEngines(token: string, outMs: (seq: number) => number) {
  const node = () =>
    new SimHorizon({ hourlyLimit: 3600, burst: 100, perSecondCap: 20, delay: (seq) => ({ in: 1, out: outMs(seq) }) });
  const env = { [K6_ENV.endpoint]: 'http://127.0.0.1:9', [K6_ENV.token]: token };
  const k6 = new FakeK6(node(), token);
  const k6Run = (await runK6Probes(k6, k6Config(env))).outcome;
  const engine = new VirtualNodeEngine(node(), token);
  const cfg = k6Config(env);
  const nodeRun = await runSuite({
    engine,
    horizon: cfg.horizon,
    selected: (id) => cfg.selection.rule(id),
    budget: counterBudget(cfg.limits, () => engine.loop.clock),
    record: (x) => new Recorder(new Redactor([token])).record(x),
    aborted: () => false,
    progress: () => undefined,
  });
  return { k6, k6Run, engine, nodeRun };
}
