// schemas/target.schema.json's `x-rules`, written from the catalogue (src/rules/catalogue.ts
// TARGET_SECTION_RULES): each titled section's list, in place, the rest of the file as it is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TARGET_SECTION_RULES } from '../src/rules/catalogue.js';

export const TARGET_SCHEMA = 'target.schema.json';

/** The schema's text with every titled section's x-rules taken from the catalogue. */
export function targetSchemaWithRules(schemasDir: string): string {
  const text = readFileSync(join(schemasDir, TARGET_SCHEMA), 'utf8');
  const seen = new Set<string>();
  const out = text.replace(/("title": "(\w+)",[^]*?"x-rules": )\[[^\]]*\]/g, (all, head: string, title: string) => {
    const rules = TARGET_SECTION_RULES[title];
    if (!rules) return all;
    seen.add(title);
    return `${head}[${rules.map((r) => JSON.stringify(r)).join(', ')}]`;
  });
  const missing = Object.keys(TARGET_SECTION_RULES).filter((t) => !seen.has(t));
  if (missing.length) throw new Error(`${TARGET_SCHEMA}: no x-rules for the section(s) ${missing.join(', ')}`);
  return out;
}
