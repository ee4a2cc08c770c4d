// One horizon node's rate-limit plan in a worker thread of its own. Several plans run at once in a
// fleet run; in one event loop, one plan's model work (the replay analyses between phases) would
// hold back the timers of the others and their pacing would suffer. Each thread has its own event
// loop; the request budget is the run's counter in shared memory (src/budget.ts). The thread runs
// this very module (src/package.ts moduleWorker).
import { parentPort, workerData } from 'node:worker_threads';
import { moduleWorker } from '../src/package.js';
import { runProbes } from '../load/run.js';
import { secretsOf, type ResolvedHorizon, type ResolvedTarget } from '../src/target-file/types.js';
import { Redactor } from '../src/record/redact.js';
import type { ProbesOutcome, ProgressEvent, RunContext } from '../src/stages.js';

interface ThreadInput {
  target: ResolvedTarget;
  horizon: ResolvedHorizon;
  rules: string[];
  outDir: string;
  budget: SharedArrayBuffer;
  tally?: SharedArrayBuffer;
  deadline: number;
  seed: number;
  recordExchanges?: boolean;
}

type FromThread =
  | { type: 'progress'; event: ProgressEvent }
  | { type: 'done'; outcome: ProbesOutcome }
  | { type: 'failed'; message: string };

/** Runs `runProbes(ctx, horizon)` in a worker thread; aborting ctx.signal stops it sending at once. */
export async function runProbesInThread(
  ctx: RunContext,
  horizon: ResolvedHorizon,
  rules: readonly string[],
): Promise<ProbesOutcome> {
  const input: ThreadInput = {
    target: ctx.target,
    horizon,
    rules: rules.filter(ctx.selected),
    outDir: ctx.outDir,
    budget: ctx.budget,
    tally: ctx.tally,
    deadline: ctx.deadline,
    seed: ctx.seed,
    recordExchanges: ctx.recordExchanges,
  };
  const worker = moduleWorker(new URL(import.meta.url), { workerData: input });
  const onAbort = () => worker.postMessage({ type: 'abort' });
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  return new Promise<ProbesOutcome>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener('abort', onAbort);
      f();
    };
    worker.on('message', (m: FromThread) => {
      if (m.type === 'progress') ctx.progress(m.event);
      else if (m.type === 'done') settle(() => resolve(m.outcome));
      else settle(() => reject(new Error(m.message)));
    });
    worker.on('error', (e) => settle(() => reject(e)));
    worker.on('exit', (code) =>
      settle(() => reject(new Error(`the probe thread stopped (exit ${code}) before its results`))),
    );
  });
}

async function threadMain(): Promise<void> {
  const input = workerData as ThreadInput;
  const port = parentPort!;
  const controller = new AbortController();
  port.on('message', (m: { type?: string }) => {
    if (m?.type === 'abort') controller.abort();
  });
  const rules = new Set(input.rules);
  const ctx: RunContext = {
    target: input.target,
    selected: (id) => rules.has(id),
    outDir: input.outDir,
    budget: input.budget,
    tally: input.tally,
    deadline: input.deadline,
    seed: input.seed,
    // The thread's own, from the same target and seed: the run's object cannot cross into it.
    redactor: new Redactor(secretsOf(input.target), input.seed),
    recordExchanges: input.recordExchanges,
    signal: controller.signal,
    progress: (event) => port.postMessage({ type: 'progress', event } satisfies FromThread),
  };
  try {
    const outcome = await runProbes(ctx, input.horizon);
    port.postMessage({ type: 'done', outcome } satisfies FromThread);
  } catch (e) {
    port.postMessage({
      type: 'failed',
      message: e instanceof Error ? e.message.split('\n')[0]! : String(e),
    } satisfies FromThread);
  }
  port.close();
}

if (parentPort && workerData && (workerData as Partial<ThreadInput>).horizon) void threadMain();
