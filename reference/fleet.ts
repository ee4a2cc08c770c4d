// A reference serving a fleet: the whole service once, plus extra nodes so that each node kind
// listed with a count N > 1 has N nodes, each its own server with its own token (so its own
// limiter bucket, unless variant horizon-account-bucket puts every horizon node on the account's
// one). The target file lists those kinds as arrays of named nodes.
import { randomBytes } from 'node:crypto';
import type { BlockRestNode, ChainBNode, HorizonNode, TargetFile } from '../src/types/generated/target.js';
import type { NodeKind } from '../src/target-file/types.js';
import { startBlockRestNode } from './nodes/block-rest.js';
import { startChainBNode } from './nodes/chain-b.js';
import { startHorizonNode } from './nodes/horizon.js';
import { MAX_FLEET_NODES, type ReferenceCredentials, type ReferenceOptions } from './options.js';
import { startReference, type RunningReference } from './start.js';

export type FleetCounts = Partial<Record<NodeKind, number>>;

export { MAX_FLEET_NODES };

const TOKEN_FIELD: Record<NodeKind, keyof ReferenceCredentials> = {
  blockRest: 'blockRestToken',
  chainB: 'chainBToken',
  horizon: 'horizonToken',
};

/** A distinct token per extra node, of the same shape as the reference's own. */
const tokenFor = (kind: NodeKind, i: number) =>
  `ref-${kind.toLowerCase()}-${i + 1}-token-${randomBytes(6).toString('hex')}`;

type AnyNode = BlockRestNode | ChainBNode | HorizonNode;

async function startExtraNode(
  kind: NodeKind,
  opts: ReferenceOptions,
  token: string,
): Promise<{ node: AnyNode; close(): Promise<void> }> {
  const withToken: ReferenceOptions = { ...opts, credentials: { ...opts.credentials, [TOKEN_FIELD[kind]]: token } };
  if (kind === 'blockRest') {
    const s = await startBlockRestNode(withToken);
    return { node: { endpoint: s.endpoint, token, height: 1 }, close: s.close };
  }
  if (kind === 'chainB') {
    const s = await startChainBNode(withToken);
    return {
      node: {
        endpoint: s.endpoint,
        token,
        websocketUrl: s.websocketUrl,
        grpcAddress: s.grpcAddress,
        grpcTls: false,
        consensusRpcMethod: 'status',
      },
      close: s.close,
    };
  }
  const s = await startHorizonNode(withToken);
  return {
    node: {
      endpoint: s.endpoint,
      token,
      customer: opts.customer,
      hourlyLimit: opts.hourlyLimit,
      perSecondCap: opts.perSecondCap,
    },
    close: () => s.close(),
  };
}

export interface RunningFleetReference extends Omit<RunningReference, 'target'> {
  target: TargetFile;
}

export async function startFleetReference(
  counts: FleetCounts,
  partial: Partial<ReferenceOptions> = {},
): Promise<RunningFleetReference> {
  for (const [kind, n] of Object.entries(counts)) {
    if (!Number.isInteger(n) || n! < 1 || n! > MAX_FLEET_NODES)
      throw new RangeError(
        `--${kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-nodes: expected an integer from 1 to ${MAX_FLEET_NODES}`,
      );
  }
  const base = await startReference(partial);
  const options = base.options;
  const closers: (() => Promise<void>)[] = [() => base.close()];
  const close = async () => {
    await Promise.allSettled(closers.reverse().map((c) => c()));
  };
  const target: TargetFile = structuredClone(base.target);
  try {
    for (const kind of Object.keys(counts) as NodeKind[]) {
      const n = counts[kind]!;
      if (n === 1) continue;
      const first = { name: `${kind}-1`, ...base.target.nodes[kind] } as AnyNode;
      const list: AnyNode[] = [first];
      for (let i = 1; i < n; i++) {
        const extra = await startExtraNode(kind, options, tokenFor(kind, i));
        closers.push(extra.close);
        list.push({ name: `${kind}-${i + 1}`, ...extra.node });
      }
      (target.nodes as Record<NodeKind, unknown>)[kind] = list;
    }
    // `limits` bound the deployment as a whole: room for every node's checks and probe plan.
    const most = Math.max(1, ...Object.values(counts));
    if (target.limits?.maxRequests) target.limits = { ...target.limits, maxRequests: target.limits.maxRequests * most };
  } catch (e) {
    await close();
    throw e;
  }
  return { ...base, target, close };
}
