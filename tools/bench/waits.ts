// Where users wait: the figures of issue 41, each side measured back to back in one bench run
// (alternating which goes first), median over the repetitions. The whole `--only contracts`
// command, process start included, installed and through `npm start` in a clone (command.ts); and,
// in a run child (runChainprobe, the installed package's code, its embedded reference started
// beside it and excluded), the contract run against the reference, with 12 contract faults, with
// the reference 80 +- 20 ms away, and the full run against the probes alone. Then the k6 adapter's
// waits against the Node engine's (virtual clock, k6 double: no k6 binary here).
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bothEngines } from '../../test/load/virtual-node-engine.js';
import { COMMAND_LINE, phasesMarkdown, runCommand, type CommandForm, type CommandRun } from './command.js';
import { figure, ratios, type Figure } from './figures.js';
import type { RunChildInput, RunChildResult } from './run-child.js';
import { runInChild } from './runs.js';

/** Twelve contract faults across the families, each breaking its own rule: a release that breaks many checks at once. */
export const TWELVE_FAULTS = [
  'bearer-rejected-on-base',
  'unknown-key-accepted',
  'block-number-negative',
  'rpc-wrong-jsonrpc-version',
  'rpc-id-as-number',
  'error-code-string',
  'event-block-number-string',
  'payment-price-string',
  'rarity-rank-number',
  'contract-missing-symbol',
  'block-by-height-text',
  'app-rest-not-json',
] as const;

/** `npm run reference -- --latency-ms 80:20`. */
export const FAR = { baseMs: 80, jitterMs: 20 } as const;

/** The whole command's target, process start included, in both forms (issue 41). */
export const COMMAND_TARGET_S = 1.5;

type RunSide = 'clean' | 'faults' | 'far' | 'full' | 'probes';
type Side = RunSide | CommandForm;

const RUN_SIDES: Record<RunSide, Omit<RunChildInput, 'outDir'>> = {
  clean: { reference: {}, only: 'contracts' },
  faults: { reference: { faults: [...TWELVE_FAULTS] }, only: 'contracts' },
  far: { reference: { latency: FAR }, only: 'contracts' },
  full: { reference: {} },
  probes: { reference: {}, only: 'load' },
};

const SIDES: readonly Side[] = ['installed', 'clone', 'clean', 'faults', 'far', 'full', 'probes'];

export interface WaitsSettings {
  reps: number;
  outRoot: string;
  log?: (line: string) => void;
  /** Where the section leaves Markdown for docs/benchmarks.md (where the command's time goes). */
  markdown?: (text: string) => void;
}

/** The k6 adapter's total wait and the Node engine's, running the same plan on a virtual clock (test/load/k6.test.ts). */
async function k6Waits(): Promise<{ k6Ms: number; nodeMs: number }> {
  const { k6, engine } = await bothEngines(
    'bench-k6-token-0a1b2c3d4e5f',
    (seq) => FAR.baseMs + FAR.jitterMs * Math.sin(seq * 12.9898),
  );
  // k6 waits in sleep() and idles for answers; the Node engine's loop idles for both.
  return { k6Ms: k6.sleptMs + k6.loop.idleMs, nodeMs: engine.loop.idleMs };
}

/** `node -e 0`, the best of 5: what any Node command costs on this machine just then (a slower machine's yardstick). */
function nodeStartMs(): number {
  const once = () => {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore', cwd: tmpdir() });
    return performance.now() - t0;
  };
  return Math.min(...Array.from({ length: 5 }, once));
}

const secs = (values: readonly number[]) => values.map((v) => v.toFixed(1)).join(', ');
const secs2 = (values: readonly number[]) => values.map((v) => v.toFixed(2)).join(', ');
const bad = (r: { summary: RunChildResult['summary'] }) => r.summary.fail + r.summary.error;

