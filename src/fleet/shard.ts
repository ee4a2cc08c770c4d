// `--shard i/n`: the i-th of n parts of a run's deployments and nodes, for spreading one fleet over
// machines (a Kubernetes Indexed Job, a CI matrix) and joining the parts with `chainprobe merge`.
// The parts are made of pieces, each run whole by one part:
//   - a deployment's API unit (its api section: the auth, universal, native, NFT and errors rules).
//     The fleet runs a deployment's API unit in every part that holds any of its pieces: only the
//     part holding the API piece keeps the api section, so the others skip the API rules ("no api
//     section"), and the merge's roll-up lets the real verdicts win over those skips;
//   - each blockRest and chainB node on its own;
//   - all horizon nodes of a deployment together. Whether two horizon nodes draw on one bucket
//     (a provider keying it by the account) is only discovered at run time, by the sharing probe
//     that compares a deployment's horizon nodes with each other (load/sharing.ts); a target file
//     does not declare it. So every horizon node of a deployment stays in one part, where that
//     probe can find which of them share and probe those one after another. A horizon token
//     listed in several deployments is one bucket too (the run probes it once): pieces holding
//     the same token are joined.
// Pieces are dealt out largest first (ties by name) to the part with the least so far (ties to the
// lowest): the same target files and n give the same parts on every machine, every time.
import { NODE_KINDS, nodesOf, type NodeKind, type ResolvedTarget } from '../target-file/types.js';

export interface ShardSpec {
  /** 1-based: the i of i/n. */
  index: number;
  count: number;
}

/** The most parts a run is split into. */
export const MAX_SHARDS = 1000;

/** "2/5" -> { index: 2, count: 5 }; throws an Error whose message says what is expected. */
export function parseShard(text: string): ShardSpec {
  const m = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > MAX_SHARDS || index < 1 || index > count)
    throw new Error(`expected <i>/<n> with 1 <= i <= n <= ${MAX_SHARDS}, such as 1/4 (got "${text.slice(0, 40)}")`);
  return { index, count };
}

export interface ShardNode {
  kind: NodeKind;
  name: string;
}

/** A piece of a run that one part runs whole. */
export interface ShardPiece {
  /** Stable and unique: "<deployment>/api", "<deployment>/<kind>/<name>", "<deployment>/horizon". */
  key: string;
  /** The deployments it belongs to (several only when a horizon token is listed in several). */
  deployments: string[];
  /** The deployments whose API unit it is. */
  api: string[];
  /** Its nodes, each with its deployment. */
  nodes: (ShardNode & { deployment: string })[];
  /** The contract units and probe plans it holds: what the dealing balances. */
  weight: number;
}

/** Every piece of the run, in a stable order. */
export function shardPieces(targets: readonly ResolvedTarget[]): ShardPiece[] {
  const pieces: ShardPiece[] = [];
  /** Horizon pieces by token, to join a token listed in several deployments. */
  const byToken = new Map<string, ShardPiece>();
  for (const t of targets) {
    const first = pieces.length;
    const apiPiece: ShardPiece = { key: `${t.name}/api`, deployments: [t.name], api: [t.name], nodes: [], weight: 1 };
    pieces.push(apiPiece);
    for (const kind of NODE_KINDS) {
      if (kind === 'horizon') continue;
      for (const n of nodesOf(t, kind))
        pieces.push({
          key: `${t.name}/${kind}/${n.name}`,
          deployments: [t.name],
          api: [],
          nodes: [{ kind, name: n.name, deployment: t.name }],
          weight: 1,
        });
    }
    const horizons = nodesOf(t, 'horizon');
    // Without an api section the API unit has nothing of its own to run (its rules are skipped, and
    // ERR-01 reads the part's first blockRest node): every part holding one of the deployment's
    // nodes runs it anyway, so it is a piece only for a deployment with no node at all.
    if (!t.api && (horizons.length || pieces.length > first + 1)) pieces.splice(pieces.indexOf(apiPiece), 1);
    if (!horizons.length) continue;
    const piece: ShardPiece = {
      key: `${t.name}/horizon`,
      deployments: [t.name],
      api: [],
      nodes: horizons.map((h) => ({ kind: 'horizon' as const, name: h.name, deployment: t.name })),
      // A contract unit and a probe plan per node.
      weight: 2 * horizons.length,
    };
    // An earlier piece holding one of these tokens takes this one in (and any other such piece).
    const earlier = [...new Set(horizons.flatMap((h) => byToken.get(h.token) ?? []))].sort(
      (a, b) => pieces.indexOf(a) - pieces.indexOf(b),
    );
    const into = earlier[0] ?? piece;
    if (into === piece) pieces.push(piece);
    for (const p of [...earlier.slice(1), ...(into === piece ? [] : [piece])]) {
      for (const d of p.deployments) if (!into.deployments.includes(d)) into.deployments.push(d);
      into.nodes.push(...p.nodes);
      into.weight += p.weight;
      if (pieces.includes(p)) pieces.splice(pieces.indexOf(p), 1);
      for (const [token, q] of byToken) if (q === p) byToken.set(token, into);
    }
    for (const h of horizons) byToken.set(h.token, into);
  }
  return pieces;
}

