// Runs the contract stage against an embedded reference the way the CLI does, for the tests of
// this folder: a RunContext with its own output folder, budget counter and deadline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import assert from 'node:assert/strict';
import { startReference, type RunningReference } from '../../reference/start.js';
import type { CheckResult } from '../../src/verdict.js';
import type { ReferenceOptions } from '../../reference/options.js';
import { runContracts, type ContractsOptions } from '../../contracts/engine.js';
import { countOf, newCounter } from '../../src/budget.js';
import type { ContractsOutcome, ProgressEvent, RunContext } from '../../src/stages.js';
import { parseSelectors } from '../../src/select.js';
import { cover } from '../../src/coverage.js';
import { resolveTarget, secretsOf } from '../../src/target-file/load.js';
import { newRunSeed } from '../../src/auth/near-miss.js';
import { Redactor } from '../../src/record/redact.js';
import type { ResolvedTarget } from '../../src/target-file/types.js';
import { withSlowMachineTimeout } from '../support/backstops.js';

export interface HarnessRun extends ContractsOutcome {
  target: ResolvedTarget;
  wallMs: number;
  /** Requests taken from the budget (refused takes included). */
  requests: number;
  /** Requests the reference actually received. */
  served: number;
  outDir: string;
  progress: ProgressEvent[];
  /** Requests taken from the budget when `abortWhen` aborted the run. */
  requestsAtAbort?: number;
}

export interface HarnessOptions {
  reference?: Partial<ReferenceOptions>;
  only?: string;
  /** Edits the resolved target before the run (drop sections, shrink limits, put a proxy in front). */
  edit?: (t: ResolvedTarget) => ResolvedTarget | Promise<ResolvedTarget>;
  contracts?: ContractsOptions;
  /** The host of the contract rules: the engine (default) or Playwright Test (contracts/playwright/run.ts). */
  host?: 'engine' | 'playwright';
  /** Aborts the run at the first progress event this returns true for (a point of the run, not of the clock). */
  abortWhen?: (e: ProgressEvent) => boolean;
  /** The run seed (near-miss credentials); the contracts stage draws one when absent. */
  seed?: number;
  /** Looks at the output folder (reports) before it is removed. */
  inspect?: (outDir: string) => void;
}

/**
 * Runs `fn` with a fresh reference and the RunContext the CLI would build for it, in a working
 * folder of its own; the reference is closed and the folder removed after.
 */
async function withRunContext<T>(
  o: HarnessOptions,
  fn: (ctx: RunContext, progress: ProgressEvent[], ref: RunningReference, atAbort: { at?: number }) => Promise<T>,
): Promise<T> {
  const ref = await startReference(o.reference);
  let workDir: string | undefined;
  try {
    // The reference answers every request: a timeout would measure a starved machine, not it.
    let target = withSlowMachineTimeout(resolveTarget(ref.target, {}));
    if (o.edit) target = await o.edit(target);
    workDir = mkdtempSync(join(tmpdir(), 'chainprobe-contracts-test-'));
    const controller = new AbortController();
    const progress: ProgressEvent[] = [];
    const seed = o.seed ?? newRunSeed();
    const requestsAtAbort: { at?: number } = {};
    const ctx: RunContext = {
      target,
      selected: parseSelectors(o.only).rule,
      outDir: join(workDir, 'out'),
      budget: newCounter(),
      deadline: Date.now() + target.limits.maxSeconds * 1000,
      signal: controller.signal,
      progress: (e) => {
        progress.push(e);
        if (!controller.signal.aborted && o.abortWhen?.(e)) {
          requestsAtAbort.at = countOf(ctx.budget);
          controller.abort();
        }
      },
      seed,
      redactor: new Redactor(secretsOf(target), seed),
    };
    return await fn(ctx, progress, ref, requestsAtAbort);
  } finally {
    await ref.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  }
}

export async function runAgainstReference(o: HarnessOptions = {}): Promise<HarnessRun> {
  return withRunContext(o, async (ctx, progress, ref, atAbort) => {
    const { target } = ctx;
    const t0 = performance.now();
    const stage =
      o.host === 'playwright'
        ? await (await import('../../contracts/playwright/run.js')).runContractsInPlaywright(ctx)
        : await runContracts(ctx, o.contracts);
    const wallMs = performance.now() - t0;
    // As the run does after its stages: the rules the stage left without a check get their reason.
    const outcome = { ...stage, checks: [...stage.checks, ...cover(ctx.selected, stage.checks, stage.gaps)] };
    o.inspect?.(ctx.outDir);
    return {
      ...outcome,
      target,
      wallMs,
      requests: countOf(ctx.budget),
      served: ref.options.counters.total(),
      outDir: ctx.outDir,
      progress,
      requestsAtAbort: atAbort.at,
    };
  });
}

/**
 * The checks of the selected contract rules as the engine judges them, ERR-01 (judged over every
 * family's answers) left out: what it proves is the judges'; how a run reports them is the
 * end-to-end tests'.
 */
export async function judgeInStage(o: HarnessOptions = {}): Promise<CheckResult[]> {
  return withRunContext(o, async (ctx) => {
    const { checks } = await runContracts(ctx);
    return checks.filter((c) => c.rule !== 'ERR-01');
  });
}

/** The files inside the zip Playwright's HTML report embeds in its index.html (stored or deflated). */
export function htmlReportFiles(indexHtml: string): { name: string; text: string }[] {
  const m = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/.exec(indexHtml);
  assert.ok(m, 'the HTML report embeds its data as a zip');
  const zip = Buffer.from(m[1]!, 'base64');
  const out: { name: string; text: string }[] = [];
  for (let at = 0; at + 30 <= zip.length && zip.readUInt32LE(at) === 0x04034b50;) {
    const method = zip.readUInt16LE(at + 8);
    const compressed = zip.readUInt32LE(at + 18);
    const nameLen = zip.readUInt16LE(at + 26);
    const extraLen = zip.readUInt16LE(at + 28);
    const start = at + 30 + nameLen + extraLen;
    const data = zip.subarray(start, start + compressed);
    out.push({
      name: zip.subarray(at + 30, at + 30 + nameLen).toString('utf8'),
      text: (method === 8 ? inflateRawSync(data) : data).toString('utf8'),
    });
    at = start + compressed;
  }
  return out;
}
