// Which runs the self-check makes: one per fault of the catalogue, each selecting the part of the
// suite that fault's family is tested by, plus one fault-free full run.
import { join } from 'node:path';
import type { FaultDef } from '../../reference/faults/types.js';
import { familyOf } from '../../src/rules/catalogue.js';
import { parseSelectors } from '../../src/select.js';
import { userCommand } from '../../src/package.js';

/** The subset's pick per rule section, where the catalogue has it; otherwise its first fault there. */
const REPRESENTATIVES = [
  'xapikey-case-sensitive',
  'blockrest-xauth-rejected',
  'block-number-negative',
  'hex-leading-zero',
  'page-boundary-duplicate',
  'contract-missing-symbol',
  'app-rest-not-json',
  'rl-fixed-window',
];

export const FAULT_FREE = 'fault-free';

export interface PlannedRun {
  /** Folder name under runs/: the fault name, or `fault-free`. */
  key: string;
  fault?: FaultDef;
  /** --only value; undefined for the full run. */
  only?: string;
  outDir: string;
  /** CLI arguments after `cli/start.ts`. */
  args: string[];
}

export const sectionOf = (ruleId: string): string => ruleId.split('-')[0]!;

/** The --only selector of the family (in the catalogue) of the rule the fault breaks. */
export function selectorFor(f: FaultDef): string {
  return familyOf(f.rule);
}

/** One fault per rule section, in catalogue section order, chosen deterministically. */
export function subsetOf(faults: readonly FaultDef[]): FaultDef[] {
  const bySection = new Map<string, FaultDef[]>();
  for (const f of faults) bySection.set(sectionOf(f.rule), [...(bySection.get(sectionOf(f.rule)) ?? []), f]);
  return [...bySection.values()].map((list) => list.find((f) => REPRESENTATIVES.includes(f.name)) ?? list[0]!);
}

export class PlanError extends Error {}

export function planRuns(
  catalogue: readonly FaultDef[],
  opts: { outRoot: string; onlyFaults?: readonly string[]; subset?: boolean; faultFree?: boolean },
): PlannedRun[] {
  let faults = opts.subset ? subsetOf(catalogue) : [...catalogue];
  if (opts.onlyFaults?.length) {
    const names = new Set(catalogue.map((f) => f.name));
    const unknown = opts.onlyFaults.filter((n) => !names.has(n));
    if (unknown.length)
      throw new PlanError(
        `--only-faults: unknown fault ${unknown.map((n) => `"${n}"`).join(', ')} (${userCommand('reference', '--list-faults')})`,
      );
    const wanted = new Set(opts.onlyFaults);
    faults = faults.filter((f) => wanted.has(f.name));
  }
  const runsDir = join(opts.outRoot, 'runs');
  const runs: PlannedRun[] = [];
  if (opts.faultFree ?? true)
    runs.push({ key: FAULT_FREE, outDir: join(runsDir, FAULT_FREE), args: ['--out', join(runsDir, FAULT_FREE)] });
  for (const f of faults) {
    const only = selectorFor(f);
    const outDir = join(runsDir, f.name);
    runs.push({ key: f.name, fault: f, only, outDir, args: ['--fault', f.name, '--only', only, '--out', outDir] });
  }
  return runs;
}

/** Longest first, so two slots finish close together: full and probe runs before contract-only ones. */
export function byExpectedLength(runs: readonly PlannedRun[]): PlannedRun[] {
  const weight = (r: PlannedRun) => (r.only === undefined ? 3 : parseSelectors(r.only).family('load') ? 2 : 1);
  return [...runs].sort((a, b) => weight(b) - weight(a));
}
