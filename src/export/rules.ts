// Rule ids as the exported documents carry them: in catalogue order, and the catalogue's entry for
// each id the document names, so a reader of the document alone knows what a rule id stands for.
import { RULES, ruleById, type RuleKind } from '../rules/catalogue.js';
import { isSchemaNode } from '../schemas/walk.js';

const order = new Map(RULES.map((r, i) => [r.id, i]));

/** Unique ids in catalogue order; an id the catalogue lacks stops the export. */
export function sortRules(ids: Iterable<string>): string[] {
  const unique = [...new Set(ids)];
  for (const id of unique) ruleById(id);
  return unique.sort((a, b) => order.get(a)! - order.get(b)!);
}

/** Every id under an `x-rules` key anywhere in a document. */
export function rulesIn(doc: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) for (const v of doc) rulesIn(v, found);
  else if (isSchemaNode(doc))
    for (const [k, v] of Object.entries(doc)) {
      if (k === 'x-rules' && Array.isArray(v)) for (const id of v) found.add(String(id));
      else rulesIn(v, found);
    }
  return found;
}

export interface RuleEntry {
  kind: RuleKind;
  title: string;
}

/** The catalogue entries of the rules a document names. */
export function ruleCatalogue(doc: unknown): Record<string, RuleEntry> {
  return Object.fromEntries(
    sortRules(rulesIn(doc)).map((id) => {
      const r = ruleById(id);
      return [id, { kind: r.kind, title: r.title }];
    }),
  );
}
