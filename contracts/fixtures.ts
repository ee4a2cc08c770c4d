// Playwright fixtures of the contract suite and `contract()`, the one way a spec declares a test:
// the rule ids are its tags (so --grep @NFT-01 selects by rule, and the reporter knows whom to
// blame when the test dies), and the test's checks and non-2xx summaries are attached for the
// reporter when it ends, however it ends.
import * as playwright from '@playwright/test';
import { Budget } from '../src/budget.js';
import { closeHttp } from '../src/http/client.js';
import { Recorder } from '../src/record/recorder.js';
import { Redactor } from '../src/record/redact.js';
import { secretsOf } from '../src/target-file/load.js';
import { useTls } from '../src/tls/trust.js';
import { importCauses, KNOWN_CAUSES_ENV } from '../src/net/causes.js';
import { DEFAULT_CONCURRENCY, type ResolvedTarget } from '../src/target-file/types.js';
import { ApiClient, type HostHold } from './api.js';
import { holding, holdOf } from './stage-files.js';
import { Checks } from './checks.js';
import { suiteEnv, type SuiteEnv } from './env.js';
import { CHECKS_ATTACHMENT, NOT_TESTABLE_TITLE, ruleTag, type TestAttachment } from './protocol.js';
import { Samples } from './samples.js';
import { reportChecks } from './steps.js';
import { startTiming } from './timing.js';

interface WorkerFixtures {
  suite: SuiteEnv;
  budget: Budget;
  redactor: Redactor;
  samples: Samples;
}

export interface ContractFixtures {
  target: ResolvedTarget;
  recorder: Recorder;
  api: ApiClient;
  check: Checks;
  samples: Samples;
  /** Clients of their own for work several tests share (its checks and answers outlive the test that started it). */
  fresh: () => SharedClients;
}

/** A recorder, an ApiClient and a Checks of this worker, not tied to one test (and the worker's target and samples). */
export type SharedClients = Omit<ContractFixtures, 'fresh'>;

// Per-test cost dominates a local run, and every fixture is a reported step with a captured
// stack. So: the root test type without the browser fixtures (`_baseTest`, typed in
// @playwright/test, which the browser-less test types of Playwright itself are built on), worker
// fixtures built once per worker, and ONE test fixture for the per-test state.
const base = playwright._baseTest ?? playwright.test;

let workerHold: HostHold | undefined;
/** The worker's one hold on the hosts the contract stage sends to meanwhile (contracts/stage-work.ts). */
const stageHoldOf = (suite: SuiteEnv) =>
  suite.stageHold ? (workerHold ??= holdOf(suite.stageHold, suite.deadline)) : undefined;

export const test = base.extend<{ contract: ContractFixtures }, WorkerFixtures>({
  suite: [
    async ({}, use) => {
      const env = suiteEnv();
      useTls(env.target.tls);
      importCauses(process.env[KNOWN_CAUSES_ENV]);
      await use(env);
    },
    { scope: 'worker' },
  ],
  budget: [
    async ({ suite }, use) => {
      const budget = new Budget({
        maxRequests: suite.target.limits.maxRequests,
        deadline: suite.deadline,
        counterFile: suite.budgetFile,
        tallyFile: suite.tallyFile,
      });
      await use(budget);
      budget.close();
      await closeHttp();
    },
    { scope: 'worker' },
  ],
  redactor: [async ({ suite }, use) => use(new Redactor(secretsOf(suite.target), suite.seed)), { scope: 'worker' }],
  samples: [async ({ suite }, use) => use(new Samples(suite.target)), { scope: 'worker' }],
  contract: [
    async ({ suite, budget, redactor, samples }, use, testInfo) => {
      const timing = startTiming();
      const horizon = suite.target.nodes.horizon;
      const hold = stageHoldOf(suite);
      // Shared work gets clients of its own: its exchanges go to the first test that reads it (SharedWork),
      // not to the test that happened to start it, which may end before the work does.
      const fresh = (): SharedClients => {
        const recorder = new Recorder(redactor);
        const check = new Checks(redactor, suite.selected);
        const api = new ApiClient(recorder, budget, {
          timeoutMs: suite.target.limits.timeoutMs,
          perHost: Math.max(1, Math.floor((suite.target.limits.concurrency ?? DEFAULT_CONCURRENCY) / suite.workers)),
          rateLimited: horizon && { host: new URL(horizon.endpoint).host, deadline: suite.deadline },
          ...(hold && { hold }),
        });
        return { target: suite.target, recorder, api, check, samples };
      };
      const { recorder, api, check } = fresh();
      await use({ target: suite.target, recorder, api, check, samples, fresh });
      // However the test ended, its checks so far and the non-2xx answers it met go to the reporter.
      const exchanges = recorder.exchanges;
      const body: TestAttachment = {
        checks: check.results,
        non2xx: api.non2xx,
        timing: timing(exchanges),
        ...(suite.exchanges && { exchanges }),
      };
      // TestInfo.attachments.push, not attach(): attach() also adds a step (a stack capture through
      // source maps) and creates the test's output folder, about a millisecond a test; the
      // attachment the reporters get is the same.
      testInfo.attachments.push({
        name: CHECKS_ATTACHMENT,
        body: Buffer.from(JSON.stringify(body)),
        contentType: 'application/json',
      });
    },
    { box: true },
  ],
});

