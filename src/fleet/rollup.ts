// The results file's `fleet` section: per-deployment and per-node roll-ups, computed from the
// checks themselves (each carries `target`, and `node`/`nodeKind` for node checks), so a merge of
// runs recomputes them exactly. Spend and limiter estimates come beside, from the runs.
import type { LimiterEstimates } from '../results.js';
import { RULES } from '../rules/catalogue.js';
import { Tally } from '../check-set.js';
import type { CheckResult, Summary, Verdict } from '../verdict.js';

export interface FleetNodeInfo {
  target: string;
  kind: string;
  name: string;
  /** Requests this node's checks sent: its contract unit and its probe plan (null: not counted, e.g. a merged k6 run). */
  requestsSent?: { contracts: number | null; probes: number | null };
  /** Horizon nodes: the probes' estimates (null when the probes did not run on it). */
  limiter?: LimiterEstimates | null;
  /** When its token was already probed on another node: that node, "target/name". */
  sameTokenAs?: string;
}

export interface FleetNode extends FleetNodeInfo {
  summary: Summary;
  /** Rolled-up verdict of every rule this node has checks of. */
  rules: Record<string, Verdict>;
}

export interface FleetTarget {
  name: string;
  summary: Summary;
  /** Every catalogue rule, rolled up over this deployment's checks (like the top-level `rules`). */
  rules: Record<string, Verdict>;
  /** Requests sent to this deployment in total (null when unknown). */
  requestsSent: number | null;
}

export interface FleetSection {
  targets: FleetTarget[];
  nodes: FleetNode[];
  /** Horizon tokens listed more than once: probed once, on the first node listing them. */
  sharedTokens: { probed: string; alsoListedAs: string[] }[];
}

export const nodeId = (n: { target: string; name: string }): string => `${n.target}/${n.name}`;

const nodeKey = (target: string | undefined, name: string | undefined, kind: string | undefined) =>
  `${target}\u0000${name}\u0000${kind}`;

/** Every deployment's and node's tally, folded one check at a time (a merge never holds its checks). */
export class FleetTally {
  private readonly targets = new Map<string | undefined, Tally>();
  private readonly nodes = new Map<string, Tally>();

  add(c: CheckResult): void {
    const t = this.targets.get(c.target) ?? this.targets.set(c.target, new Tally()).get(c.target)!;
    t.add(c);
    if (c.node === undefined) return;
    const key = nodeKey(c.target, c.node, c.nodeKind);
    (this.nodes.get(key) ?? this.nodes.set(key, new Tally()).get(key)!).add(c);
  }

  addAll(checks: Iterable<CheckResult>): this {
    for (const c of checks) this.add(c);
    return this;
  }

  /** A deployment's summary and every catalogue rule's verdict. */
  ofTarget(name: string): { summary: Summary; rules: Record<string, Verdict> } {
    const t = this.targets.get(name) ?? new Tally();
    return { summary: { ...t.summary }, rules: t.rolledUp(RULES.map((r) => r.id)) };
  }

  /** A node's summary and the verdict of each rule it has checks of. */
  ofNode(n: { target: string; name: string; kind: string }): { summary: Summary; rules: Record<string, Verdict> } {
    const t = this.nodes.get(nodeKey(n.target, n.name, n.kind)) ?? new Tally();
    return { summary: { ...t.summary }, rules: t.rolledUp(t.rules().sort()) };
  }
}

export function rollupFleet(input: {
  /** The checks, or their tally (a merge). */
  checks: Iterable<CheckResult> | FleetTally;
  targets: readonly { name: string; requestsSent: number | null }[];
  nodes: readonly FleetNodeInfo[];
}): FleetSection {
  const tally = input.checks instanceof FleetTally ? input.checks : new FleetTally().addAll(input.checks);
  const targets = input.targets.map((t) => ({ ...t, ...tally.ofTarget(t.name) }));
  const nodes = input.nodes.map((n) => ({ ...n, ...tally.ofNode(n) }));
  const shared = new Map<string, string[]>();
  for (const n of input.nodes)
    if (n.sameTokenAs) shared.set(n.sameTokenAs, [...(shared.get(n.sameTokenAs) ?? []), nodeId(n)]);
  return { targets, nodes, sharedTokens: [...shared].map(([probed, alsoListedAs]) => ({ probed, alsoListedAs })) };
}

/** The fleet's roll-ups in the results file's loose type, for readers that get it from JSON. */
export function fleetOf(results: { [k: string]: unknown }): FleetSection | undefined {
  const f = results.fleet as FleetSection | undefined;
  return f && Array.isArray(f.targets) && Array.isArray(f.nodes) ? f : undefined;
}
