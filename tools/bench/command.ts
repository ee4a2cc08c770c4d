// The whole command as a user runs it, process start included: `chainprobe` of the installed
// package (package.ts) and `npm start --` in the clone (npm, then Node with tsx's loader running
// cli/start.ts), each against the embedded reference it starts itself, from spawned to exited.
// Where that time went is read off the results.json the run wrote: its start, its contract stage,
// its end.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RATE_LIMITED, REST_PATHS } from '../../contracts/node-rest.js';
import { spacedGapMs } from '../../src/pacing.js';
import type { ResultsFile } from '../../src/results.js';
import { DEFAULT_PER_SECOND_CAP } from '../../src/target-file/types.js';
import type { Summary } from '../../src/verdict.js';
import { REPO_ROOT } from './child.js';
import { installedPackage } from './package.js';
import { spread } from './stats.js';

/** How the user runs it: the installed bin, or the clone's npm script. */
export type CommandForm = 'installed' | 'clone';

export const COMMAND_LINE: Record<CommandForm, string> = {
  installed: 'chainprobe',
  clone: 'npm start --',
};

/** The whole command's wall time cut where results.json shows an edge, ms. */
export interface CommandPhases {
  /** Spawned to the run's start: Node (npm and tsx in a clone), the command's modules, the embedded reference's start. */
  startMs: number;
  /** The run's start to the contract stage's: the output folder cleared, one connection per address (the preflight). */
  preflightMs: number;
  /** The contract stage: every family's plan sent and judged. */
  contractsMs: number;
  /** The stage's end to results.json's `finishedAt`, then on to the exit: the roll-up, the reports written, the reference closed. */
  endMs: number;
}

export interface CommandRun {
  form: CommandForm;
  wallMs: number;
  /** CPU (user + sys) of the command and every process it waited for, ms; where GNU time is at hand. */
  cpuMs?: number;
  exitCode: number;
  summary: Summary;
  phases: CommandPhases;
  /** The contract requests the run sent to the rate-limited node, each one cap interval after the last. */
  paced: number;
}

/** The contract requests a run sent to the rate-limited node (its paced ones), told by their purpose in the evidence. */
export function pacedRequests(results: ResultsFile): number {
  const prefixes = Object.entries(REST_PATHS)
    .filter(([, def]) => RATE_LIMITED.has(def.node))
    .map(([path]) => `node.${path}[`);
  const seqs = new Set<number>();
  for (const c of results.checks)
    for (const x of (c.evidence?.exchanges ?? []) as { seq: number; purpose?: string }[])
      if (prefixes.some((p) => x.purpose?.startsWith(p))) seqs.add(x.seq);
  return seqs.size;
}

/** The least time `n` paced requests take under the embedded reference's cap (the default): one cap interval with its margin between each and the next. */
export const pacedFloorMs = (n: number): number => Math.max(0, n - 1) * spacedGapMs(DEFAULT_PER_SECOND_CAP);

export const PHASES: { key: keyof CommandPhases; label: string }[] = [
  {
    key: 'startMs',
    label: "spawned to the run's start (Node, npm and tsx in a clone, the modules, the embedded reference)",
  },
  { key: 'preflightMs', label: 'output folder and preflight' },
  { key: 'contractsMs', label: 'contract stage (every plan sent and judged)' },
  { key: 'endMs', label: 'roll-up, reports, the reference closed, exit' },
];

/** GNU time: the CPU of a command and of the processes it waited for (npm's, tsx's), which Node cannot tell of a child. */
const TIME = '/usr/bin/time';

/** `command` under GNU time writing its CPU to `cpuFile` (emptied first); as it is where there is none. */
export function underGnuTime(command: readonly string[], cpuFile: string): string[] {
  rmSync(cpuFile, { force: true });
  return existsSync(TIME) ? [TIME, '-f', '%U %S', '-o', cpuFile, ...command] : [...command];
}

/** The CPU (user + sys, ms) GNU time wrote to `cpuFile`; undefined without it. */
export function gnuTimeCpuMs(cpuFile: string): number | undefined {
  const cpu = existsSync(cpuFile)
    ? readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number)
    : [];
  return cpu.length === 2 && cpu.every(Number.isFinite) ? (cpu[0]! + cpu[1]!) * 1000 : undefined;
}

