// One verdict vocabulary for every check the suite runs (contracts and probes alike).
import type { Exchange } from './record/recorder.js';

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
  evidence: Evidence;
  durationMs?: number;
  /** With several targets or nodes (a fleet): the deployment's name, and for node checks the node's name and kind. */
  target?: string;
  node?: string;
  nodeKind?: string;
  /** With --waivers: the waiver that names this failing or erroring check (src/waivers/waivers.ts). */
  waiver?: {
    rule: string;
    reason: string;
    expires: string;
    link?: string;
    target?: string;
    node?: string;
    expired?: true;
  };
}

/**
 * The evidence trail of a check. Writers render the conventional fields; anything else is shown
 * as JSON. Every value here is already redacted (it came through the Recorder).
 */
export interface Evidence {
  /** The requests and responses the check made, as recorded. */
  exchanges?: Exchange[];
  /** For fail: what the rule expects and what the target did, and where (JSON path). */
  expected?: unknown;
  actual?: unknown;
  path?: string;
  /** For observe rules and the open part of must rules: what the target does, stable for baselines. */
  observation?: Record<string, unknown>;
  /** For error: why the check could not be made (timeout, network, budget). */
  cause?: string;
  [extra: string]: unknown;
}

/** Checks per verdict; with --waivers, `waived` counts the failing and erroring ones an unexpired waiver covers. */
export type Summary = Record<Verdict, number> & { waived?: number };

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
