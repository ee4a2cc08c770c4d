// A fleet run splits each deployment into units the contract suite runs one at a time: the API
// unit (api section, plus the first blockRest node for ERR-01 when there is no api) and one unit
// per node, each seeing a target with just that node. Every check of a node unit belongs to that
// node, so attribution is exact. Which rules a node kind serves comes from the target schema's
// x-rules (the one place that says it).
import { readFileSync } from 'node:fs';
import { RULES } from '../rules/catalogue.js';
import { packagePath } from '../package.js';
import { NODE_KINDS, nodesOf, type NodeKind, type ResolvedTarget } from '../target-file/types.js';

const targetSchema = JSON.parse(readFileSync(packagePath('schemas', 'target.schema.json'), 'utf8')) as {
  $defs: Record<string, { 'x-rules'?: string[] }>;
};

/** Sections the node units check; the probes (RL) run per horizon token, outside the units. */
const NODE_SECTIONS = new Set(['NAUTH', 'NODE']);
const PROBE_SECTIONS = new Set(['RL']);

/** Contract rules each node kind serves (schema $defs.<kind>Node x-rules, node sections only). */
const kindRules = (kind: NodeKind): readonly string[] =>
  (targetSchema.$defs[`${kind}Node`]?.['x-rules'] ?? []).filter((id) => NODE_SECTIONS.has(id.split('-')[0]!));
export const KIND_RULES: Record<NodeKind, readonly string[]> = {
  blockRest: kindRules('blockRest'),
  chainB: kindRules('chainB'),
  horizon: kindRules('horizon'),
};

/** Contract rules outside the node sections: the API unit's. */
export const API_RULES: readonly string[] = RULES.filter(
  (r) => !NODE_SECTIONS.has(r.section) && !PROBE_SECTIONS.has(r.section),
).map((r) => r.id);

export interface FleetNodeRef {
  kind: NodeKind;
  name: string;
}

export interface Unit {
  /** File-system safe and unique within the run: names the unit's working and report folders. */
  key: string;
  /** The deployment this unit belongs to. */
  deployment: ResolvedTarget;
  /** Absent for the API unit. */
  node?: FleetNodeRef;
  /** What the contract suite sees: single nodes only, no fleet. */
  view: ResolvedTarget;
  /** The rules this unit checks (before --only). */
  rules: readonly string[];
}

export const slug = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'x';

export function unitsOf(deployment: ResolvedTarget, index: number): Unit[] {
  const base = `${index}-${slug(deployment.name)}`;
  const { name, limits } = deployment;
  const firstBlockRest = deployment.nodes.blockRest;
  const units: Unit[] = [
    {
      key: `${base}-api`,
      deployment,
      view: {
        name,
        ...(deployment.api && { api: deployment.api }),
        nodes: firstBlockRest ? { blockRest: firstBlockRest } : {},
        limits,
      },
      rules: API_RULES,
    },
  ];
  for (const kind of NODE_KINDS) {
    for (const node of nodesOf(deployment, kind)) {
      units.push({
        key: `${base}-${kind}-${slug(node.name)}`,
        deployment,
        node: { kind, name: node.name },
        view: { name, nodes: { [kind]: node }, limits },
        rules: KIND_RULES[kind],
      });
    }
  }
  return units;
}

/** A fleet run is needed for several deployments or a deployment listing a kind as an array. */
export function isFleet(targets: readonly ResolvedTarget[]): boolean {
  return targets.length > 1 || targets.some((t) => t.fleet !== undefined);
}
