// What a self-check run shows: for a fault, whether the suite failed the rule the fault breaks;
// for the fault-free run, whether anything failed or errored.
import type { ResultsFile } from '../../src/results.js';
import type { Verdict } from '../../src/verdict.js';
import type { FaultDef } from '../../reference/faults/types.js';

/**
 * caught: the fault's own rule failed. elsewhere: another rule failed, its own did not.
 * missed: no rule failed. error: the run produced no results (could not start, crashed, timed out).
 */
export type Outcome = 'caught' | 'elsewhere' | 'missed' | 'error';

export const OUTCOME_TEXT: Record<Outcome, string> = {
  caught: 'caught on its rule',
  elsewhere: 'caught only elsewhere',
  missed: 'MISSED',
  error: 'run error',
};

export interface RunFacts {
  exitCode: number | null;
  durationMs: number;
  /** Set when the run produced no results.json (or it could not be read). */
  problem?: string;
  results?: ResultsFile;
}

export interface FaultRow {
  fault: string;
  rule: string;
  family: string;
  description: string;
  only: string;
  outcome: Outcome;
  /** The rolled-up verdict of the fault's own rule. */
  ruleVerdict?: Verdict;
  /** Other rules that failed too (collateral), sorted. */
  alsoFailed: string[];
  /** The first failing check on the fault's rule, for the reader. */
  message?: string;
  durationMs: number;
  exitCode: number | null;
  problem?: string;
  report: string;
}

export interface CleanRow {
  clean: boolean;
  /** Rules whose verdict is fail or error. */
  bad: { rule: string; verdict: Verdict; message?: string }[];
  summary?: ResultsFile['summary'];
  durationMs: number;
  exitCode: number | null;
  problem?: string;
  report: string;
}

function failing(results: ResultsFile, verdicts: readonly Verdict[]): string[] {
  return Object.entries(results.rules)
    .filter(([, v]) => verdicts.includes(v))
    .map(([r]) => r)
    .sort();
}

export function classifyFault(f: FaultDef, only: string, run: RunFacts, report: string): FaultRow {
  const base = {
    fault: f.name,
    rule: f.rule,
    family: f.family,
    description: f.description,
    only,
    durationMs: run.durationMs,
    exitCode: run.exitCode,
    report,
  };
  const r = run.results;
  if (!r) return { ...base, outcome: 'error', alsoFailed: [], problem: run.problem ?? 'no results.json' };
  const failed = failing(r, ['fail']);
  const ruleVerdict = r.rules[f.rule];
  const outcome: Outcome = ruleVerdict === 'fail' ? 'caught' : failed.length ? 'elsewhere' : 'missed';
  const first = r.checks.find(
    (c) => c.rule === f.rule && c.verdict === (ruleVerdict === 'fail' ? 'fail' : ruleVerdict),
  );
  return {
    ...base,
    outcome,
    ruleVerdict,
    alsoFailed: failed.filter((id) => id !== f.rule),
    ...(first && { message: first.message }),
    ...(run.problem && { problem: run.problem }),
  };
}

export function classifyClean(run: RunFacts, report: string): CleanRow {
  const base = { durationMs: run.durationMs, exitCode: run.exitCode, report };
  const r = run.results;
  if (!r) return { ...base, clean: false, bad: [], problem: run.problem ?? 'no results.json' };
  const bad = failing(r, ['fail', 'error']).map((rule) => {
    const verdict = r.rules[rule]!;
    return { rule, verdict, message: r.checks.find((c) => c.rule === rule && c.verdict === verdict)?.message };
  });
  return {
    ...base,
    clean: bad.length === 0 && !run.problem,
    bad,
    summary: r.summary,
    ...(run.problem && { problem: run.problem }),
  };
}

export interface SelfcheckSummary {
  total: number;
  caught: number;
  elsewhere: number;
  missed: number;
  error: number;
  /** Every fault caught on its rule and the fault-free run clean (when it ran). */
  ok: boolean;
}

export function summarize(rows: readonly FaultRow[], clean: CleanRow | undefined): SelfcheckSummary {
  const count = (o: Outcome) => rows.filter((r) => r.outcome === o).length;
  const s = {
    total: rows.length,
    caught: count('caught'),
    elsewhere: count('elsewhere'),
    missed: count('missed'),
    error: count('error'),
  };
  return { ...s, ok: s.caught === s.total && (clean ? clean.clean : true) };
}
