// A run's checks as the reports read them: rule by rule. A run holds them in memory (checkSetOf);
// a merge of many runs keeps them on disk, one file a rule (src/fleet/check-spool.ts), so a report
// holds one rule's checks at a time and its memory does not grow with the number of runs merged.
// What the reports need of all checks at once (counts, which verdicts each rule has) is folded as
// the checks arrive: its size is that of the catalogue, not of the run.
import { rollUp, VERDICTS, emptySummary, type CheckResult, type Summary, type Verdict } from './verdict.js';

export interface CheckSet {
  /** How many checks. */
  readonly count: number;
  /** The rules that have checks, in the order their first check came. */
  rules(): readonly string[];
  /** One rule's checks, in the order they came. */
  of(rule: string): readonly CheckResult[];
  /** Which verdicts a rule's checks have (empty: no check), without reading the checks. */
  verdicts(rule: string): ReadonlySet<Verdict>;
  /** Every check, rule by rule (in memory: in the order they came). */
  all(): Iterable<CheckResult>;
}

/** The rolled-up verdict of a rule from the verdicts its checks have (rollUp, src/verdict.ts). */
export const rollUpSet = (present: ReadonlySet<Verdict>): Verdict => rollUp([...present]);

/** Counts and per-rule verdicts folded one check at a time: a run's `summary` and `rules`. */
export class Tally {
  readonly summary: Summary = emptySummary();
  private readonly byRule = new Map<string, Set<Verdict>>();

  add(c: CheckResult): void {
    this.summary[c.verdict]++;
    // A failure an unexpired waiver covers (--waivers) is counted apart too: a merge keeps it waived.
    if ((c.verdict === 'fail' || c.verdict === 'error') && c.waiver && !c.waiver.expired)
      this.summary.waived = (this.summary.waived ?? 0) + 1;
    const seen = this.byRule.get(c.rule);
    if (seen) seen.add(c.verdict);
    else this.byRule.set(c.rule, new Set([c.verdict]));
  }

  get count(): number {
    return VERDICTS.reduce((n, v) => n + this.summary[v], 0);
  }

  /** Rules with checks, in the order their first check came. */
  rules(): string[] {
    return [...this.byRule.keys()];
  }

  verdicts(rule: string): ReadonlySet<Verdict> {
    return this.byRule.get(rule) ?? NONE;
  }

  /** Each of `ids` rolled up over its checks ('skipped' for a rule without one). */
  rolledUp(ids: readonly string[]): Record<string, Verdict> {
    return Object.fromEntries(ids.map((id) => [id, rollUpSet(this.verdicts(id))]));
  }
}

const NONE: ReadonlySet<Verdict> = new Set();

/** The checks of a run held in memory. */
export function checkSetOf(checks: readonly CheckResult[]): CheckSet {
  const byRule = new Map<string, CheckResult[]>();
  const tally = new Tally();
  for (const c of checks) {
    tally.add(c);
    const list = byRule.get(c.rule);
    if (list) list.push(c);
    else byRule.set(c.rule, [c]);
  }
  return {
    count: checks.length,
    rules: () => [...byRule.keys()],
    of: (rule) => byRule.get(rule) ?? [],
    verdicts: (rule) => tally.verdicts(rule),
    all: () => checks,
  };
}
