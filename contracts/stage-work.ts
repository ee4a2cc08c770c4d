// The contract work the stage does itself rather than in a Playwright worker (contracts/run.ts), each
// piece's result written to a file of the run folder for the tests that judge it (stage-files.ts):
// - the rate-limited node's REST work: paced from the start, or after the probes in a full run;
// - in a run of the contract checks alone, the other nodes' REST work and the auth matrix, sent while
//   Playwright loads (its first two seconds, when no test can send).
// Until those are written, the workers' requests to the hosts they send to wait (the hold), so
// limits.concurrency still bounds what is in flight per host: the stage sends with the whole bound,
// the workers after it with theirs. Beside the probes only the rate-limited node's work is done
// here: the probes' timing shares this event loop, and their run is the longer one anyway.
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { Budget } from '../src/budget.js';
import { Recorder, type Exchange } from '../src/record/recorder.js';
import type { ProbeAnswer, RunContext, StageWorkTrace } from '../src/stages.js';
import { DEFAULT_CONCURRENCY } from '../src/target-file/types.js';
import { ApiClient, type ApiClientOptions } from './api.js';
import { authHosts, authMatrixWanted, storeAuthAnswers, type AuthAnswersFile } from './auth-file.js';
import { authPlanOf, sendAuth } from './auth-send.js';
import { Checks } from './checks.js';
import { ENV } from './env.js';
import { restWorks, type RestWork } from './node-rest.js';
import { probeAnswered } from './probe-answers.js';
import type { Non2xx } from './protocol.js';
import { Samples } from './samples.js';
import { publish, type StageHold } from './stage-files.js';

export interface StageDone {
  non2xx: Non2xx[];
  exchanges: Exchange[];
  /** When each early piece ran (the contract trace's stageWork); the rate-limited node's is not traced. */
  trace: StageWorkTrace[];
}

export interface StagePlan {
  /** What the workers are told: which files to read, and the hold. */
  env: Record<string, string>;
  /** Does the work (call once the runner is spawned); settles when every piece has written its file. */
  run(): Promise<StageDone>;
}

interface Sent {
  non2xx: Non2xx[];
  exchanges: Exchange[];
}

/**
 * A client of the stage's own: the run's budget, a recorder, and the interrupt. Every request in
 * flight listens for the interrupt, so the signal it listens on allows as many listeners.
 */
function stageClient(ctx: RunContext, opts: Partial<ApiClientOptions>) {
  const budget = new Budget({
    maxRequests: ctx.target.limits.maxRequests,
    deadline: ctx.deadline,
    counterFile: ctx.budgetFile,
    tallyFile: ctx.tallyFile,
  });
  const recorder = new Recorder(ctx.redactor);
  const interrupt = new AbortController();
  setMaxListeners(0, interrupt.signal);
  const onAbort = () => interrupt.abort();
  if (ctx.signal.aborted) interrupt.abort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  const horizon = ctx.target.nodes.horizon;
  const api = new ApiClient(recorder, budget, {
    timeoutMs: ctx.target.limits.timeoutMs,
    rateLimited: horizon && { host: new URL(horizon.endpoint).host, deadline: ctx.deadline },
    signal: interrupt.signal,
    ...opts,
  });
  const close = () => {
    budget.close();
    ctx.signal.removeEventListener('abort', onAbort);
  };
  const sent = (): Sent => ({ non2xx: api.non2xx, exchanges: recorder.exchanges });
  return { api, close, sent };
}

const errorLine = (ctx: RunContext, e: unknown) => ctx.redactor.text(String((e as Error).message ?? e));

/** REST works one after another, each one's checks to its file (an error line with them if it threw). */
async function restInStage(
  ctx: RunContext,
  works: readonly { w: RestWork; file: string }[],
  selected: (rule: string) => boolean,
  opts: Partial<ApiClientOptions>,
): Promise<Sent> {
  const { api, close, sent } = stageClient(ctx, opts);
  try {
    for (const { w, file } of works) {
      const check = new Checks(ctx.redactor, selected);
      try {
        await w.run({ api, check });
        publish(file, JSON.stringify({ checks: check.results }));
      } catch (e) {
        publish(file, JSON.stringify({ checks: check.results, error: errorLine(ctx, e) }));
      }
    }
  } finally {
    close();
  }
  return sent();
}

