// Every selected rule gets a verdict. A stage hands back the checks it made and, for the rules it
// may have left without one, why (a Gap); the run turns the gaps into `error` records once, at its
// end, so the shape of a "not run" record and the order in which reasons win live here alone.
import type { Redactor } from './record/redact.js';
import { RULES, stageOf, type Stage } from './rules/catalogue.js';
import type { CheckResult, Summary } from './verdict.js';

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

/**
 * Whether a run checked anything: some check has a verdict other than `skipped`. One that did not
 * (every selected rule skipped: a target file without the sections the selection needs) is no pass.
 */
export const checkedAny = (s: Summary): boolean => s.pass + s.fail + s.observed + s.error > 0;

/** results.nothingChecked: why no selected rule was checked, the rules grouped by the reason they were skipped. */
export interface NothingChecked {
  /** In catalogue order; `reason` is absent where the checks were not at hand (a merge counts them only). */
  skipped: { reason?: string; rules: string[] }[];
}

/**
 * The rules of a run that checked nothing, grouped by the reason of each rule's first check (its
 * cause), in catalogue order. `checks` may be empty (a merge's tally knows the rules, not the reasons).
 */
export function nothingChecked(rules: readonly string[], checks: Iterable<CheckResult>): NothingChecked {
  const reasons = new Map<string, string>();
  for (const c of checks) {
    if (!reasons.has(c.rule)) reasons.set(c.rule, typeof c.evidence?.cause === 'string' ? c.evidence.cause : c.message);
  }
  const order = new Map(RULES.map((r, i) => [r.id, i]));
  const at = (id: string) => order.get(id) ?? order.size;
  const groups = new Map<string | undefined, string[]>();
  for (const rule of [...rules].sort((a, b) => at(a) - at(b))) {
    const reason = reasons.get(rule);
    const group = groups.get(reason);
    if (group) group.push(rule);
    else groups.set(reason, [rule]);
  }
  return { skipped: [...groups].map(([reason, ids]) => ({ ...(reason !== undefined && { reason }), rules: ids })) };
}

/** Rule ids listed on the line before "and N more", and reasons before "N more rules skipped for other reasons". */
const SHOWN_RULES = 4;
const SHOWN_REASONS = 3;

const listed = (ids: readonly string[]): string =>
  ids.length <= SHOWN_RULES
    ? ids.join(', ')
    : `${ids.slice(0, SHOWN_RULES - 1).join(', ')} and ${ids.length - SHOWN_RULES + 1} more rules`;

/**
 * The one line that says a run checked nothing, and why: "no selected rule was checked: UNI-01,
 * UNI-02 skipped (target has no api.universal entry)".
 */
export function nothingCheckedLine(n: NothingChecked): string {
  const shown = n.skipped.slice(0, SHOWN_REASONS);
  const parts = shown.map((g) => `${listed(g.rules)} skipped${g.reason ? ` (${g.reason})` : ''}`);
  const rest = n.skipped.slice(SHOWN_REASONS).reduce((k, g) => k + g.rules.length, 0);
  if (rest) parts.push(`${rest} more rule${rest === 1 ? '' : 's'} skipped for other reasons (results.json)`);
  return `no selected rule was checked: ${parts.length ? parts.join('; ') : 'the run made no check'}`;
}
