// Runs the contract stage against an embedded reference the way the CLI does, for the tests of
// this folder: a RunContext with its own working folder, budget file and deadline.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/start.js';
import type { ReferenceOptions } from '../../reference/options.js';
import { runContracts, type ContractsOptions } from '../../src/run/contracts.js';
import type { ContractsOutcome, ProgressEvent, RunContext } from '../../src/run/types.js';
import { parseSelectors } from '../../src/select.js';
import { resolveTarget } from '../../src/target/load.js';
import type { ResolvedTarget } from '../../src/target/types.js';

export interface HarnessRun extends ContractsOutcome {
  target: ResolvedTarget;
  wallMs: number;
  /** Requests taken from the budget (refused takes included). */
  requests: number;
  /** Requests the reference actually received. */
  served: number;
  outDir: string;
  progress: ProgressEvent[];
}

export interface HarnessOptions {
  reference?: Partial<ReferenceOptions>;
  only?: string;
  /** Edits the resolved target before the run (drop sections, shrink limits). */
  edit?: (t: ResolvedTarget) => ResolvedTarget;
  contracts?: ContractsOptions;
  /** Aborts the run after this many ms. */
  abortAfterMs?: number;
  /** The run seed (near-miss credentials); the contracts stage draws one when absent. */
  seed?: number;
  /** Looks at the output folder (reports) before it is removed. */
  inspect?: (outDir: string) => void;
}

export async function runAgainstReference(o: HarnessOptions = {}): Promise<HarnessRun> {
  const ref = await startReference(o.reference);
  const workDir = mkdtempSync(join(tmpdir(), 'chainprobe-contracts-test-'));
  try {
    let target = resolveTarget(ref.target, {});
    if (o.edit) target = o.edit(target);
    const budgetFile = join(workDir, 'budget.count');
    writeFileSync(budgetFile, '');
    const controller = new AbortController();
    const timer = o.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), o.abortAfterMs);
    const progress: ProgressEvent[] = [];
    const ctx: RunContext = {
      target,
      selected: parseSelectors(o.only).rule,
      outDir: join(workDir, 'out'),
      workDir,
      budgetFile,
      deadline: Date.now() + target.limits.maxSeconds * 1000,
      signal: controller.signal,
      progress: (e) => progress.push(e),
      seed: o.seed,
    };
    const t0 = performance.now();
    const outcome = await runContracts(ctx, { htmlReport: false, ...o.contracts });
    const wallMs = performance.now() - t0;
    clearTimeout(timer);
    o.inspect?.(ctx.outDir);
    return { ...outcome, target, wallMs, requests: statSync(budgetFile).size, served: ref.options.counters.total(), outDir: ctx.outDir, progress };
  } finally {
    await ref.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}
