// The results file (interfaces.md section 3) as a type and a builder.
import { RULES } from './rules/catalogue.js';
import type { CheckResult, Summary, Verdict } from './verdict.js';
import { Tally } from './check-set.js';
import { checkedAny, nothingChecked, type NothingChecked } from './coverage.js';

export interface LimiterEstimates {
  limit: number;
  burst: number;
  emissionIntervalMs: number;
  perSecondCap: number;
  requestsSent: number;
  durationMs: number;
  [extra: string]: unknown;
}

export interface ResultsFile {
  tool: { name: string; version: string };
  target: string;
  startedAt: string;
  finishedAt: string;
  summary: Summary;
  rules: Record<string, Verdict>;
  checks: CheckResult[];
  limiter: LimiterEstimates | null;
  /** Present when no check was made beyond `skipped`: which rules were skipped, and why. Exit status 1. */
  nothingChecked?: NothingChecked;
  [extra: string]: unknown;
}

/** A fault of the embedded reference that was switched on, and the rule it breaks (results.reference.faultDetails). */
export interface FaultDetail {
  name: string;
  rule: string;
  description: string;
}

/** results.reference: the embedded reference's switches, when it was the target. */
export interface ReferenceRecord {
  faults: string[];
  variants: string[];
  faultDetails?: FaultDetail[];
}

/** The faults a run switched on, with what they break (none when the target was not the embedded reference). */
export function faultsOf(results: ResultsFile): FaultDetail[] {
  const ref = results.reference as Partial<ReferenceRecord> | undefined;
  return Array.isArray(ref?.faultDetails) ? ref.faultDetails : [];
}

import { TOOL } from './tool.js';

export { TOOL };

/**
 * The version of results.json's format: it changes only when a field is renamed, removed or given
 * another meaning (new fields keep it). A file without `format` is of format 1, the first.
 */
export const RESULTS_FORMAT = 1;

/** A results file's format version (1 when it does not say). */
export const formatOf = (results: ResultsFile): unknown => results.format ?? 1;

/**
 * Rolls checks up into the summary and the per-rule verdicts. Every catalogue rule appears. A merge
 * that keeps its checks on disk gives its own tally of them and no checks (src/fleet/merge.ts).
 */
export function buildResults(input: {
  target: string;
  startedAt: Date;
  finishedAt: Date;
  checks: CheckResult[];
  tally?: Tally;
  limiter: LimiterEstimates | null;
  extra?: Record<string, unknown>;
}): ResultsFile {
  let tally = input.tally;
  if (!tally) {
    tally = new Tally();
    for (const c of input.checks) tally.add(c);
  }
  const summary = { ...tally.summary };
  const rules = tally.rolledUp(RULES.map((r) => r.id));
  return {
    tool: { ...TOOL },
    format: RESULTS_FORMAT,
    target: input.target,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    summary,
    rules,
    checks: input.checks,
    limiter: input.limiter,
    // A merge hands its tally alone: the rules are known, their reasons stay with the checks (cli/merge.ts adds them).
    ...(!checkedAny(summary) && { nothingChecked: nothingChecked(tally.rules(), input.checks) }),
    ...input.extra,
  };
}

/**
 * Exit status of a run: 1 when any check failed or errored, or when no check was made beyond
 * `skipped` (results.nothingChecked: a run that tested nothing is no pass).
 */
export function exitCodeOf(results: ResultsFile): 0 | 1 {
  const s = results.summary;
  // A failure an unexpired waiver covers (--waivers: summary.waived) does not count.
  return s.fail + s.error - (s.waived ?? 0) > 0 || !checkedAny(s) ? 1 : 0;
}