/** The pieces dealt into `count` parts (index 0 is part 1/n). */
export function dealShards(pieces: readonly ShardPiece[], count: number): ShardPiece[][] {
  const parts: { pieces: ShardPiece[]; load: number }[] = Array.from({ length: count }, () => ({
    pieces: [],
    load: 0,
  }));
  const order = [...pieces].sort((a, b) => b.weight - a.weight || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const p of order) {
    let best = parts[0]!;
    for (const part of parts) if (part.load < best.load) best = part;
    best.pieces.push(p);
    best.load += p.weight;
  }
  // Within a part, the run's own order.
  return parts.map((part) => pieces.filter((p) => part.pieces.includes(p)));
}

/** results.json `shard`: which part this run was and what it held. */
export interface ShardRecord {
  part: string;
  index: number;
  count: number;
  pieces: string[];
}

export class EmptyShardError extends Error {}

/**
 * The targets of part `spec` of the run: each deployment with a piece in it, holding only its
 * pieces' nodes (as a fleet, so every node check names its node and a merge of the parts knows
 * each node), and its api section only when its API unit is in this part.
 */
export function shardTargets(
  targets: readonly ResolvedTarget[],
  spec: ShardSpec,
): { targets: ResolvedTarget[]; record: ShardRecord } {
  const pieces = shardPieces(targets);
  const mine = dealShards(pieces, spec.count)[spec.index - 1]!;
  if (!mine.length)
    throw new EmptyShardError(
      `part ${spec.index} of ${spec.count} is empty: this run has ${pieces.length} piece${pieces.length === 1 ? '' : 's'} to deal ` +
        "(each deployment's API unit, each blockRest and chainB node, each deployment's horizon nodes together); " +
        `split it into at most ${pieces.length} parts`,
    );
  const api = new Set(mine.flatMap((p) => p.api));
  const keep = new Set(mine.flatMap((p) => p.nodes.map((n) => `${n.deployment}\u0000${n.kind}\u0000${n.name}`)));
  const deployments = new Set(mine.flatMap((p) => p.deployments));
  const out = targets
    .filter((t) => deployments.has(t.name))
    .map((t): ResolvedTarget => {
      const fleet = Object.fromEntries(
        NODE_KINDS.map((kind) => [
          kind,
          nodesOf(t, kind).filter((n) => keep.has(`${t.name}\u0000${kind}\u0000${n.name}`)),
        ]),
      ) as unknown as NonNullable<ResolvedTarget['fleet']>;
      const { api: apiSection, fleet: _all, nodes: _nodes, ...rest } = t;
      return {
        ...rest,
        ...(api.has(t.name) && apiSection && { api: apiSection }),
        nodes: {
          ...(fleet.blockRest[0] && { blockRest: fleet.blockRest[0] }),
          ...(fleet.chainB[0] && { chainB: fleet.chainB[0] }),
          ...(fleet.horizon[0] && { horizon: fleet.horizon[0] }),
        },
        fleet,
      };
    });
  return {
    targets: out,
    record: {
      part: `${spec.index}/${spec.count}`,
      index: spec.index,
      count: spec.count,
      pieces: mine.map((p) => p.key),
    },
  };
}
