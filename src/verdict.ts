// One verdict vocabulary for every check the suite runs (contracts and probes alike).

export const VERDICTS = ['pass', 'fail', 'observed', 'skipped', 'error'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One check: keyed to a rule id, with a one-line message and its evidence trail. */
export interface CheckResult {
  /** Stable check id, e.g. `nft.event.fields[bearer]`. */
  id: string;
  /** Rule id of the catalogue, e.g. `NFT-01`. */
  rule: string;
  verdict: Verdict;
  /** One line a person can act on. */
  message: string;
  /** Requests/responses (already redacted), expected vs actual, JSON paths, observations. */
  evidence: Record<string, unknown>;
  durationMs?: number;
}

export type Summary = Record<Verdict, number>;

export function emptySummary(): Summary {
  return { pass: 0, fail: 0, observed: 0, skipped: 0, error: 0 };
}

/**
 * Rolls checks up per rule, as interfaces.md says: fail beats error beats pass/observed;
 * skipped only when every check was skipped.
 */
export function rollUp(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.length === 0) return 'skipped';
  if (verdicts.includes('fail')) return 'fail';
  if (verdicts.includes('error')) return 'error';
  if (verdicts.includes('pass')) return 'pass';
  if (verdicts.includes('observed')) return 'observed';
  return 'skipped';
}