export interface ContractOptions {
  /** Requests the test may send one after another: its timeout is that many request timeouts. */
  requests?: number;
  /** An explicit test timeout (ms), for walks bounded by other limits. */
  timeoutMs?: number;
}

function timeoutFor(opts: ContractOptions): number {
  const env = suiteEnv();
  const perRequest = env.target.limits.timeoutMs;
  // While the contract stage is still sending, a test may wait for it (stageHoldOf): until the run's
  // deadline at most, which bounds the stage's requests.
  const waits = holding(env.stageHold);
  const wanted = waits ? Infinity : (opts.timeoutMs ?? perRequest * (opts.requests ?? 4) + 5_000);
  // Never past the run's deadline (plus a moment for the checks to be attached).
  return Math.max(5_000, Math.min(wanted, env.deadline - Date.now() + 2_000));
}

/**
 * Declares one Playwright test. Playwright takes a test's location from the caller of `test()`,
 * which would put every test at this file's line. While it declares, stack captures start above
 * `caller` (the function that called this one), so the first frame Playwright sees is the Spec
 * method the spec file called, and the location it takes is the spec file's line.
 */
function declare(
  caller: Function,
  title: string,
  details: playwright.TestDetails,
  body: Parameters<typeof test>[2],
): void {
  const capture = Error.captureStackTrace;
  Error.captureStackTrace = (obj: object, from?: Function) => capture(obj, from ?? caller);
  try {
    test(title, details, body);
  } finally {
    Error.captureStackTrace = capture;
  }
}

/** One spec file (one access family): declares its contract tests and covers the rest. */
export class Spec {
  private readonly declared = new Set<string>();

  constructor(readonly family: string) {}

  /**
   * Declares one contract test checking `rules`: the rule ids are its tags (`--grep @NFT-01`),
   * which Playwright's reports show beside the title; its checks become its steps (steps.ts).
   * A helper that declares for the spec file (SharedWork.declareTests) says so (`byHelper`): the
   * test is still located at the spec file's line, the one that called the helper.
   */
  contract(
    title: string,
    rules: readonly string[],
    body: (f: ContractFixtures) => Promise<void>,
    opts: ContractOptions = {},
    byHelper = false,
  ): void {
    this.add(title, rules, body, opts, byHelper);
  }

  /**
   * For each of `rules` that no test of this file declared (its target section is absent, so the
   * tables generated nothing), one test that reports it `skipped` with the reason: every rule
   * keeps a check, and coverage shows why.
   */
  coverRest(rules: readonly string[], reasonOf: (rule: string, target: ResolvedTarget) => string): void {
    const missing = rules.filter((r) => !this.declared.has(r));
    if (missing.length === 0) return;
    this.add(`${this.family}: ${NOT_TESTABLE_TITLE}`, missing, async ({ check, target }) => {
      for (const rule of missing)
        check.skip(rule, `${this.family}.${rule.toLowerCase()}.not-testable`, reasonOf(rule, target));
    });
  }

  private add(
    title: string,
    rules: readonly string[],
    body: (f: ContractFixtures) => Promise<void>,
    opts: ContractOptions = {},
    byHelper = false,
  ): void {
    for (const r of rules) this.declared.add(r);
    // Stack captures start above the Spec method the spec file (or its helper) called.
    declare(
      byHelper ? Spec.prototype.contract : Spec.prototype.add,
      title,
      { tag: rules.map(ruleTag) },
      async ({ contract }, testInfo) => {
        test.setTimeout(timeoutFor(opts));
        let threw = true;
        try {
          await body(contract);
          threw = false;
        } finally {
          await reportChecks(test.step, testInfo, contract.check.results, threw);
        }
      },
    );
  }
}
