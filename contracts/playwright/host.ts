// The Playwright host's per-worker state: the target, the redactor, one session (a share of the
// target's limits), and each family's plan sent at most once per run, its answers judged per rule
// by the same judges the engine uses (contracts/judges.ts). Tests of one family share one send,
// across the workers Playwright restarts after a failing test too (run-folder.ts); a shard or
// `--grep` sends only the families its tests need.
import { setMaxListeners } from 'node:events';
import { Budget, newCounter } from '../../src/budget.js';
import { closeHttp } from '../../src/http/client.js';
import { Redactor } from '../../src/record/redact.js';
import { parseSelectors, type Selection } from '../../src/select.js';
import { loadTargetFile, secretsOf } from '../../src/target-file/load.js';
import { DEFAULT_CONCURRENCY, type ResolvedTarget } from '../../src/target-file/types.js';
import { useTls } from '../../src/tls/trust.js';
import type { CheckResult } from '../../src/verdict.js';
import { Checks } from '../checks.js';
import { runFamily, type FamilyOutcome, type Session } from '../engine.js';
import { errorChecks } from '../errors-summary.js';
import { CONTRACTS, JUDGES } from '../judges.js';
import { runStartOf, type AnyFamilyContract, type PlanEnv } from '../plan.js';
import { Samples } from '../samples.js';
import { RunFolder, type StoredOutcome } from './run-folder.js';

/** How a Playwright run finds its target: the environment, set by the config helper or by `chainprobe --runner playwright`. */
export const HOST_ENV = {
  /** A target file's path (its `${NAME}` variables from the environment). */
  target: 'CHAINPROBE_TARGET',
  /** The resolved target as JSON (the command's own runner: the embedded reference's credentials never touch a file). */
  targetJson: 'CHAINPROBE_TARGET_JSON',
  /** --only selectors. */
  only: 'CHAINPROBE_ONLY',
  /** The run seed (near misses): the same in every worker. */
  seed: 'CHAINPROBE_SEED',
  /** The run's start (ms since epoch): the same deadline in every worker. */
  startedAt: 'CHAINPROBE_STARTED_AT',
  /** The run's folder (run-folder.ts): what a worker Playwright restarted finds of the ones before it. */
  runDir: 'CHAINPROBE_RUN_DIR',
} as const;

export interface HostSettings {
  target: ResolvedTarget;
  selection: Selection;
  seed: number;
  startedAt: number;
  /** The run's folder; without one, each worker sends its families' plans and spends its share afresh. */
  runDir?: string;
}

/** The settings a worker reads from its environment; a one-line error when the target is missing or bad. */
export function hostSettings(env: NodeJS.ProcessEnv = process.env): HostSettings {
  const json = env[HOST_ENV.targetJson];
  const file = env[HOST_ENV.target];
  if (!json && !file)
    throw new Error(`chainprobe: set ${HOST_ENV.target} to a target file (or pass target to chainprobeConfig())`);
  const target = json ? (JSON.parse(json) as ResolvedTarget) : loadTargetFile(file!, env);
  const seed = Number(env[HOST_ENV.seed]);
  const startedAt = Number(env[HOST_ENV.startedAt]);
  return {
    target,
    selection: parseSelectors(env[HOST_ENV.only]),
    seed: Number.isSafeInteger(seed) ? seed : 1,
    startedAt: Number.isFinite(startedAt) && startedAt > 0 ? startedAt : Date.now(),
    ...(env[HOST_ENV.runDir] && { runDir: env[HOST_ENV.runDir] }),
  };
}

/** Which worker this is, as Playwright numbers them (a restarted worker keeps its slot). */
export interface WorkerSlot {
  /**
   * The workers of the run, of all its shards together: each slot takes an even share of the request
   * budget and of the per-host bound.
   */
  workers: number;
  /** Playwright's parallelIndex. */
  slot: number;
  /** Playwright's workerIndex. */
  worker: number;
}

/**
 * A worker's slot as Playwright describes it. The shards of a run (`--shard i/n`, a CI matrix) run at
 * the same time against the same target, each with the config's workers: every worker of every
 * shard takes its share, so that together they stay within the target's limits.
 */
export function workerSlot(info: {
  config: { workers: number; shard: { total: number } | null };
  parallelIndex: number;
  workerIndex: number;
}): WorkerSlot {
  return {
    workers: info.config.workers * (info.config.shard?.total ?? 1),
    slot: info.parallelIndex,
    worker: info.workerIndex,
  };
}

