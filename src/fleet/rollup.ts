// The results file's `fleet` section: per-deployment and per-node roll-ups, computed from the
// checks themselves (each carries `target`, and `node`/`nodeKind` for node checks), so a merge of
// runs recomputes them exactly. Spend and limiter estimates come beside, from the runs.
import type { LimiterEstimates } from '../results.js';
import { RULES } from '../rules/catalogue.js';
import { emptySummary, rollUp, type CheckResult, type Summary, type Verdict } from '../verdict.js';

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

function tally(
  checks: readonly CheckResult[],
  allRules: boolean,
): { summary: Summary; rules: Record<string, Verdict> } {
  const summary = emptySummary();
  const byRule = new Map<string, Verdict[]>();
  for (const c of checks) {
    summary[c.verdict]++;
    const list = byRule.get(c.rule);
    if (list) list.push(c.verdict);
    else byRule.set(c.rule, [c.verdict]);
  }
  const ids = allRules ? RULES.map((r) => r.id) : [...byRule.keys()].sort();
  return { summary, rules: Object.fromEntries(ids.map((id) => [id, rollUp(byRule.get(id) ?? [])])) };
}

export function rollupFleet(input: {
  checks: readonly CheckResult[];
  targets: readonly { name: string; requestsSent: number | null }[];
  nodes: readonly FleetNodeInfo[];
}): FleetSection {
  const targets = input.targets.map((t) => ({
    ...t,
    ...tally(
      input.checks.filter((c) => c.target === t.name),
      true,
    ),
  }));
  const nodes = input.nodes.map((n) => ({
    ...n,
    ...tally(
      input.checks.filter((c) => c.target === n.target && c.node === n.name && c.nodeKind === n.kind),
      false,
    ),
  }));
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