export async function benchWaits(s: WaitsSettings): Promise<Figure[]> {
  const group = 'Where users wait (issue 41)';
  const runs: Record<RunSide, RunChildResult[]> = { clean: [], faults: [], far: [], full: [], probes: [] };
  const commands: Record<CommandForm, CommandRun[]> = { installed: [], clone: [] };
  const nodeStart: number[] = [];
  for (let i = 0; i < s.reps; i++) {
    nodeStart.push(nodeStartMs());
    // Alternated, so a slow spell of the machine hits both sides of a ratio alike.
    for (const side of i % 2 ? [...SIDES].reverse() : SIDES) {
      const outDir = join(s.outRoot, 'runs', `waits-${side}`);
      let wallMs: number;
      if (side === 'installed' || side === 'clone') {
        const run = await runCommand(side, ['--only', 'contracts'], outDir);
        commands[side].push(run);
        wallMs = run.wallMs;
      } else {
        const run = await runInChild({ ...RUN_SIDES[side], outDir });
        runs[side].push(run);
        wallMs = run.wallMs;
      }
      s.log?.(`waits ${i + 1}/${s.reps}: ${side} ${(wallMs / 1000).toFixed(2)} s`);
    }
  }
  const wall = (side: RunSide) => runs[side].map((r) => r.wallMs / 1000);
  const commandWall = (form: CommandForm) => commands[form].map((r) => r.wallMs / 1000);
  const fine = [...runs.clean, ...runs.far, ...runs.full, ...runs.probes].filter((r) => bad(r) > 0).length;
  const verdicts = fine
    ? `; ${fine} fault-free run(s) had fail/error verdicts`
    : '; no fault-free run had a fail or error';
  const failing = runs.faults.map((r) => r.summary.fail);
  // In a full run, how long the contract stage went on after the probes: the horizon node's checks.
  const edge = (r: RunChildResult, stage: string) =>
    Date.parse(r.stages?.find((x) => x.stage === stage)?.finishedAt ?? '');
  const afterProbes = runs.full.map((r) => (edge(r, 'contracts') - edge(r, 'probes')) / 1000);
  const k6 = await k6Waits();
  s.markdown?.(
    [
      "### Where the command's time goes",
      '',
      "`--only contracts` against the embedded reference, each phase's median over the repetitions: from spawned " +
        "to exited, cut where the run's results.json shows an edge (the run's start, the contract stage's start and end).",
      '',
      phasesMarkdown(commands),
    ].join('\n'),
  );
  const commandFigures = (form: CommandForm, how: string): Figure[] => {
    const done = commands[form];
    const wrong = done.filter((r) => r.exitCode !== 0 || bad(r) > 0).length;
    const cpu = done.map((r) => (r.cpuMs ?? Number.NaN) / 1000);
    return [
      figure({
        id: `waits.command-${form}`,
        readme: true,
        group,
        label: `\`${COMMAND_LINE[form]} --only contracts\`, ${form}: the whole command`,
        unit: 's',
        values: commandWall(form),
        target: { op: '<=', value: COMMAND_TARGET_S },
        note:
          `${how}, spawned to exited, process start and the embedded reference's start included; ` +
          `${secs2(done.map((r) => r.phases.startMs / 1000))} s of it before the run's start` +
          (wrong
            ? `; ${wrong} run(s) exited non-zero or had fail/error verdicts`
            : '; every run exited 0 without a fail or error'),
      }),
      figure({
        id: `waits.command-${form}-cpu`,
        group,
        label: `\`${COMMAND_LINE[form]} --only contracts\`, ${form}: CPU of the whole command`,
        unit: 's',
        values: cpu,
        note:
          "user + system time of the command and every process it waited for (GNU time's): the machine's other " +
          'work adds far less to it than to the wall time',
      }),
      // Without GNU time (not Linux) the figure is left out, not missing.
    ].filter((f) => !f.missing || f.id === `waits.command-${form}`);
  };
  const inChild =
    "runChainprobe in a child process, the installed package's code, against an embedded reference started beside it (its start excluded)";
  return [
    ...commandFigures(
      'installed',
      'node_modules/.bin/chainprobe of the package as npm pack builds it, installed in a project folder',
    ),
    ...commandFigures('clone', 'npm start -- in the clone (npm, then tsx running cli/start.ts from the sources)'),
    figure({
      id: 'waits.contracts',
      group,
      label: 'contract run alone (--only contracts), embedded reference',
      unit: 's',
      values: wall('clean'),
      note: `${inChild}; the other side of the two ratios below${verdicts}`,
    }),
    figure({
      id: 'waits.full-ratio',
      group,
      label: 'full run / the probes alone (--only load)',
      unit: 'x',
      values: ratios(wall('full'), wall('probes')),
      target: { op: '<=', value: 1.1 },
      note:
        `${inChild}; full ${secs(wall('full'))} s; probes alone ${secs(wall('probes'))} s; the contract stage ended ` +
        `${secs2(afterProbes)} s after the probes (the horizon node's contract checks finish then: those a probe's ` +
        'answer serves are judged on it, the others are sent after the probes)',
    }),
    figure({
      id: 'waits.faults-ratio',
      group,
      label: '12 contract faults / the clean contract run',
      unit: 'x',
      values: ratios(wall('faults'), wall('clean')),
      target: { op: '<=', value: 1.3 },
      note: `faults ${TWELVE_FAULTS.join(', ')}; ${failing.join(', ')} failing checks; ${secs2(wall('faults'))} s`,
    }),
    figure({
      id: 'waits.far-ratio',
      group,
      label: 'the reference 80 +- 20 ms away / local, contract run',
      unit: 'x',
      values: ratios(wall('far'), wall('clean')),
      target: { op: '<=', value: 1.3 },
      note:
        "the reference's latency option (npm run reference -- --latency-ms 80:20) on every answer; " +
        `${secs2(wall('far'))} s against ${secs2(wall('clean'))} s`,
    }),
    figure({
      id: 'waits.node-start',
      group,
      label: 'node -e 0 on this machine then (what any Node command costs)',
      unit: 'ms',
      values: nodeStart,
      note: "best of 5 starts at each repetition's start: a yardstick for the machine's speed at the time",
    }),
    figure({
      id: 'waits.k6-wait-ratio',
      group,
      label: 'k6 adapter / Node engine, total wait of the probe plan',
      unit: 'x',
      values: [k6.k6Ms / k6.nodeMs],
      target: { op: '<=', value: 1.3 },
      note:
        `virtual clock, a node 80 +- 20 ms away (test/load/k6-double.ts, virtual-node-engine.ts): k6 ${(k6.k6Ms / 1000).toFixed(2)} s, ` +
        `Node ${(k6.nodeMs / 1000).toFixed(2)} s. No k6 binary here: a real k6's own cost (its JavaScript runtime) is not measured`,
    }),
  ];
}
