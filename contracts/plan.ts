// The shape of a family's contract work, the way Schemathesis splits a check from the request it
// judges: a plan sends (built from the target alone, it records what it got and never judges), and
// judges, one per rule, are pure functions from what the plan got to verdicts (Judgement, the one
// way to state a verdict). A host (contracts/engine.ts in the command's process, contracts/playwright/
// in Playwright's workers) sends a family's plan once and hands its answers to each selected rule's
// judge; a judge never sends.
import type { Recorder } from '../src/record/recorder.js';
import type { Family } from '../src/rules/catalogue.js';
import type { ProbeAnswer } from '../src/stages.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { ApiClient, ApiClientOptions } from './api.js';
import type { Judgement } from './checks.js';
import type { Samples } from './samples.js';

export type { Judgement };

/** The contract families (every family but `load`, the probes). */
export type ContractFamily = Exclude<Family, 'load'>;

/** What a plan is built from: the same in every host. */
export interface PlanEnv {
  target: ResolvedTarget;
  /** The run seed (near misses, the rarity walk's sample). */
  seed: number;
  /** The run's start, ms: the latest plausible Unix time is a day after it (NFT-01, NFT-06). */
  startedAt: number;
  /** Whether a rule is selected: a plan sends nothing that no selected rule reads. */
  wants: (...rules: string[]) => boolean;
}

/** What a plan sends with. `client(opts)` gives a client of the same recorder and budget with other options. */
export interface Senders {
  api: ApiClient;
  recorder: Recorder;
  samples: Samples;
  client: (opts: Partial<ApiClientOptions>) => ApiClient;
  /**
   * Settles when the rate-limited node may be sent to (after the probes in a full run), with the
   * probes' answers a call may be judged on instead of being sent again (contracts/probe-answers.ts).
   */
  rateLimitedNode: () => Promise<readonly ProbeAnswer[]>;
}

/** A rule's judge: a pure function of what the family's plan got. */
export type Judge<A> = (answers: A, env: PlanEnv) => Judgement[];

export interface FamilyContract<A> {
  family: ContractFamily;
  /** Sends what the selected rules need and returns what it got; could-not-test causes are answers too. */
  send: (s: Senders, env: PlanEnv) => Promise<A>;
  /** The family's rules, each with its judge (contracts/judges.ts joins every family's table). */
  judges: Readonly<Record<string, Judge<A>>>;
  /** Why a rule of the family cannot be tested with this target; undefined when the plan tests it. */
  untestable: (rule: string, target: ResolvedTarget) => string | undefined;
  /** The hosts (host[:port]) the plan sends to. */
  hosts: (target: ResolvedTarget) => string[];
}

/** A family contract with its answer type erased, for tables of every family. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFamilyContract = FamilyContract<any>;

/** The run's start, ms: its deadline less limits.maxSeconds (the same in every host). */
export const runStartOf = (target: ResolvedTarget, deadline: number) => deadline - target.limits.maxSeconds * 1000;

/** host[:port] of a URL. */
export const hostOf = (url: string) => new URL(url).host;
