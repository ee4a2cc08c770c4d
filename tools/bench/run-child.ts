// Bench child: one chainprobe run against a freshly started embedded reference, in its own
// process so runs don't share JIT state, heap or an event loop with the bench, and run with the
// installed package's compiled code (compiled-child.ts), no TypeScript loader.
//   run-child.ts '<json RunChildInput>'  -> {type:'result', ...RunChildResult}
import { startReference } from '../../reference/start.js';
import { runChainprobe } from '../../run/pipeline.js';
import { parseSelectors } from '../../src/select.js';
import { resolveTarget } from '../../src/target-file/load.js';
import type { LimiterEstimates } from '../../src/results.js';
import type { Summary, Verdict } from '../../src/verdict.js';
import { toParent } from './child.js';
import { authRequestCount } from '../../src/auth/surface.js';
import type { ReferenceChildOptions } from './serve.js';

export interface RunChildInput {
  reference: ReferenceChildOptions;
  /** --only value; absent for the full run. */
  only?: string;
  outDir: string;
}

export interface RunChildResult {
  /** Wall time of the runChainprobe call (reference start-up excluded). */
  wallMs: number;
  referenceStartMs: number;
  exitCode: number;
  summary: Summary;
  rules: Record<string, Verdict>;
  checks: { id: string; rule: string; verdict: Verdict }[];
  limiter: LimiterEstimates | null;
  /** Requests each reference server received during the run. */
  counters: Record<string, number>;
  /** Requests the auth checks spent (right credentials, none, wrong ones): src/auth/surface.ts. */
  authRequests: number;
  /** When each stage started and finished (results.json `stages`). */
  stages?: { stage: string; startedAt: string; finishedAt: string }[];
  /** The reference's limiter parameters, for the minimum-cost formulas. */
  limiterParams: { hourlyLimit: number; burst: number; perSecondCap: number };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as RunChildInput;
  const { faults, variants, ...rest } = input.reference;
  const t0 = performance.now();
  const ref = await startReference({
    ...rest,
    ...(faults && { faults: new Set(faults) }),
    ...(variants && { variants: new Set(variants) }),
  });
  const referenceStartMs = performance.now() - t0;
  try {
    const target = resolveTarget(ref.target, {}, 'reference');
    const t1 = performance.now();
    const out = await runChainprobe({
      target,
      selection: parseSelectors(input.only),
      outDir: input.outDir,
      extra: { reference: { faults: faults ?? [] } },
    });
    const wallMs = performance.now() - t1;
    const result: RunChildResult = {
      wallMs,
      referenceStartMs,
      exitCode: out.exitCode,
      summary: out.results.summary,
      rules: out.results.rules,
      checks: out.results.checks.map((c) => ({ id: c.id, rule: c.rule, verdict: c.verdict })),
      limiter: out.results.limiter,
      counters: ref.options.counters.snapshot(),
      authRequests: authRequestCount(out.results.checks),
      ...(Array.isArray(out.results.stages) && { stages: out.results.stages as RunChildResult['stages'] }),
      limiterParams: {
        hourlyLimit: ref.options.hourlyLimit,
        burst: ref.options.burst,
        perSecondCap: ref.options.perSecondCap,
      },
    };
    await toParent({ type: 'result', ...result });
  } finally {
    await ref.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) =>
    toParent({ type: 'result', error: e instanceof Error ? e.message.split('\n')[0] : String(e) }).then(() =>
      process.exit(1),
    ),
);
