// --compare, --fail-on-difference and --waivers (the run command; `chainprobe compare` takes the
// last two too): their flag lines and the checks that need no file read. What the run does with
// them is cli/compare-run.ts.
import type { FlagDef } from './args.js';
import { UsageError } from './fatal.js';

export const FAIL_ON_DIFFERENCE_FLAG = {
  type: 'boolean',
  help: 'with a comparison: exit 1 on any difference no waiver covers, as on a failing rule',
} as const satisfies FlagDef;

export const WAIVERS_FLAG = {
  type: 'string',
  value: '<file.json>',
  path: true,
  help:
    'known failures (rule, optional target and node, reason, expiry, link; schemas/waivers.schema.json): ' +
    'reported with their reason, not counted in the exit status until they expire; stale and expired ones are reported',
} as const satisfies FlagDef;

export const COMPARE_FLAGS = {
  compare: {
    type: 'string',
    value: '<file.json>',
    path: true,
    help:
      "a second deployment's target file, checked in the same run with the same plan as --target; " +
      'the reports compare the two rule by rule (its own reports go to <out>/compare)',
  },
  'fail-on-difference': FAIL_ON_DIFFERENCE_FLAG,
  waivers: WAIVERS_FLAG,
} as const satisfies Record<string, FlagDef>;

export interface CompareFlagValues {
  compare?: string;
  'fail-on-difference': boolean;
  waivers?: string;
  target: string[];
  node?: string;
  shard?: string;
}

/** Combinations the flag table cannot express; exit 2 before anything is read or sent. */
export function checkCompareFlags(v: CompareFlagValues): void {
  if (v['fail-on-difference'] && v.compare === undefined)
    throw new UsageError('--fail-on-difference needs --compare <file.json> (or use chainprobe compare)');
  if (v.compare === undefined) return;
  if (v.node !== undefined) throw new UsageError('--compare goes with --target <file.json>, not --node');
  if (v.target.length !== 1)
    throw new UsageError(
      `--compare needs exactly one --target <file.json> to compare with (${v.target.length ? `${v.target.length} given` : 'none given'})`,
    );
  if (v.shard !== undefined)
    throw new UsageError('--compare and --shard exclude each other: a comparison needs both runs whole');
}
