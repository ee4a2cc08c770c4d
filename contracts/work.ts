// A piece of contract work defined apart from its spec file: its requests and the checks of its rules,
// built from the target alone (WorkEnv), so that either process can run it. The contract stage sends
// it itself while Playwright loads (contracts/stage-work.ts) and writes its checks to a file; or a
// worker sends it, started by the first rule test that needs it (contracts/shared-work.ts). Either
// way each rule's test judges by taking its rule's checks: sending and judging apart.
import type { Recorder } from '../src/record/recorder.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { ApiClient } from './api.js';
import type { Checks } from './checks.js';
import type { Samples } from './samples.js';

/** What a piece sends and records with. */
export interface WorkClients {
  api: ApiClient;
  check: Checks;
  recorder: Recorder;
  samples: Samples;
}

export interface FamilyWork {
  title: string;
  rules: readonly string[];
  run: (c: WorkClients) => Promise<void>;
  /** At most this many requests one after another: its time-out is that many request time-outs. */
  requests?: number;
  /** An explicit time-out, ms (a walk bounded by other limits, a WebSocket refusal's grace). */
  timeoutMs?: number;
  /** On the rate-limited node: in a full run it waits for the probes, and its tests come last. */
  rateLimited?: boolean;
  /** The host[:port]s it sends to (the workers hold their requests there while the stage sends it). */
  hosts: readonly string[];
}

/** What a family's works are built from: the same in the stage and in every worker. */
export interface WorkEnv {
  target: ResolvedTarget;
  /** The run seed (near misses, the rarity walk's sample). */
  seed: number;
  /** The run's start, ms: the latest plausible Unix time is a day after it (NFT-01, NFT-06). */
  startedAt: number;
}

/** The run's start, ms: its deadline less limits.maxSeconds (the same in the stage and in every worker). */
export const runStartOf = (target: ResolvedTarget, deadline: number) => deadline - target.limits.maxSeconds * 1000;

/** A family's works as its module declares them, all to the same hosts. */
export class WorkList {
  readonly list: FamilyWork[] = [];

  constructor(private readonly hosts: readonly string[]) {}

  add(w: Omit<FamilyWork, 'hosts'>): void {
    this.list.push({ ...w, hosts: this.hosts });
  }

  contract(
    title: string,
    rules: readonly string[],
    run: FamilyWork['run'],
    opts: { requests?: number; timeoutMs?: number } = {},
  ): void {
    this.add({ title, rules, run, ...opts });
  }
}

/** host[:port] of a URL. */
export const hostOf = (url: string) => new URL(url).host;

/** The key naming a piece in the stage's files: its family and its place in the family's list. */
export const stageKey = (family: string, index: number) => `${family}:${index}`;