/** Runs `args` the way `form` does, in its own output folder (emptied first), and times it. */
export async function runCommand(form: CommandForm, args: readonly string[], outDir: string): Promise<CommandRun> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(dirname(outDir), { recursive: true });
  const all = [...args, '--out', outDir];
  const pkg = form === 'installed' ? await installedPackage() : undefined;
  const [command, cwd] = pkg
    ? [[process.execPath, pkg.bin, ...all], pkg.project]
    : [['npm', 'start', '--', ...all], REPO_ROOT];
  const cpuFile = `${outDir}.cpu`;
  const [cmd, ...argv] = underGnuTime(command, cpuFile);
  let stderr = '';
  const spawnedAt = Date.now();
  const t0 = performance.now();
  const exitCode = await new Promise<number>((resolveP, reject) => {
    const child = spawn(cmd!, argv, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveP(code ?? (signal ? 128 : 1));
    });
  });
  const wallMs = performance.now() - t0;
  const exitedAt = spawnedAt + wallMs;
  let results: ResultsFile;
  try {
    results = JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8')) as ResultsFile;
  } catch {
    throw new Error(
      `${COMMAND_LINE[form]} ${args.join(' ')} exited ${exitCode} without results.json: ${stderr.trim()}`,
    );
  }
  const cpuMs = gnuTimeCpuMs(cpuFile);
  return {
    form,
    wallMs,
    ...(cpuMs !== undefined && { cpuMs }),
    exitCode,
    summary: results.summary,
    phases: phasesOf(results, spawnedAt, exitedAt),
    paced: pacedRequests(results),
  };
}

/** The phases of a command spawned at `spawnedAt` and exited at `exitedAt` (ms since the epoch), from its results.json. */
export function phasesOf(
  results: { startedAt: string; stages?: unknown },
  spawnedAt: number,
  exitedAt: number,
): CommandPhases {
  const stage = (results.stages as { stage: string; startedAt: string; finishedAt: string }[] | undefined)?.find(
    (s) => s.stage === 'contracts',
  );
  const started = Date.parse(results.startedAt);
  const stageFrom = stage ? Date.parse(stage.startedAt) : started;
  const stageTo = stage ? Date.parse(stage.finishedAt) : stageFrom;
  return {
    startMs: started - spawnedAt,
    preflightMs: stageFrom - started,
    contractsMs: stageTo - stageFrom,
    endMs: exitedAt - stageTo,
  };
}

const median = (xs: readonly number[]) => spread(xs).median;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Each form's phases as a Markdown table: the median of each phase over the runs, and of the whole command. */
export function phasesMarkdown(runs: Partial<Record<CommandForm, readonly CommandRun[]>>): string {
  const forms = (Object.keys(COMMAND_LINE) as CommandForm[]).filter((f) => runs[f]?.length);
  if (!forms.length) return '';
  const cell = (f: CommandForm, v: (r: CommandRun) => number) => {
    const values = runs[f]!.map(v).filter(Number.isFinite);
    return values.length ? secs(median(values)) : '-';
  };
  return [
    `| phase | ${forms.map((f) => `\`${COMMAND_LINE[f]}\` (${f})`).join(' | ')} |`,
    `|---|${forms.map(() => '---|').join('')}`,
    ...PHASES.map((p) => `| ${p.label} | ${forms.map((f) => cell(f, (r) => r.phases[p.key])).join(' | ')} |`),
    `| of the contract stage, at least: the rate-limited node's requests one cap interval apart (${forms
      .map((f) => `${runs[f]![0]!.paced}`)
      .join(', ')} requests) | ${forms.map((f) => cell(f, (r) => pacedFloorMs(r.paced))).join(' | ')} |`,
    `| the whole command | ${forms.map((f) => cell(f, (r) => r.wallMs)).join(' | ')} |`,
    ...(forms.some((f) => runs[f]!.some((r) => r.cpuMs !== undefined))
      ? [`| its CPU (user + system) | ${forms.map((f) => cell(f, (r) => r.cpuMs ?? Number.NaN)).join(' | ')} |`]
      : []),
  ].join('\n');
}
