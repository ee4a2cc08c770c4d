// Where users wait: the figures of issue 24, each side measured back to back in one bench run
// (alternating which goes first), median over the repetitions. The contract run against the
// embedded reference; the same with 12 contract faults; with the reference 80 +- 20 ms away; the
// full run against the longer of contracts and probes alone; the k6 adapter's waits against the
// Node engine's (virtual clock, k6 double: no k6 binary here). The last repetition's contract runs
// are also traced (docs/benchmarks.md shows where their time went), and after each clean contract
// run Playwright's floor is measured: the same shape with empty tests (floor.ts).
import { join } from 'node:path';
import { bothEngines } from '../../test/load/virtual-node-engine.js';
import { figure, ratios, type Figure } from './figures.js';
import { emptyRunMs } from './floor.js';
import type { RunChildInput, RunChildResult } from './run-child.js';
import { runInChild } from './runs.js';
import { traceBreakdown, traceMarkdown } from './trace.js';

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

type Side = 'clean' | 'faults' | 'far' | 'full' | 'probes';

const SIDES: Record<Side, Omit<RunChildInput, 'outDir'>> = {
  clean: { reference: {}, only: 'contracts' },
  faults: { reference: { faults: [...TWELVE_FAULTS] }, only: 'contracts' },
  far: { reference: { latency: FAR }, only: 'contracts' },
  full: { reference: {} },
  probes: { reference: {}, only: 'load' },
};

export interface WaitsSettings {
  reps: number;
  outRoot: string;
  log?: (line: string) => void;
  /** Where the section leaves Markdown for docs/benchmarks.md (the traces). */
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

const secs = (values: readonly number[]) => values.map((v) => v.toFixed(1)).join(', ');
const bad = (r: RunChildResult) => r.summary.fail + r.summary.error;

export async function benchWaits(s: WaitsSettings): Promise<Figure[]> {
  const group = 'Where users wait (issue 24)';
  const runs: Record<Side, RunChildResult[]> = { clean: [], faults: [], far: [], full: [], probes: [] };
  const order = Object.keys(SIDES) as Side[];
  const floor: { ms: number; runnerMs: number; tests: number; workers: number }[] = [];
  for (let i = 0; i < s.reps; i++) {
    // Alternated, so a slow spell of the machine hits both sides of a ratio alike.
    for (const side of i % 2 ? [...order].reverse() : order) {
      const run = await runInChild({ ...SIDES[side], outDir: join(s.outRoot, 'runs', `waits-${side}`) });
      runs[side].push(run);
      s.log?.(`waits ${i + 1}/${s.reps}: ${side} ${(run.wallMs / 1000).toFixed(1)} s`);
      if (side === 'clean' && run.contractTrace) {
        // The same shape: the traced run's tests per family and its worker slots.
        const b = traceBreakdown(run.contractTrace);
        const shape = Object.fromEntries(b.families.map((f) => [f.family, f.tests]));
        const workers = b.slots.length;
        floor.push({
          ms: await emptyRunMs(shape, workers),
          runnerMs: b.runnerMs,
          tests: run.contractTrace.tests.length,
          workers,
        });
        s.log?.(`waits ${i + 1}/${s.reps}: Playwright floor ${(floor.at(-1)!.ms / 1000).toFixed(1)} s`);
      }
    }
  }
  const wall = (side: Side) => runs[side].map((r) => r.wallMs / 1000);
  const longer = runs.clean.map((c, i) => Math.max(c.wallMs, runs.probes[i]!.wallMs) / 1000);
  const cleanBad = [...runs.clean, ...runs.far, ...runs.full].filter((r) => bad(r) > 0).length;
  const verdicts = cleanBad
    ? `; ${cleanBad} fault-free run(s) had fail/error verdicts`
    : '; no fault-free run had a fail or error';
  const failing = runs.faults.map((r) => r.summary.fail);
  // In a full run, how long the contract stage went on after the probes: the horizon node's checks.
  const edge = (r: RunChildResult, stage: string) =>
    Date.parse(r.stages?.find((x) => x.stage === stage)?.finishedAt ?? '');
  const afterProbes = runs.full.map((r) => (edge(r, 'contracts') - edge(r, 'probes')) / 1000);
  const k6 = await k6Waits();
  const traced = (r: RunChildResult | undefined, title: string) =>
    r?.contractTrace ? traceMarkdown(title, traceBreakdown(r.contractTrace)) : '';
  s.markdown?.(
    [
      "### Where the contract run's time goes",
      '',
      'One traced contract run (`--only contracts`) of the last repetition each (contracts/timing.ts, tools/bench/trace.ts): ' +
        "network is the time some request of a test was in flight, CPU the worker's, other what neither explains (pacing, waiting for a turn).",
      '',
      traced(runs.clean.at(-1), `Embedded reference: ${((runs.clean.at(-1)?.wallMs ?? 0) / 1000).toFixed(2)} s`),
      traced(runs.far.at(-1), `Reference 80 +- 20 ms away: ${((runs.far.at(-1)?.wallMs ?? 0) / 1000).toFixed(2)} s`),
    ].join('\n'),
  );
  const what = 'runChainprobe in a child process against a freshly started embedded reference (its start excluded)';
  return [
    figure({
      id: 'waits.contracts',
      group,
      label: 'full contract run (--only contracts), embedded reference',
      unit: 's',
      values: wall('clean'),
      target: { op: '<=', value: 3 },
      note: `${what}${verdicts}`,
    }),
    figure({
      id: 'waits.playwright-floor',
      group,
      label: "Playwright alone: the clean contract run's shape with empty tests",
      unit: 's',
      values: floor.map((f) => f.ms / 1000),
      note:
        `${floor[0]?.tests ?? '?'} empty tests in the families' spec files, ${floor[0]?.workers ?? '?'} workers, no reporter; ` +
        `Playwright's runner, spawned to closed. The clean runs' runner took ${secs(floor.map((f) => f.runnerMs / 1000))} s ` +
        `(their trace): the suite's own work beyond the floor ${secs(floor.map((f) => (f.runnerMs - f.ms) / 1000))} s`,
    }),
    figure({
      id: 'waits.full-ratio',
      group,
      label: 'full run / the longer of contracts and probes alone',
      unit: 'x',
      values: ratios(wall('full'), longer),
      target: { op: '<=', value: 1.2 },
      note:
        `full ${secs(wall('full'))} s; probes alone ${secs(wall('probes'))} s; the contract stage ended ` +
        `${secs(afterProbes)} s after the probes (the horizon node's contract checks finish then: those a probe's ` +
        'answer serves are judged on it, a token form no probe got an answer for waits for quota, and the refusals are ' +
        "paced under its cap, each form's as soon as that form is known to be accepted)",
    }),
    figure({
      id: 'waits.faults-ratio',
      group,
      label: '12 contract faults / the clean contract run',
      unit: 'x',
      values: ratios(wall('faults'), wall('clean')),
      target: { op: '<=', value: 1.3 },
      note: `faults ${TWELVE_FAULTS.join(', ')}; ${failing.join(', ')} failing checks; ${secs(wall('faults'))} s`,
    }),
    figure({
      id: 'waits.far-ratio',
      group,
      label: 'the reference 80 +- 20 ms away / local, contract run',
      unit: 'x',
      values: ratios(wall('far'), wall('clean')),
      target: { op: '<=', value: 1.5 },
      note: `--latency-ms 80:20 on every answer; ${secs(wall('far'))} s`,
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
