// Stability: the full run against the embedded reference, repeated with the other core kept busy
// by a spinning process; every repetition must give the same verdict on every check.
// Flags: STABILITY below (also `--help`).
import { join, resolve } from 'node:path';
import { exitWith } from '../cli/fatal.js';
import { commandLine, defineCommand } from '../cli/args.js';
import type { Verdict } from '../src/verdict.js';
import { runInChild, startBusyLoop } from './bench/runs.js';
import type { RunChildResult } from './bench/run-child.js';

export interface StabilityReport {
  runs: number;
  /** Runs whose verdicts equal the most common set of verdicts. */
  identical: number;
  /** Checks whose verdict (or presence) differed between runs, with how often each verdict came. */
  differing: { id: string; verdicts: Partial<Record<Verdict | 'absent', number>> }[];
  /** Runs that could not complete, with the reason. */
  failedRuns: string[];
  wallSeconds: number[];
}

type VerdictMap = Map<string, Verdict>;

const keyOf = (m: VerdictMap) => JSON.stringify([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Compares the runs' verdicts check by check (check ids are stable across runs). */
export function compareRuns(maps: readonly VerdictMap[]): Pick<StabilityReport, 'identical' | 'differing'> {
  const counts = new Map<string, number>();
  for (const m of maps) counts.set(keyOf(m), (counts.get(keyOf(m)) ?? 0) + 1);
  const identical = Math.max(0, ...counts.values());
  const ids = [...new Set(maps.flatMap((m) => [...m.keys()]))].sort();
  const differing: StabilityReport['differing'] = [];
  for (const id of ids) {
    const seen: Partial<Record<Verdict | 'absent', number>> = {};
    for (const m of maps) {
      const v = m.get(id) ?? 'absent';
      seen[v] = (seen[v] ?? 0) + 1;
    }
    if (Object.keys(seen).length > 1) differing.push({ id, verdicts: seen });
  }
  return { identical, differing };
}

/** Duplicate check ids within one run are told apart by their order, so none is lost. */
function verdictsOf(r: RunChildResult): VerdictMap {
  const m: VerdictMap = new Map();
  for (const c of r.checks) {
    let id = c.id;
    for (let k = 2; m.has(id); k++) id = `${c.id}#${k}`;
    m.set(id, c.verdict);
  }
  return m;
}

export async function runStability(o: {
  runs: number;
  outRoot: string;
  log?: (l: string) => void;
}): Promise<StabilityReport> {
  const maps: VerdictMap[] = [];
  const failedRuns: string[] = [];
  const wallSeconds: number[] = [];
  const busy = startBusyLoop();
  try {
    for (let i = 0; i < o.runs; i++) {
      try {
        const r = await runInChild({ reference: {}, outDir: join(o.outRoot, 'runs', 'stability') });
        maps.push(verdictsOf(r));
        wallSeconds.push(r.wallMs / 1000);
        o.log?.(
          `stability run ${i + 1}/${o.runs}: pass ${r.summary.pass} fail ${r.summary.fail} error ${r.summary.error} ` +
            `observed ${r.summary.observed} skipped ${r.summary.skipped}, ${(r.wallMs / 1000).toFixed(1)} s`,
        );
      } catch (e) {
        failedRuns.push(`run ${i + 1}: ${(e as Error).message}`);
        o.log?.(`stability run ${i + 1}/${o.runs}: could not complete: ${(e as Error).message}`);
      }
    }
  } finally {
    await busy.stop();
  }
  return { runs: o.runs, ...compareRuns(maps), failedRuns, wallSeconds };
}

export function stabilityLine(r: StabilityReport): string {
  const diff = r.differing.length
    ? `; differing checks: ${r.differing
        .map(
          (d) =>
            `${d.id} (${Object.entries(d.verdicts)
              .map(([v, n]) => `${v} x${n}`)
              .join(', ')})`,
        )
        .join('; ')}`
    : '';
  const failed = r.failedRuns.length ? `; ${r.failedRuns.length} run(s) did not complete` : '';
  return `${r.identical} of ${r.runs} identical${diff}${failed}`;
}

export const STABILITY = defineCommand({
  invocation: 'npx tsx tools/stability.ts',
  prefix: 'chainprobe stability',
  summary:
    'Repeats the full run against the embedded reference with the other core kept busy; ' +
    'every repetition must give the same verdict on every check (part of npm run bench).',
  flags: {
    runs: { type: 'string', integer: [2, 100], default: '10', help: 'how many full runs' },
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: 'reports/bench',
      help: "where the runs' reports go (under runs/stability/)",
    },
  },
  exit: ['0  every run identical', '1  otherwise', '2  bad flag'],
});

async function main(): Promise<number> {
  const v = commandLine(STABILITY).values;
  const runs = v.runs;
  const r = await runStability({ runs, outRoot: v.out, log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`stability: ${stabilityLine(r)}\n`);
  return r.identical === r.runs ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(STABILITY.prefix, e),
  );
}
