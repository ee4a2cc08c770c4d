// What a run's closing summary says, wherever it is printed (the terminal, the Markdown job
// summary, the merge command): the counts with their units (the rules that had checks, each by its
// rolled-up verdict, and the checks, each by its own), and each failing rule with its first check.
import { coveredByCause } from './net/causes.js';
import type { ResultsFile } from './results.js';
import { checkSetOf, type CheckSet } from './check-set.js';
import { emptySummary, VERDICTS, type CheckResult, type Summary, type Verdict } from './verdict.js';

export interface Counts {
  rules: number;
  byRule: Summary;
  checks: number;
  byCheck: Summary;
}

/** `checks`: where `results` does not hold its checks (a merge keeps them on disk). */
export function countsOf(results: ResultsFile, checks: CheckSet = checkSetOf(results.checks)): Counts {
  const checked = checks.rules();
  const byRule = emptySummary();
  for (const rule of checked) {
    const v = results.rules[rule];
    if (v) byRule[v]++;
  }
  return { rules: checked.length, byRule, checks: checks.count, byCheck: { ...results.summary } };
}

/** "1 rule", "70 rules". */
export const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** "70 rules: 60 pass, 1 fail, 9 observed, 0 skipped, 0 error". */
export const countsLine = (n: number, unit: 'rule' | 'check', by: Summary): string =>
  `${plural(n, unit)}: ${VERDICTS.map((v) => `${by[v]} ${v}`).join(', ')}`;

/** The two lines: rules, then checks. */
export function countLines(results: ResultsFile, checks?: CheckSet): [string, string] {
  const c = countsOf(results, checks);
  return [countsLine(c.rules, 'rule', c.byRule), countsLine(c.checks, 'check', c.byCheck)];
}

/** Each rule whose verdict is fail or error, with its first check of that verdict (not one a connection cause explains). */
export function failingRules(
  results: ResultsFile,
  checks: CheckSet = checkSetOf(results.checks),
): { rule: string; verdict: Verdict; check: CheckResult }[] {
  return Object.entries(results.rules).flatMap(([rule, verdict]) => {
    if (verdict !== 'fail' && verdict !== 'error') return [];
    const check = checks.of(rule).find((c) => c.verdict === verdict && !coveredByCause(c));
    return check ? [{ rule, verdict, check }] : [];
  });
}
