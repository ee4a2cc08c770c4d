// Runs the rate-limit probes (load/run.ts, Node engine) against one reference horizon node started
// with the given options, the way the CLI would: a ResolvedTarget, a RunContext with a budget file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultOptions, type ReferenceOptions } from '../../reference/options.js';
import { startHorizonNode } from '../../reference/nodes/horizon.js';
import { runProbes } from '../../load/run.js';
import { RL_RULES } from '../../load/plan.js';
import type { ProgressEvent } from '../../src/stages.js';
import type { ProbesOutcome, RunContext } from '../../src/stages.js';
import { secretsOf, type ResolvedHorizon, type ResolvedTarget } from '../../src/target-file/types.js';
import { Redactor } from '../../src/record/redact.js';
import { newCounter } from '../../src/budget.js';
import { timelineStallMs } from '../support/stalls.js';

export interface ProbeRun {
  outcome: ProbesOutcome;
  wallMs: number;
  /** Requests the node received (its own counter). */
  served: number;
  target: ResolvedTarget;
  progress: ProgressEvent[];
  /** Requests the probes had sent (answered or in flight) when the run was aborted. */
  sentAtAbort?: number;
}

/** What a child process runs: reference options (sets as arrays) and the rules selected. */
export interface ChildSpec {
  options: Omit<Partial<ReferenceOptions>, 'faults' | 'variants' | 'counters' | 'now' | 'credentials'> & {
    faults?: string[];
    variants?: string[];
  };
  only?: string[];
  maxRequests?: number;
}

export const RESULT_MARK = 'probe-result ';

export interface ProbeRunOptions {
  selected?: (ruleId: string) => boolean;
  maxRequests?: number;
  maxSeconds?: number;
  /**
   * Aborts the run at the first progress event this returns true for: a point of the run, not of
   * the clock, where the probes' own count of what they sent is known.
   */
  abortWhen?: (e: ProgressEvent) => boolean;
}

export async function probeReference(partial: Partial<ReferenceOptions>, o: ProbeRunOptions = {}): Promise<ProbeRun> {
  const opts = defaultOptions(partial);
  const node = await startHorizonNode(opts);
  try {
    const horizon = {
      endpoint: node.endpoint,
      token: opts.credentials.horizonToken,
      customer: opts.customer,
      hourlyLimit: opts.hourlyLimit,
      perSecondCap: 20,
    };
    return await probeHorizon(horizon, o, () => opts.counters.of('horizon'));
  } finally {
    await node.close();
  }
}

/** The probes against any horizon node (the reference, or nginx in front of it); `served` reads the node's counter. */
export async function probeHorizon(
  horizon: ResolvedHorizon,
  o: ProbeRunOptions = {},
  served: () => number = () => NaN,
): Promise<ProbeRun> {
  const work = mkdtempSync(join(tmpdir(), 'chainprobe-load-'));
  const target: ResolvedTarget = {
    name: 'ref',
    nodes: { horizon },
    limits: { maxRequests: o.maxRequests ?? 1000, maxSeconds: o.maxSeconds ?? 120, timeoutMs: 10_000, wsGraceMs: 2000 },
  };
  const controller = new AbortController();
  let sentAtAbort: number | undefined;
  const progress: ProgressEvent[] = [];
  const ctx: RunContext = {
    target,
    selected: o.selected ?? ((id) => id.startsWith('RL-')),
    outDir: work,
    budget: newCounter(),
    deadline: Date.now() + target.limits.maxSeconds * 1000,
    signal: controller.signal,
    progress: (e) => {
      progress.push(e);
      if (sentAtAbort === undefined && e.stage === 'probes' && o.abortWhen?.(e)) {
        sentAtAbort = e.requestsSent;
        controller.abort();
      }
    },
    seed: 1,
    redactor: new Redactor(secretsOf(target), 1),
  };
  const t0 = performance.now();
  try {
    const outcome = await runProbes(ctx);
    // Give anything sent after the abort time to arrive before counting.
    if (sentAtAbort !== undefined) await new Promise((r) => setTimeout(r, 200));
    return { outcome, wallMs: performance.now() - t0, served: served(), target, progress, sentAtAbort };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Longest a busy machine held up a request of the run, ms, beyond the node's own delay (support/stalls.ts). */
export function machineStallMs(r: ProbeRun, nodeDelayMs = 0): number {
  return timelineStallMs(r.outcome.timeline, nodeDelayMs);
}

/** One line per check, for assertion messages. */
export function verdictLines(outcome: ProbesOutcome): string {
  return outcome.checks.map((c) => `${c.rule} ${c.verdict} ${c.id}: ${c.message}`).join('\n');
}

/** Every RL rule has a check that is not skipped, and no check says it could not test. */
export function assertEveryRuleJudged(outcome: ProbesOutcome): void {
  const lines = verdictLines(outcome);
  const judged = new Set(outcome.checks.filter((c) => c.verdict !== 'skipped').map((c) => c.rule));
  assert.deepEqual(
    RL_RULES.filter((rule) => !judged.has(rule)),
    [],
    lines,
  );
  assert.deepEqual(
    outcome.checks.filter((c) => c.verdict === 'error').map((c) => c.id),
    [],
    lines,
  );
  assert.doesNotMatch(lines, /past the run's time limit/);
}

/** Runs probe-child.ts in its own process (so its timing has a whole event loop to itself). */
export async function probeInChild(spec: ChildSpec): Promise<ProbeRun> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./probe-child.ts', import.meta.url)), JSON.stringify(spec)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (code !== 0 || !line)
    throw new Error(`probe child failed (exit ${code}): ${err.split('\n').slice(0, 5).join(' | ')}`);
  return JSON.parse(line.slice(RESULT_MARK.length)) as ProbeRun;
}

/** Runs tasks at most `n` at a time, keeping their order in the result. */
export async function inPool<T>(tasks: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, tasks.length) }, worker));
  return out;
}
