// The Node engine's way of waiting (load/engine/node.ts) on the virtual event loop: a timer until
// the due time, sends queued behind the previous departure with the least gap between actual sends,
// answers delivered as they arrive. The k6 adapter is held to it: same plan, same waits.
import type { Engine, EngineResponse, PacingStats, ProbeMethod } from '../../load/engine/types.js';
import { feeStatsUrl } from '../../load/engine/types.js';
import { PacingRecorder } from '../../load/engine/stats.js';
import { FAKE_EPOCH } from './k6-double.js';
import type { SimHorizon } from './sim-horizon.js';
import { VirtualLoop } from './virtual-loop.js';

export class VirtualNodeEngine implements Engine {
  readonly name = 'node';
  readonly epochMs = FAKE_EPOCH;
  readonly loop = new VirtualLoop(FAKE_EPOCH);
  private readonly pacingRec = new PacingRecorder();
  private readonly url: string;
  private departed: Promise<number> = Promise.resolve(-Infinity);
  /** Virtual ms the engine's timers waited (sleepUntil, and the least gap before a send). */
  waitedMs = 0;

  constructor(
    private readonly sim: SimHorizon,
    token: string,
  ) {
    this.url = feeStatsUrl('http://sim.invalid', token);
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

  async send(method: ProbeMethod, scheduledAt?: number, minGapMs = 0): Promise<EngineResponse> {
    const request = { method, url: this.url, headers: { accept: 'application/json' } };
    const previous = this.departed;
    let leave!: (t: number) => void;
    this.departed = new Promise((r) => (leave = r));
    const last = await previous;
    if (minGapMs > 0 && this.now() < last + minGapMs) await this.sleepUntil(last + minGapMs);
    const sentAt = this.now();
    if (minGapMs > 0 && Number.isFinite(last)) this.pacingRec.addGap(sentAt - last, minGapMs);
    leave(sentAt);
    if (scheduledAt !== undefined) this.pacingRec.add(scheduledAt, sentAt);
    const a = this.sim.request(sentAt, method);
    const headers = Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k.toLowerCase(), v]));
    return this.loop.at(FAKE_EPOCH + a.doneAt, () => ({
      sentAt,
      receivedAt: a.doneAt,
      status: a.status,
      headers,
      body: method === 'HEAD' ? undefined : '{"last_ledger":"1"}',
      bodyBytes: method === 'HEAD' ? 0 : 19,
      request,
    }));
  }

  pacing(): PacingStats {
    return this.pacingRec.stats();
  }

  async close(): Promise<void> {}
}
