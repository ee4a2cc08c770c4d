// The full contract run against the embedded reference: wall time and checks per second.
import { join } from 'node:path';
import { figure, type Figure } from './figures.js';
import { runInChild } from './runs.js';
import type { RunChildResult } from './run-child.js';
import { COMMAND_TARGET_S } from './waits.js';

export interface ContractSettings {
  reps: number;
  outRoot: string;
}

const served = (r: RunChildResult | undefined) => (r ? Object.values(r.counters).reduce((a, b) => a + b, 0) : 0);

export async function benchContracts(s: ContractSettings): Promise<Figure[]> {
  const runs: RunChildResult[] = [];
  for (let i = 0; i < s.reps; i++)
    runs.push(await runInChild({ reference: {}, only: 'contracts', outDir: join(s.outRoot, 'runs', 'contracts') }));
  const group = 'Contract run';
  const bad = runs.filter((r) => r.summary.fail || r.summary.error).length;
  const what =
    "runChainprobe in a child process with the installed package's code, --only contracts (the embedded reference's start excluded)";
  const note = `${what}${bad ? `; ${bad} run(s) had fail/error verdicts` : ''}`;
  return [
    figure({
      id: 'contracts.wall',
      group,
      label: 'full contract run, wall time',
      unit: 's',
      values: runs.map((r) => r.wallMs / 1000),
      note: `${note}; the whole command's target (<= ${COMMAND_TARGET_S} s, process start included) is the 'waits' section's`,
      details: { checks: runs.map((r) => r.checks.length), summaries: runs.map((r) => r.summary) },
    }),
    figure({
      id: 'contracts.auth-requests',
      readme: true,
      group,
      label: 'requests spent by the auth checks',
      unit: 'requests',
      values: runs.map((r) => r.authRequests),
      note:
        'right credentials, none and wrong ones (near misses, empty, duplicated) in every accepted form; ' +
        `of ${served(runs[0])} requests the reference received in the run`,
    }),
    figure({
      id: 'contracts.checks-per-second',
      readme: true,
      group,
      label: 'checks per second',
      unit: 'checks/s',
      values: runs.map((r) => r.checks.length / (r.wallMs / 1000)),
      note: `${runs[0]?.checks.length ?? 0} checks per run`,
    }),
  ];
}