/** The auth matrix, its answers to `file` (auth-file.ts), or the line saying why it could not be sent. */
async function authInStage(ctx: RunContext, file: string): Promise<Sent> {
  const { target, redactor } = ctx;
  const { api, close, sent } = stageClient(ctx, { perHost: target.limits.concurrency ?? DEFAULT_CONCURRENCY });
  try {
    const answers = await sendAuth(api, new Samples(target), authPlanOf(target, ctx.seed, ctx.selected));
    publish(file, redactor.text(JSON.stringify(storeAuthAnswers(answers))));
  } catch (e) {
    const failed: AuthAnswersFile = { usages: [], none: [], wrong: [], error: errorLine(ctx, e) };
    publish(file, JSON.stringify(failed));
  } finally {
    close();
  }
  return sent();
}

/** A piece of early work, timed for the trace. */
async function traced(title: string, work: () => Promise<Sent>): Promise<Sent & { trace: StageWorkTrace }> {
  const startedAt = Date.now();
  const sent = await work();
  return { ...sent, trace: { title, startedAt, endedAt: Date.now(), requests: sent.exchanges.length } };
}

/**
 * What the stage sends itself: the rate-limited node's REST work (after `horizonAfter` settles, if
 * given) and, when `early`, the other REST work and the auth matrix.
 */
export function planStageWork(
  ctx: RunContext,
  selected: (rule: string) => boolean,
  opts: { early: boolean; horizonAfter?: Promise<readonly ProbeAnswer[] | undefined> },
): StagePlan {
  const file = (name: string) => join(ctx.workDir, name);
  const rest = restWorks(ctx.target, ctx.seed)
    .map((w, i) => ({ w, file: file(`node-work-${i}.json`), i }))
    .filter(({ w }) => w.rules.some(selected) && (w.rateLimited || opts.early));
  const limited = rest.filter(({ w }) => w.rateLimited);
  const early = rest.filter(({ w }) => !w.rateLimited);
  const auth = opts.early && authMatrixWanted(ctx.target, selected) ? file('auth-answers.json') : undefined;
  const hold: StageHold = {
    hosts: [...new Set([...early.map(({ w }) => w.host), ...(auth ? authHosts(ctx.target) : [])])],
    files: [...early.map((x) => x.file), ...(auth ? [auth] : [])],
  };
  const env: Record<string, string> = {
    ...(rest.length && { [ENV.nodeChecks]: JSON.stringify(Object.fromEntries(rest.map((x) => [x.i, x.file]))) }),
    ...(auth && { [ENV.authAnswers]: auth }),
    ...(hold.files.length && { [ENV.stageHold]: JSON.stringify(hold) }),
  };
  const run = async (): Promise<StageDone> => {
    const horizon = ctx.target.nodes.horizon;
    const afterProbes = async () => {
      if (!limited.length || !horizon) return { non2xx: [], exchanges: [] };
      const answers = (await opts.horizonAfter?.catch(() => undefined)) ?? [];
      return restInStage(ctx, limited, selected, answers.length ? { answered: probeAnswered(answers, horizon) } : {});
    };
    const perHost = { perHost: ctx.target.limits.concurrency ?? DEFAULT_CONCURRENCY };
    const [pieces, last] = await Promise.all([
      Promise.all([
        ...early.map(({ w, file }) => traced(w.title, () => restInStage(ctx, [{ w, file }], selected, perHost))),
        ...(auth ? [traced('auth matrix', () => authInStage(ctx, auth))] : []),
      ]),
      afterProbes(),
    ]);
    return {
      non2xx: [...pieces.flatMap((p) => p.non2xx), ...last.non2xx],
      exchanges: [...pieces.flatMap((p) => p.exchanges), ...last.exchanges],
      trace: pieces.map((p) => p.trace),
    };
  };
  return { env, run };
}
