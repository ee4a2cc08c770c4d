// `npm run selfcheck` - proves the suite catches what it claims: runs chainprobe against the
// embedded reference once per fault of its catalogue (with --only the fault's family) and once
// with no fault, and prints the kill-rate table. Flags: SELFCHECK below (also `--help`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { FAULTS } from '../reference/faults/index.js';
import type { FaultDef } from '../reference/faults/types.js';
import { exitWith, UsageError } from './fatal.js';
import { INSTALLED } from '../src/package.js';
import { commandLine, defineCommand, isMain } from './args.js';
import { prepareOutDir } from './outdir.js';
import { byExpectedLength, FAULT_FREE, planRuns, PlanError, type PlannedRun } from './selfcheck/plan.js';
import {
  classifyClean,
  classifyFault,
  OUTCOME_TEXT,
  summarize,
  type CleanRow,
  type FaultRow,
  type RunFacts,
} from './selfcheck/classify.js';
import { pool, runVariant, stopAllRuns } from './selfcheck/runner.js';
import { htmlReport, textReport, type SelfcheckReport } from './selfcheck/render.js';

export interface SelfcheckOptions {
  /** Where index.html, results.json and runs/<fault>/ go. */
  outRoot: string;
  onlyFaults?: readonly string[];
  /** One fault per rule section. */
  subset?: boolean;
  /** Variants at a time (default 2). */
  concurrency?: number;
  faultFree?: boolean;
  /** Per-variant time limit. */
  timeoutMs?: number;
  catalogue?: readonly FaultDef[];
  /** One line per finished variant. */
  log?: (line: string) => void;
  /** Node's arguments that start each variant's run (default: as a user here starts `chainprobe`). */
  start?: readonly string[];
}

const relReport = (outRoot: string, run: PlannedRun) => relative(outRoot, join(run.outDir, 'index.html'));

export async function runSelfcheck(o: SelfcheckOptions): Promise<SelfcheckReport> {
  const outRoot = resolve(o.outRoot);
  const concurrency = o.concurrency ?? 2;
  const plan = byExpectedLength(
    planRuns(o.catalogue ?? FAULTS, { outRoot, onlyFaults: o.onlyFaults, subset: o.subset, faultFree: o.faultFree }),
  );
  const started = new Date();
  const log = o.log ?? (() => {});
  let done = 0;
  const facts = await pool(plan, concurrency, async (run) => {
    const f = await runVariant({
      args: run.args,
      start: o.start,
      outDir: run.outDir,
      timeoutMs: o.timeoutMs ?? 300_000,
    });
    done++;
    const what = run.fault ? `${run.fault.name} (${run.fault.rule})` : 'fault-free full run';
    const outcome = run.fault
      ? OUTCOME_TEXT[classifyFault(run.fault, run.only!, f, '').outcome]
      : classifyClean(f, '').clean
        ? 'clean'
        : 'NOT CLEAN';
    log(
      `[${String(done).padStart(String(plan.length).length)}/${plan.length}] ${what}: ${outcome}, ${(f.durationMs / 1000).toFixed(1)} s`,
    );
    return f;
  });
  const rows: FaultRow[] = [];
  let faultFree: CleanRow | undefined;
  plan.forEach((run, i) => {
    const f: RunFacts = facts[i]!;
    if (run.key === FAULT_FREE) faultFree = classifyClean(f, relReport(outRoot, run));
    else rows.push(classifyFault(run.fault!, run.only!, f, relReport(outRoot, run)));
  });
  // The table follows the catalogue's order, whatever order the runs finished in.
  const order = new Map((o.catalogue ?? FAULTS).map((f, i) => [f.name, i]));
  rows.sort((a, b) => order.get(a.fault)! - order.get(b.fault)!);
  const finished = new Date();
  const report: SelfcheckReport = {
    tool: 'chainprobe selfcheck',
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    concurrency,
    subset: o.subset ?? false,
    summary: summarize(rows, faultFree),
    ...(faultFree && { faultFree }),
    faults: rows,
  };
  mkdirSync(outRoot, { recursive: true });
  writeFileSync(join(outRoot, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outRoot, 'index.html'), htmlReport(report));
  return report;
}

export const SELFCHECK = defineCommand({
  invocation: 'npm run selfcheck --',
  prefix: 'chainprobe selfcheck',
  summary:
    'Proves the suite catches what it claims: runs chainprobe against the embedded reference ' +
    "once per fault of its catalogue (only the fault's family) and once with no fault, and prints the kill-rate table.",
  flags: {
    'only-faults': {
      type: 'string',
      value: '<a,b,...>',
      help: 'run only these faults (names from npm run reference -- --list-faults)',
    },
    subset: { type: 'boolean', help: 'one fault per rule section: a quick representative run' },
    concurrency: { type: 'string', integer: [1, 8], default: '2', help: 'runs at a time' },
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: INSTALLED ? 'chainprobe-report/selfcheck' : 'reports/selfcheck',
      help: "where index.html, results.json and each run's reports go",
    },
    'skip-fault-free': { type: 'boolean', help: 'leave out the run without any fault' },
  },
  examples: [
    'npm run selfcheck',
    'npm run selfcheck -- --subset',
    'npm run selfcheck -- --only-faults rl-wrong-hourly-rate,event-wrong-id',
  ],
  exit: ['0  every fault caught on its own rule and the fault-free run clean', '1  otherwise', '2  bad flag'],
});

function parseCli(argv: string[]): SelfcheckOptions {
  const v = commandLine(SELFCHECK, argv).values;
  const onlyFaults = v['only-faults']
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (v['only-faults'] !== undefined && !onlyFaults?.length)
    throw new UsageError('--only-faults: expected fault names separated by commas');
  prepareOutDir(v.out);
  return { outRoot: v.out, onlyFaults, subset: v.subset, concurrency: v.concurrency, faultFree: !v['skip-fault-free'] };
}

async function main(): Promise<number> {
  const opts = parseCli(process.argv.slice(2));
  const onSignal = () => {
    process.stderr.write('\nselfcheck: interrupted; stopping the variants\n');
    stopAllRuns();
    setTimeout(() => process.exit(130), 3000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let report: SelfcheckReport;
  try {
    report = await runSelfcheck({ ...opts, log: (l) => process.stderr.write(`${l}\n`) });
  } catch (e) {
    if (e instanceof PlanError) throw new UsageError(e.message);
    throw e;
  }
  process.stdout.write(`\n${textReport(report)}\n  report: ${resolve(opts.outRoot, 'index.html')}\n`);
  return report.summary.ok ? 0 : 1;
}

/** Runs the command on process.argv (npm run selfcheck, or chainprobe selfcheck). */
export function cli(): void {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(SELFCHECK.prefix, e),
  );
}

if (isMain(import.meta.url)) cli();
