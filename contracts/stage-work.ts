// The contract work the stage does itself rather than in a Playwright worker (contracts/run.ts), each
// piece's result written to a file of the run folder for the tests that judge it (stage-files.ts):
// - the rate-limited node's REST work: paced from the start, or after the probes in a full run;
// - in a run of the contract checks alone, every other family's works (contracts/families.ts) and the
//   auth matrix, sent and judged while Playwright loads (its first two seconds, when no test can
//   send). The one worker left then only reports what was judged.
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
import { judgeAuth } from './auth-judge.js';
import { AUTH_RULES, authHosts, authMatrixWanted, authPlanOf, sendAuth } from './auth-send.js';
import { Checks } from './checks.js';
import { ENV } from './env.js';
import { FAMILY_WORKS } from './families.js';
import { runStartOf, stageKey, type FamilyWork, type WorkEnv } from './work.js';
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
 * What the stage's clients share: the run's budget, and the interrupt. Every request in flight listens
 * for the interrupt, so the signal it listens on allows as many listeners.
 */
interface StageSession {
  ctx: RunContext;
  budget: Budget;
  signal: AbortSignal;
}

async function withSession<T>(ctx: RunContext, work: (s: StageSession) => Promise<T>): Promise<T> {
  const budget = new Budget({
    maxRequests: ctx.target.limits.maxRequests,
    deadline: ctx.deadline,
    counterFile: ctx.budgetFile,
    tallyFile: ctx.tallyFile,
  });
  const interrupt = new AbortController();
  setMaxListeners(0, interrupt.signal);
  const onAbort = () => interrupt.abort();
  if (ctx.signal.aborted) interrupt.abort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work({ ctx, budget, signal: interrupt.signal });
  } finally {
    budget.close();
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** A client of the stage's own: a recorder of its own, the session's budget and interrupt. */
function stageClient({ ctx, budget, signal }: StageSession, opts: Partial<ApiClientOptions>) {
  const recorder = new Recorder(ctx.redactor);
  const horizon = ctx.target.nodes.horizon;
  const api = new ApiClient(recorder, budget, {
    timeoutMs: ctx.target.limits.timeoutMs,
    rateLimited: horizon && { host: new URL(horizon.endpoint).host, deadline: ctx.deadline },
    signal,
    ...opts,
  });
  const sent = (): Sent => ({ non2xx: api.non2xx, exchanges: recorder.exchanges });
  return { api, recorder, sent };
}

const errorLine = (ctx: RunContext, e: unknown) => ctx.redactor.text(String((e as Error).message ?? e));

/** Works one after another, each one's checks to its file (an error line with them if it threw). */
async function worksInStage(
  session: StageSession,
  works: readonly { w: FamilyWork; file: string }[],
  selected: (rule: string) => boolean,
  samples: Samples,
  opts: Partial<ApiClientOptions>,
): Promise<Sent> {
  const { ctx } = session;
  const { api, recorder, sent } = stageClient(session, opts);
  for (const { w, file } of works) {
    const check = new Checks(ctx.redactor, selected);
    try {
      await w.run({ api, check, recorder, samples });
      publish(file, JSON.stringify({ checks: check.results }));
    } catch (e) {
      publish(file, JSON.stringify({ checks: check.results, error: errorLine(ctx, e) }));
    }
  }
  return sent();
}

/**
 * The auth matrix, sent and judged: each selected AUTH rule's checks to `file`, as a work's are (the
 * AUTH tests adopt them, auth.spec.ts), or the line saying why it could not be sent. Judged here, not
 * in the one worker: its tests are the last step of the run, this stage's work overlaps Playwright's start.
 */
async function authInStage(session: StageSession, file: string): Promise<Sent> {
  const { target, redactor, seed, selected } = session.ctx;
  // Its requests are independent: the works' chains go first when a slot frees.
  const { api, sent } = stageClient(session, { perHost: target.limits.concurrency ?? DEFAULT_CONCURRENCY, bulk: true });
  const check = new Checks(redactor, selected);
  try {
    const answers = await sendAuth(api, new Samples(target), authPlanOf(target, seed, selected));
    for (const rule of AUTH_RULES.filter(selected)) check.state(judgeAuth(rule, answers));
    publish(file, JSON.stringify({ checks: check.results }));
  } catch (e) {
    publish(file, JSON.stringify({ checks: check.results, error: errorLine(session.ctx, e) }));
  }
  return sent();
}

/** A piece of early work, timed for the trace. */
async function traced(
  family: string,
  title: string,
  work: () => Promise<Sent>,
): Promise<Sent & { trace: StageWorkTrace }> {
  const startedAt = Date.now();
  const sent = await work();
  return { ...sent, trace: { family, title, startedAt, endedAt: Date.now(), requests: sent.exchanges.length } };
}

/**
 * What the stage sends itself: the rate-limited node's REST work (after `horizonAfter` settles, if
 * given) and, when `early`, every other family's works and the auth matrix.
 */
export function planStageWork(
  ctx: RunContext,
  selected: (rule: string) => boolean,
  opts: { early: boolean; horizonAfter?: Promise<readonly ProbeAnswer[] | undefined> },
): StagePlan {
  const file = (name: string) => join(ctx.workDir, name);
  const env: WorkEnv = { target: ctx.target, seed: ctx.seed, startedAt: runStartOf(ctx.target, ctx.deadline) };
  const all = Object.entries(FAMILY_WORKS).flatMap(([family, of]) =>
    of(env).map((w, i) => ({ w, key: stageKey(family, i), file: file(`work-${family}-${i}.json`), family })),
  );
  const mine = all.filter(({ w }) => w.rules.some(selected) && (w.rateLimited || opts.early));
  const limited = mine.filter(({ w }) => w.rateLimited);
  const early = mine.filter(({ w }) => !w.rateLimited);
  const auth = opts.early && authMatrixWanted(ctx.target, selected) ? file('auth-checks.json') : undefined;
  const hold: StageHold = {
    hosts: [...new Set([...early.flatMap(({ w }) => w.hosts), ...(auth ? authHosts(ctx.target) : [])])],
    files: [...early.map((x) => x.file), ...(auth ? [auth] : [])],
  };
  const childEnv: Record<string, string> = {
    ...(mine.length && { [ENV.stageChecks]: JSON.stringify(Object.fromEntries(mine.map((x) => [x.key, x.file]))) }),
    ...(auth && { [ENV.authChecks]: auth }),
    ...(hold.files.length && { [ENV.stageHold]: JSON.stringify(hold) }),
  };
  const run = () =>
    withSession(ctx, async (session): Promise<StageDone> => {
      const horizon = ctx.target.nodes.horizon;
      // The works share what they discover (the sample asset), as a worker's tests do.
      const samples = new Samples(ctx.target);
      const afterProbes = async () => {
        if (!limited.length || !horizon) return { non2xx: [], exchanges: [] };
        const answers = (await opts.horizonAfter?.catch(() => undefined)) ?? [];
        const answered = answers.length ? { answered: probeAnswered(answers, horizon) } : {};
        return worksInStage(session, limited, selected, samples, answered);
      };
      // One bound per host for the whole process (contracts/api.ts), whichever client sends.
      const perHost = { perHost: ctx.target.limits.concurrency ?? DEFAULT_CONCURRENCY };
      const [pieces, last] = await Promise.all([
        Promise.all([
          ...early.map(({ w, file, family }) =>
            traced(family, w.title, () => worksInStage(session, [{ w, file }], selected, samples, perHost)),
          ),
          ...(auth ? [traced('auth', 'auth matrix', () => authInStage(session, auth))] : []),
        ]),
        afterProbes(),
      ]);
      return {
        non2xx: [...pieces.flatMap((p) => p.non2xx), ...last.non2xx],
        exchanges: [...pieces.flatMap((p) => p.exchanges), ...last.exchanges],
        trace: pieces.map((p) => p.trace),
      };
    });
  return { env: childEnv, run };
}
