// results.json `comparison` (with --compare, or written by `chainprobe compare`): two runs of two
// deployments side by side. The types are schemas/results.schema.json's (src/types/generated/):
// only `Found`, a difference in one place before it becomes a row, is this module's own.
import type {
  ResultsComparison,
  ResultsComparisonSide,
  ResultsDifference,
  ResultsFamilyLatency,
  ResultsLatencyFigures,
  ResultsRuleComparison,
} from '../types/generated/results.js';

export type DifferenceKind = ResultsDifference['kind'];

/** Every kind of difference the schema names, in the order of the differences table. */
export const DIFFERENCE_KINDS = [
  'verdict',
  'check',
  'request',
  'status',
  'content-type',
  'header',
  'body-shape',
  'rpc-error',
  'value',
  'walk',
  'observation',
  'limiter',
  'latency',
] as const satisfies readonly DifferenceKind[];
// A kind the schema adds is a type error here until the list gives it its place.
true satisfies [Exclude<DifferenceKind, (typeof DIFFERENCE_KINDS)[number]>] extends [never] ? true : false;

/** One side of the comparison: which run it was (its label, its failing, erroring and waived rules). */
export type ComparisonSide = ResultsComparisonSide;

/** One difference found in one place (a check, a request, a family). */
export interface Found {
  kind: DifferenceKind;
  /** The comparison rule that found it (CMP-xx). */
  cmp: string;
  /** The catalogue rule of the check it was found in; none for latency. */
  rule?: string;
  /** What differs: a field path, a header name, an estimate. */
  key: string;
  /** The two values; absent where a side has none. */
  a?: unknown;
  b?: unknown;
  /** The normalised check id it was found in. */
  check?: string;
  /** The request it was found in (method and path with ids as placeholders). */
  subject?: string;
}

/** A row of the differences table: one difference, and everywhere it was found (with --waivers, the waiver that covers it). */
export type Difference = ResultsDifference;

/** Each catalogue rule (and any other rule a side's checks name): both verdicts and what differs under it. */
export type RuleComparison = ResultsRuleComparison;

export type LatencyFigures = ResultsLatencyFigures;

export type FamilyLatency = ResultsFamilyLatency;

export type Comparison = ResultsComparison;
