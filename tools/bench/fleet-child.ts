// Bench child: the rate-limit probes of N horizon nodes (distinct tokens) at once, from one
// process, against a fleet reference started here.
//   fleet-child.ts probes '<json {nodes, outDir}>'  -> {type:'result', wallMs, nodes: [...]} (horizon nodes)
//   fleet-child.ts horizon '<json {token}>'        -> one reference horizon node in its own process, {type:'ready', endpoint}
import { randomBytes } from 'node:crypto';
import { startHorizonNode } from '../../reference/nodes/horizon.js';
import { defaultOptions } from '../../reference/options.js';
import { runFleet } from '../../run/fleet.js';
import { parseSelectors } from '../../src/select.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { fleetOf } from '../../src/fleet/rollup.js';
import type { PacingStats } from '../../load/engine/types.js';
import type { Verdict } from '../../src/verdict.js';
import { serveParent, startChild, toParent, type ChildMessage } from './child.js';

export interface FleetProbeNode {
  name: string;
  rules: Record<string, Verdict>;
  requests: number;
  pacing?: PacingStats;
  T?: number;
  limit?: number;
}

/**
 * Each horizon node is its own server process, as distinct nodes are distinct machines: the probes'
 * process then holds only the probes, and no node's answers wait on another node's.
 */
async function horizon(input: { token: string }): Promise<void> {
  const opts = defaultOptions();
  const node = await startHorizonNode({ ...opts, credentials: { ...opts.credentials, horizonToken: input.token } });
  serveParent({}, () => node.close());
  await toParent({ type: 'ready', endpoint: node.endpoint });
}

async function probes(input: { nodes: number; outDir: string }): Promise<void> {
  const tokens = Array.from(
    { length: input.nodes },
    (_, i) => `bench-horizon-${i + 1}-${randomBytes(6).toString('hex')}`,
  );
  const servers = await Promise.all(
    tokens.map((token) =>
      startChild<ChildMessage & { endpoint: string }>('tools/bench/fleet-child.ts', [
        'horizon',
        JSON.stringify({ token }),
      ]),
    ),
  );
  try {
    const horizons = servers.map((s, i) => ({
      name: `horizon-${i + 1}`,
      endpoint: s.ready.endpoint,
      token: tokens[i]!,
    }));
    const target = resolveTarget(
      {
        name: 'reference',
        nodes: { horizon: horizons },
        limits: { maxRequests: 1000 * input.nodes, maxSeconds: 300, timeoutMs: 10000 },
      },
      {},
      'reference',
    );
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const out = await runFleet({ targets: [target], selection: parseSelectors('load'), outDir: input.outDir });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const nodes: FleetProbeNode[] = (fleetOf(out.results)?.nodes ?? [])
      .filter((n) => n.kind === 'horizon')
      .map((n) => ({
        name: n.name,
        rules: n.rules,
        requests: n.requestsSent?.probes ?? 0,
        pacing: n.limiter?.pacing as PacingStats | undefined,
        T: n.limiter?.emissionIntervalMs,
        limit: n.limiter?.limit,
      }));
    await toParent({ type: 'result', wallMs, cpuMs, nodes });
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

const [mode, arg] = process.argv.slice(2);
const modes: Record<string, (input: never) => Promise<void>> = { probes, horizon };
const run = modes[mode ?? ''];
(run ? run(JSON.parse(arg ?? '{}') as never) : Promise.reject(new Error(`unknown mode ${mode}`))).then(
  // a server keeps running until the parent stops it
  () => mode !== 'horizon' && process.exit(0),
  (e: unknown) =>
    toParent({
      type: mode === 'horizon' ? 'ready' : 'result',
      error: e instanceof Error ? e.message.split('\n')[0] : String(e),
    }).then(() => process.exit(1)),
);
