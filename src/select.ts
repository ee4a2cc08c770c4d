// --only selectors: families (contracts, load, auth, universal, native, nft, node, errors),
// section prefixes (AUTH, NFT, RL, ...) or single rule ids (NFT-09). Matching is by rule id.
import {
  CONTRACT_FAMILIES,
  FAMILIES,
  familyOf,
  PROBE_FAMILIES,
  RULES,
  SECTIONS,
  type Family,
} from './rules/catalogue.js';
import { didYouMean } from './suggest.js';

/** Selector words naming several families (or another word for one). */
const ALIASES: Record<string, readonly Family[]> = {
  contracts: CONTRACT_FAMILIES,
  nodes: ['node'],
  probes: PROBE_FAMILIES,
  limiter: PROBE_FAMILIES,
  rpc: ['native'],
};

export interface Selection {
  /** Whether any check of this rule runs. */
  rule(id: string): boolean;
  family(f: Family): boolean;
  readonly all: boolean;
  readonly text: string;
}

export class SelectorError extends Error {}

export function parseSelectors(spec: string | undefined): Selection {
  if (!spec || !spec.trim()) {
    return { rule: () => true, family: () => true, all: true, text: 'all' };
  }
  const sections = new Set(SECTIONS.map((s) => s.key));
  const ruleIds = new Set(RULES.map((r) => r.id));
  const wanted = new Set<string>();
  for (const raw of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const lower = raw.toLowerCase();
    const upper = raw.toUpperCase();
    const families = ALIASES[lower] ?? (lower in FAMILIES ? [lower] : undefined);
    if (families) for (const f of families) for (const p of FAMILIES[f as Family]) wanted.add(p);
    else if (sections.has(upper) || ruleIds.has(upper)) wanted.add(upper);
    else {
      const known = [...Object.keys(ALIASES), ...Object.keys(FAMILIES), ...sections, ...ruleIds];
      const hint = didYouMean(raw, known);
      const families = ['contracts', ...Object.keys(FAMILIES)].join(', ');
      const usage = ` (use ${families}, a section such as NFT, or a rule id such as NFT-09)`;
      throw new SelectorError(`--only: unknown selector "${raw}"${hint || usage}`);
    }
  }
  if (wanted.size === 0)
    throw new SelectorError(
      '--only: no selector given (use contracts, load, a section such as NFT or a rule id such as NFT-09)',
    );
  const rule = (id: string) => wanted.has(id) || wanted.has(id.split('-')[0]!);
  return {
    rule,
    family: (f) => RULES.some((r) => familyOf(r.id) === f && rule(r.id)),
    all: false,
    text: spec,
  };
}
