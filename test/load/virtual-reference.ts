// The reference horizon node itself (reference/nodes/horizon.ts: its limiter, proxy cap, token
// check, faults and variants) on the virtual clock: each request is decided by the node's own
// answerer at the virtual time it arrives, without a socket. The probes' verdicts on every limiter
// fault then come from the reference's code in a fraction of a real second, the same on any
// machine; the HTTP path and real time are covered by the few full runs against the served node.
import type { ProbeMethod, RequestVariation } from '../../load/engine/types.js';
import { feeStatsRequest } from '../../load/engine/types.js';
import { counterBudget, k6Config, K6_ENV } from '../../load/k6/config.js';
import { runSuite } from '../../load/suite.js';
import { horizonAnswerer, type HorizonAnswer, type HorizonRequest } from '../../reference/nodes/horizon.js';
import { defaultOptions, type ReferenceOptions } from '../../reference/options.js';
import { Recorder } from '../../src/record/recorder.js';
import { Redactor } from '../../src/record/redact.js';
import type { ProbesOutcome } from '../../src/stages.js';
import { FAKE_EPOCH } from './k6-double.js';
import type { VirtualNode, VirtualAnswer } from './virtual-node-engine.js';
import { VirtualNodeEngine } from './virtual-node-engine.js';

const ENDPOINT = 'http://reference.invalid';
/** One-way network delay, virtual ms. */
const WIRE_MS = 1;

/** The reference horizon node's answerer behind a wire of WIRE_MS each way, on the virtual clock. */
export class VirtualReferenceNode implements VirtualNode {
  private readonly answer: ReturnType<typeof horizonAnswerer>;
  /** Requests that reached the node. */
  served = 0;

  /**
   * `phaseMs`: how far the node's clock is ahead of the client's start (where its seconds begin). A
   * later run against the same node moves it on by the time that has passed since (`later`).
   */
  constructor(
    readonly opts: ReferenceOptions,
    private phaseMs = 0,
  ) {
    this.answer = horizonAnswerer(opts);
  }

  /** The node's clock moves on by `ms` (a run ended, the next starts at the client's time 0). */
  later(ms: number): void {
    this.phaseMs += ms;
  }

  /** The node's answer to a request arriving at `nowMs` on its clock (a test may answer some itself). */
  protected decide(req: HorizonRequest, nowMs: number): HorizonAnswer {
    return this.answer(req, nowMs);
  }

  request(sentAt: number, method: ProbeMethod, variation?: RequestVariation): VirtualAnswer {
    const sent = feeStatsRequest(ENDPOINT, this.opts.credentials.horizonToken, variation);
    const url = new URL(sent.url);
    const headers = Object.fromEntries(Object.entries(sent.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const arrivedAt = sentAt + WIRE_MS;
    const nodeNow = FAKE_EPOCH + this.phaseMs + arrivedAt;
    this.served++;
    const a = this.decide({ method, url: url.pathname + url.search, headers }, nodeNow);
    const out: Record<string, string> = { date: new Date(nodeNow).toUTCString() };
    for (const [k, v] of Object.entries(a.headers)) if (v !== undefined) out[k.toLowerCase()] = String(v);
    return {
      status: a.status,
      headers: out,
      body: method === 'HEAD' ? undefined : a.body.toString('utf8'),
      decidedAt: arrivedAt,
      doneAt: arrivedAt + a.delayMs + WIRE_MS,
      request: { method, url: sent.url, headers: sent.headers },
    };
  }
}

export interface VirtualReferenceRun {
  outcome: ProbesOutcome;
  node: VirtualReferenceNode;
  engine: VirtualNodeEngine;
  progress: { phase: string; expectedRemainingMs?: number }[];
}

export type VirtualReferenceOptions = Partial<Omit<ReferenceOptions, 'faults' | 'variants' | 'now'>> & {
  faults?: string[];
  variants?: string[];
  /** Rules the probes test (default: every RL rule). */
  only?: string[];
  maxRequests?: number;
  maxSeconds?: number;
  /** How much later than asked a request leaves (VirtualNodeEngine). */
  stallMs?: ConstructorParameters<typeof VirtualNodeEngine>[2];
  /** How far the node's clock is ahead of the client's start, ms (VirtualReferenceNode). */
  phaseMs?: number;
  /** A node an earlier run used, its limiter's state kept (the other node options are then its own). */
  node?: VirtualReferenceNode;
};

/** The whole probe suite against the reference horizon node on the virtual clock, as the CLI plans it. */
export async function virtualReferenceRun(o: VirtualReferenceOptions = {}): Promise<VirtualReferenceRun> {
  const { faults, variants, only, maxRequests, maxSeconds, stallMs, phaseMs, node: given, ...rest } = o;
  const node =
    given ??
    new VirtualReferenceNode(
      defaultOptions({
        ...rest,
        faults: new Set(faults ?? []),
        variants: new Set(variants ?? []),
        now: () => FAKE_EPOCH + (phaseMs ?? 0),
      }),
      phaseMs,
    );
  const opts = node.opts;
  const token = opts.credentials.horizonToken;
  const engine = new VirtualNodeEngine(node, token, stallMs);
  const cfg = k6Config({
    [K6_ENV.endpoint]: ENDPOINT,
    [K6_ENV.token]: token,
    [K6_ENV.customer]: opts.customer,
    [K6_ENV.hourlyLimit]: String(opts.hourlyLimit),
    [K6_ENV.maxSeconds]: String(maxSeconds ?? 120),
    ...(maxRequests !== undefined ? { [K6_ENV.maxRequests]: String(maxRequests) } : {}),
  });
  const progress: VirtualReferenceRun['progress'] = [];
  const outcome = await runSuite({
    engine,
    horizon: cfg.horizon,
    selected: (id) => id.startsWith('RL-') && (!only || only.includes(id)),
    budget: counterBudget(cfg.limits, () => engine.loop.clock),
    record: (x) => new Recorder(new Redactor([token])).record(x),
    aborted: () => false,
    progress: (phase, expectedRemainingMs) => progress.push({ phase, expectedRemainingMs }),
  });
  return { outcome, node, engine, progress };
}