/** One worker's host: sends each family's plan once in the run, judges rules over its answers. */
export class WorkerHost {
  readonly redactor: Redactor;
  private readonly session: Session;
  private readonly env: PlanEnv;
  private readonly sent = new Map<AnyFamilyContract, Promise<StoredOutcome>>();
  private readonly interrupt = new AbortController();
  private readonly folder?: RunFolder;
  /** The slot's requests taken by the workers before this one. */
  private readonly spentBefore: number;

  constructor(
    readonly settings: HostSettings,
    { workers, slot, worker }: WorkerSlot,
  ) {
    const { target, seed, startedAt, selection } = settings;
    useTls(target.tls);
    this.redactor = new Redactor(secretsOf(target), seed);
    const deadline = startedAt + target.limits.maxSeconds * 1000;
    // Every request in flight listens for the interrupt, as in the engine's session.
    setMaxListeners(0, this.interrupt.signal);
    const share = Math.max(1, workers);
    if (settings.runDir) this.folder = new RunFolder(settings.runDir, slot, worker);
    this.spentBefore = this.folder?.spentBefore() ?? 0;
    const counter = newCounter();
    Atomics.store(new Int32Array(counter), 0, this.spentBefore);
    this.session = {
      target,
      budget: new Budget({ maxRequests: Math.floor(target.limits.maxRequests / share), deadline, counter }),
      signal: this.interrupt.signal,
      deadline,
      perHost: Math.max(1, Math.floor((target.limits.concurrency ?? DEFAULT_CONCURRENCY) / share)),
      samples: new Samples(target),
      // No probes run beside a Playwright host: the rate-limited node is free from the start.
      rateLimitedNode: async () => [],
    };
    this.env = { target, seed, startedAt: runStartOf(target, deadline), wants: (...r) => r.some(selection.rule) };
  }

  /** Whether a rule is selected by the run's --only (CHAINPROBE_ONLY). */
  selected(rule: string): boolean {
    return this.settings.selection.rule(rule);
  }

  private family(contract: AnyFamilyContract): Promise<StoredOutcome> {
    let p = this.sent.get(contract);
    if (!p) {
      const stored = this.folder?.outcome(contract.family);
      p = stored ? Promise.resolve(stored) : this.send(contract);
      this.sent.set(contract, p);
    }
    return p;
  }

  private async send(contract: AnyFamilyContract): Promise<FamilyOutcome> {
    const checks = new Checks(this.redactor, (r) => this.selected(r));
    const rules = Object.keys(contract.judges).filter((r) => this.selected(r));
    const outcome = await runFamily(contract, this.session, this.env, checks, rules);
    this.saveSpent();
    // A plan the worker's end cut short is no outcome to hand on: the next worker sends it.
    if (!this.interrupt.signal.aborted) this.folder?.saveOutcome(outcome);
    return outcome;
  }

  private saveSpent(): void {
    this.folder?.saveSpent(this.session.budget.used() - this.spentBefore);
  }

  /** A rule's checks: its family's plan sent (once per worker), its judge's verdicts. */
  async checksOf(rule: string): Promise<CheckResult[]> {
    if (rule === 'ERR-01') {
      // Over every non-2xx answer this worker met: the selected families' plans first.
      const outcomes = await Promise.all(
        CONTRACTS.filter((c) => Object.keys(c.judges).some((r) => this.selected(r))).map((c) => this.family(c)),
      );
      const own = outcomes.flatMap((o) => o.checks.filter((c) => c.rule === rule));
      return [...own, ...errorChecks(outcomes.flatMap((o) => o.non2xx))];
    }
    const row = JUDGES.get(rule);
    if (!row) throw new Error(`chainprobe: no judge for ${rule}`);
    const outcome = await this.family(row.contract);
    const mine = outcome.checks.filter((c) => c.rule === rule);
    if (mine.length === 0 && outcome.failed)
      return [
        {
          id: `${rule.toLowerCase()}.not-run`,
          rule,
          verdict: 'error',
          message: `not run: the ${outcome.family} plan failed: ${outcome.failed}`,
          evidence: { cause: outcome.failed },
        },
      ];
    return mine;
  }

  async close(): Promise<void> {
    this.interrupt.abort();
    await closeHttp();
    this.saveSpent();
  }
}
