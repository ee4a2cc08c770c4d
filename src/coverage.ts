// Every selected rule gets a verdict. A stage hands back the checks it made and, for the rules it
// may have left without one, why (a Gap); the run turns the gaps into `error` records once, at its
// end, so the shape of a "not run" record and the order in which reasons win live here alone.
import type { Redactor } from './record/redact.js';
import { RULES, stageOf, type Stage } from './rules/catalogue.js';
import type { CheckResult } from './verdict.js';

/** Why some rules got no check: the first gap (in the order given) that covers a rule names its reason. */
export interface Gap {
  /** The rules this reason is for (a stage's own, or every rule). */
  rules: (id: string) => boolean;
  /** One line without a secret; a function when each rule has its own. */
  reason: string | ((rule: string) => string);
}

/** Why the rules of a stage that threw got no check: its first line, without a secret. */
export function stageFailed(stage: Stage, e: unknown, redactor: Redactor): Gap {
  return {
    rules: (id) => stageOf(id) === stage,
    reason: `${stage} stage failed: ${redactor.text(e instanceof Error ? e.message.split('\n')[0]! : String(e))}`,
  };
}

/** Why the rules still without a check at an interrupt got none. */
export const INTERRUPTED: Gap = { rules: () => true, reason: 'interrupted (SIGINT/SIGTERM)' };

/** The record of a selected rule that got no check. */
export function notRunCheck(rule: string, reason: string): CheckResult {
  return {
    id: `${rule.toLowerCase()}.not-run`,
    rule,
    verdict: 'error',
    message: `not run: ${reason}`,
    evidence: { cause: reason },
  };
}

/** One `error` record for each selected rule without a check that a gap covers, in catalogue order. */
export function cover(
  selected: (id: string) => boolean,
  checks: readonly CheckResult[],
  gaps: readonly Gap[],
): CheckResult[] {
  const seen = new Set(checks.map((c) => c.rule));
  const out: CheckResult[] = [];
  for (const { id } of RULES) {
    if (!selected(id) || seen.has(id)) continue;
    const gap = gaps.find((g) => g.rules(id));
    if (gap) out.push(notRunCheck(id, typeof gap.reason === 'string' ? gap.reason : gap.reason(id)));
  }
  return out;
}
