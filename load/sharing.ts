// The sharing probe of a deployment's horizon nodes, before their rate-limit plans: which of them
// draw on one bucket (load/model/sharing.ts judges). One GET at a time, each after the previous
// answer, so the order at the servers is known: a screen of SCREEN_ROUNDS reads of every node, then
// pair tests among the nodes that may share. Requests to one node keep a cap interval apart (as the
// plans' pacing does), so no node's per-second cap refuses one. Every request claims the
// deployment's budget and the node's tally, and is recorded (redacted); an abort, a spent budget,
// a refusal or a node that does not answer leaves the nodes concerned `undetermined`, which the
// caller probes one after another.
import type { Exchange, ExchangeInput } from '../src/record/recorder.js';
import type { ResolvedHorizon } from '../src/target-file/types.js';
import { expectedEmissionIntervalMs } from './checks/rate.js';
import { NodeEngine } from './engine/node.js';
import { pacingGapMs } from './model/proxy.js';
import {
  groupBuckets,
  isCounted,
  judgeDrop,
  MAX_SCREENS,
  mergeScreen,
  openJudgement,
  PAIR_TEST_REQUESTS,
  SCREEN_ROUNDS,
  screenNode,
  T_FLOOR_FACTOR,
  type BucketGroups,
  type BucketRead,
} from './model/sharing.js';
import { parseRateLimitHeaders, type BudgetLike } from './session.js';

export interface SharingNode {
  /** The node as the run names it ("target/name"). */
  id: string;
  horizon: ResolvedHorizon;
  /** The deployment's budget, counted on this node's tally. */
  budget: BudgetLike;
}

export interface SharingEnv {
  record: (x: ExchangeInput) => Exchange;
  signal: AbortSignal;
  timeoutMs: number;
  progress: (phase: string, requestsSent: number) => void;
}

export interface SharingOutcome extends BucketGroups {
  reads: BucketRead[];
  /** Each node's recorded exchanges, and how many requests it was sent. */
  exchanges: Record<string, Exchange[]>;
  requests: Record<string, number>;
  /** The lower bound on T the drops were judged with, ms. */
  tLoMs: number;
  /** Why sending stopped early (budget, abort), when it did. */
  stopped?: string;
}

export async function probeBucketSharing(nodes: readonly SharingNode[], env: SharingEnv): Promise<SharingOutcome> {
  const ids = nodes.map((n) => n.id);
  const tLoMs = Math.min(...nodes.map((n) => expectedEmissionIntervalMs(n.horizon.hourlyLimit))) * T_FLOOR_FACTOR;
  const engines = new Map(
    nodes.map((n) => [
      n.id,
      new NodeEngine({
        endpoint: n.horizon.endpoint,
        token: n.horizon.token,
        timeoutMs: env.timeoutMs,
        signal: env.signal,
      }),
    ]),
  );
  const out: SharingOutcome = {
    groups: [],
    screen: {},
    pairs: [],
    reads: [],
    exchanges: Object.fromEntries(ids.map((id) => [id, []])),
    requests: Object.fromEntries(ids.map((id) => [id, 0])),
    tLoMs,
  };
  let seq = 0;
  /** When each node may get its next request (its engine's clock). */
  const nextAt = new Map<string, number>();
  /** One GET to `id`, or undefined once sending has stopped. */
  const read = async (id: string, purpose: string): Promise<BucketRead | undefined> => {
    const node = nodes.find((n) => n.id === id)!;
    const engine = engines.get(id)!;
    await engine.sleepUntil(nextAt.get(id) ?? 0);
    if (out.stopped) return undefined;
    if (env.signal.aborted) {
      out.stopped = 'interrupted';
      return undefined;
    }
    try {
      node.budget.take();
    } catch (e) {
      out.stopped = e instanceof Error ? e.message : String(e);
      return undefined;
    }
    const r = await engine.send('GET');
    // A paced gap after the send, and a cap interval after the answer (the request surely arrived by then).
    const cap = node.horizon.perSecondCap;
    nextAt.set(id, Math.max(r.sentAt + pacingGapMs(1000 / cap, cap), r.receivedAt + 1000 / cap + 1));
    out.requests[id]!++;
    const exchange = env.record({
      method: 'GET',
      url: r.request.url,
      requestHeaders: r.request.headers,
      status: r.status,
      responseHeaders: r.headers,
      responseBody: r.body,
      sentAt: engine.epochMs + r.sentAt,
      receivedAt: engine.epochMs + r.receivedAt,
      error: r.error,
      purpose: `bucket sharing: ${purpose}`,
    });
    out.exchanges[id]!.push(exchange);
    const rl = parseRateLimitHeaders(r.headers);
    const got: BucketRead = {
      node: id,
      seq: ++seq,
      purpose,
      sentAt: engine.epochMs + r.sentAt,
      receivedAt: engine.epochMs + r.receivedAt,
      ...(r.status !== undefined && { status: r.status }),
      ...(rl.remaining !== undefined && { remaining: rl.remaining }),
      ...(rl.reset !== undefined && { reset: rl.reset }),
    };
    out.reads.push(got);
    return got;
  };
  try {
    for (let screen = 1; screen <= MAX_SCREENS; screen++) {
      env.progress(
        `bucket sharing: ${SCREEN_ROUNDS} rounds of one GET to each of ${ids.length} nodes (screen ${screen})`,
        out.reads.length,
      );
      const from = out.reads.length;
      for (let round = 1; round <= SCREEN_ROUNDS; round++)
        for (const id of ids) await read(id, `screen ${screen}, round ${round}`);
      const reads = out.reads.slice(from);
      for (const id of ids) out.screen[id] = mergeScreen(out.screen[id], screenNode(id, reads, tLoMs));
      const open = ids.some((id) => out.screen[id]!.verdict === 'undetermined');
      if (!open || out.stopped || reads.some((r) => !isCounted(r))) break;
    }
    const pairTest = async (tested: string, against: string) => {
      env.progress(`bucket sharing: does ${tested} move ${against}'s Remaining?`, out.reads.length);
      const first = await read(against, `pair test: ${against} before ${tested}`);
      const sent: BucketRead[] = [];
      for (let i = 0; i < PAIR_TEST_REQUESTS; i++) {
        const r = await read(tested, `pair test: ${tested}, ${i + 1} of ${PAIR_TEST_REQUESTS}`);
        if (r) sent.push(r);
      }
      const last = await read(against, `pair test: ${against} after ${tested}`);
      if (!first || !last || sent.length < PAIR_TEST_REQUESTS) return openJudgement(`stopped: ${out.stopped}`);
      return judgeDrop(first, last, sent, tLoMs);
    };
    Object.assign(out, await groupBuckets(ids, out.screen, pairTest));
  } finally {
    await Promise.all([...engines.values()].map((e) => e.close()));
  }
  return out;
}
