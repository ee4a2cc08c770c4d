// Bench child: the rate-limit probes of N horizon nodes (distinct tokens) at once, from one
// process, against a fleet reference started here; or a merge of many results files.
//   fleet-child.ts probes '<json {nodes, outDir}>'  -> {type:'result', wallMs, nodes: [...]} (horizon nodes)
//   fleet-child.ts serve '<json {nodes}>'           -> the fleet reference, in its own process, {type:'ready', target}
//   fleet-child.ts merge '<json {dir, outDir}>'                   -> {type:'result', wallMs, maxRssKb, runs, checks}
import { startFleetReference } from '../../reference/fleet.js';
import { runFleet } from '../../src/run/fleet.js';
import { parseSelectors } from '../../src/select.js';
import { resolveTarget } from '../../src/target/load.js';
import { fleetOf } from '../../src/fleet/rollup.js';
import { mergeResults } from '../../src/fleet/merge.js';
import { writeReports } from '../../reports/write.js';
import { readInputs } from '../merge.js';
import type { PacingStats } from '../../load/engine/types.js';
import type { Verdict } from '../../src/verdict.js';
import { serveParent, startChild, toParent, type ChildMessage } from './child.js';
import type { TargetFile } from '../../src/types/generated/target.js';

export interface FleetProbeNode {
  name: string;
  rules: Record<string, Verdict>;
  requests: number;
  pacing?: PacingStats;
  T?: number;
  limit?: number;
}

/** The reference runs in a process of its own: the probes' process then holds only the probes, as in use. */
async function serve(input: { nodes: number }): Promise<void> {
  const ref = await startFleetReference({ horizon: input.nodes });
  serveParent({}, () => ref.close());
  await toParent({ type: 'ready', target: ref.target as unknown as Record<string, unknown> });
}

async function probes(input: { nodes: number; outDir: string }): Promise<void> {
  const ref = await startChild<ChildMessage & { target: TargetFile }>('scripts/bench/fleet-child.ts', ['serve', JSON.stringify({ nodes: input.nodes })]);
  try {
    const target = resolveTarget(ref.ready.target, {}, 'reference');
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const out = await runFleet({ targets: [target], selection: parseSelectors('load'), outDir: input.outDir });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const nodes: FleetProbeNode[] = (fleetOf(out.results)?.nodes ?? []).filter((n) => n.kind === 'horizon').map((n) => ({
      name: n.name,
      rules: n.rules,
      requests: n.requestsSent?.probes ?? 0,
      pacing: n.limiter?.pacing as PacingStats | undefined,
      T: n.limiter?.emissionIntervalMs,
      limit: n.limiter?.limit,
    }));
    await toParent({ type: 'result', wallMs, cpuMs, nodes });
  } finally {
    await ref.stop();
  }
}

async function merge(input: { dir: string; outDir: string }): Promise<void> {
  const t0 = performance.now();
  const inputs = readInputs([input.dir]);
  const merged = mergeResults(inputs);
  await writeReports(input.outDir, { results: merged.results, timeline: [] });
  const wallMs = performance.now() - t0;
  await toParent({ type: 'result', wallMs, maxRssKb: process.resourceUsage().maxRSS, runs: merged.runs.length, checks: merged.results.checks.length });
}

const [mode, arg] = process.argv.slice(2);
const modes: Record<string, (input: never) => Promise<void>> = { probes, serve, merge };
const run = modes[mode ?? ''];
(run ? run(JSON.parse(arg ?? '{}') as never) : Promise.reject(new Error(`unknown mode ${mode}`))).then(
  // serve keeps running until the parent stops it
  () => mode !== 'serve' && process.exit(0),
  (e: unknown) => toParent({ type: mode === 'serve' ? 'ready' : 'result', error: e instanceof Error ? e.message.split('\n')[0] : String(e) }).then(() => process.exit(1)),
);
