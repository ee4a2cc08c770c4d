// chainprobe's own host: every selected family's plan sent in the command's process, at once, under
// the target's limits (one budget, one per-host bound, the run's deadline and interrupt), then each
// selected rule judged over what its family's plan got. The rate-limited node is sent to only after
// the probes in a full run (Senders.rateLimitedNode). ERR-01 is judged over every family's non-2xx
// answers.
import { setMaxListeners } from 'node:events';
import { Budget } from '../src/budget.js';
import { groupCauses } from '../src/net/causes.js';
import { Recorder, type Exchange } from '../src/record/recorder.js';
import type { Gap } from '../src/coverage.js';
import { familyOf, RULES } from '../src/rules/catalogue.js';
import type { ContractsOutcome, ProbeAnswer, RunContext } from '../src/stages.js';
import { DEFAULT_CONCURRENCY, type ResolvedTarget } from '../src/target-file/types.js';
import type { CheckResult } from '../src/verdict.js';
import { ApiClient, type ApiClientOptions } from './api.js';
import { Checks } from './checks.js';
import { errorChecks } from './errors-summary.js';
import { CONTRACTS, CONTRACT_RULES } from './judges.js';
import { hostOf, runStartOf, type AnyFamilyContract, type ContractFamily, type PlanEnv, type Senders } from './plan.js';
import type { Non2xx } from './protocol.js';
import { Samples } from './samples.js';

export { CONTRACT_RULES };

export interface ContractsOptions {
  /**
   * Settles once the probes are done with the horizon node (a full run), with their answers: the
   * rate-limited node's contract requests are sent only then, and only those no probe answer serves.
   */
  horizonAfter?: Promise<readonly ProbeAnswer[] | undefined>;
  /** Report only the rules this target cannot test (nothing is sent: no address answered). */
  notTestableOnly?: boolean;
}

/** What one family's plan left behind: its checks, its non-2xx answers, its exchanges. */
export interface FamilyOutcome {
  family: ContractFamily;
  checks: CheckResult[];
  non2xx: Non2xx[];
  exchanges: Exchange[];
  /** Its plan threw outright (a defect, not a could-not-test cause): the one line saying so. */
  failed?: string;
}

/** The clients one run's plans share: the budget, the per-host bound, the interrupt. */
export interface Session {
  target: ResolvedTarget;
  budget: Budget;
  signal: AbortSignal;
  deadline: number;
  /** Requests in flight per host, for this session (a Playwright worker takes its share). */
  perHost: number;
  samples: Samples;
  rateLimitedNode: () => Promise<readonly ProbeAnswer[]>;
}

/** The checks of one family: its plan sent once, each selected rule judged (or skipped with the reason). */
export async function runFamily(
  contract: AnyFamilyContract,
  session: Session,
  env: PlanEnv,
  checks: Checks,
  rules: readonly string[] = Object.keys(contract.judges),
): Promise<FamilyOutcome> {
  const { target } = session;
  const recorder = new Recorder(checks.redactor);
  const horizon = target.nodes.horizon;
  const base: ApiClientOptions = {
    timeoutMs: target.limits.timeoutMs,
    perHost: session.perHost,
    rateLimited: horizon && { host: new URL(horizon.endpoint).host, deadline: session.deadline },
    signal: session.signal,
  };
  const clients: ApiClient[] = [];
  const client = (opts: Partial<ApiClientOptions>) => {
    const c = new ApiClient(recorder, session.budget, { ...base, ...opts });
    clients.push(c);
    return c;
  };
  const api = client({});
  const senders: Senders = {
    api,
    recorder,
    samples: session.samples,
    client,
    rateLimitedNode: session.rateLimitedNode,
  };
  const wanted = rules.filter((r) => env.wants(r));
  const testable = wanted.filter((r) => {
    const why = contract.untestable(r, target);
    if (why !== undefined)
      checks.apply([
        { rule: r, id: `${contract.family}.${r.toLowerCase()}.not-testable`, verdict: 'skipped', message: why },
      ]);
    return why === undefined;
  });
  const outcome = (failed?: string): FamilyOutcome => ({
    family: contract.family,
    checks: checks.results,
    non2xx: clients.flatMap((c) => c.non2xx),
    exchanges: recorder.exchanges,
    ...(failed !== undefined && { failed }),
  });
  if (testable.length === 0) return outcome();
  const planEnv: PlanEnv = { ...env, wants: (...rs) => rs.some((r) => testable.includes(r)) };
  let answers: unknown;
  try {
    answers = await contract.send(senders, planEnv);
  } catch (e) {
    return outcome(checks.redactor.text(String((e as Error)?.message ?? e)).split('\n')[0]);
  }
  for (const rule of testable) checks.apply(contract.judges[rule]!(answers, planEnv));
  return outcome();
}

/** The families whose rules are selected, in catalogue order. */
export function selectedFamilies(selected: (rule: string) => boolean): AnyFamilyContract[] {
  return CONTRACTS.filter((c) => Object.keys(c.judges).some(selected));
}

/** A session of the command's process: the run's budget (shared with the probes' thread) and interrupt. */
function sessionOf(ctx: RunContext, horizonAfter?: ContractsOptions['horizonAfter']): Session & { close(): void } {
  const budget = new Budget({
    maxRequests: ctx.target.limits.maxRequests,
    deadline: ctx.deadline,
    counter: ctx.budget,
    tally: ctx.tally,
  });
  const interrupt = new AbortController();
  // Every request in flight listens for the interrupt.
  setMaxListeners(0, interrupt.signal);
  const onAbort = () => interrupt.abort();
  if (ctx.signal.aborted) interrupt.abort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  const after =
    horizonAfter?.then(
      (a) => a ?? [],
      () => [],
    ) ?? Promise.resolve([]);
  return {
    target: ctx.target,
    budget,
    signal: interrupt.signal,
    deadline: ctx.deadline,
    perHost: ctx.target.limits.concurrency ?? DEFAULT_CONCURRENCY,
    samples: new Samples(ctx.target),
    rateLimitedNode: () => after,
    close: () => ctx.signal.removeEventListener('abort', onAbort),
  };
}

export const NO_EVIDENCE =
  'no evidence: every answer this rule reads from failed or was refused (see the other checks of its family)';

/** The connection cause of a rule's family when none of its checks got an answer: why the rule had no evidence. */
function familyCause(checks: readonly CheckResult[], rule: string): string | undefined {
  const mine = checks.filter((c) => familyOf(c.rule) === familyOf(rule));
  if (mine.some((c) => c.verdict !== 'error' && c.verdict !== 'skipped')) return undefined;
  return groupCauses(mine)[0]?.line;
}

/** Runs every selected family's plan at once in this process and judges the selected contract rules. */
export async function runContracts(ctx: RunContext, opts: ContractsOptions = {}): Promise<ContractsOutcome> {
  const selected = CONTRACT_RULES.filter((id) => ctx.selected(id));
  if (selected.length === 0) return { checks: [], gaps: [] };
  const session = sessionOf(ctx, opts.horizonAfter);
  const env: PlanEnv = {
    target: ctx.target,
    seed: ctx.seed,
    startedAt: runStartOf(ctx.target, ctx.deadline),
    wants: (...rules) => rules.some((r) => ctx.selected(r)),
  };
  const families = selectedFamilies(ctx.selected);
  const total = (f: AnyFamilyContract) => Object.keys(f.judges).filter(ctx.selected).length;
  // The rate-limited node's requests go one cap interval apart, the stage's longest chain: the
  // families that send to it start first, so the other plans are built while it waits between
  // requests, not before its first one. Outcomes stay in catalogue order.
  const limited = ctx.target.nodes.horizon && hostOf(ctx.target.nodes.horizon.endpoint);
  const toLimited = (f: AnyFamilyContract) => (limited !== undefined && f.hosts(ctx.target).includes(limited) ? 0 : 1);
  const startOrder = [...families].sort((a, b) => toLimited(a) - toLimited(b));
  try {
    const started = new Map(
      startOrder.map((f) => [
        f,
        (async () => {
          const checks = new Checks(ctx.redactor, ctx.selected);
          // Nothing answered the preflight: only the rules this target cannot test are reported (nothing is sent).
          const rules = Object.keys(f.judges).filter(
            (r) => ctx.selected(r) && (!opts.notTestableOnly || f.untestable(r, ctx.target) !== undefined),
          );
          const out = await runFamily(f, session, env, checks, rules);
          ctx.progress({ stage: 'contracts', family: f.family, done: total(f), total: total(f) });
          return out;
        })(),
      ]),
    );
    const outcomes = await Promise.all(families.map((f) => started.get(f)!));
    // Families come back in catalogue order, each family's checks in its judges' order.
    const byRule = new Map<string, CheckResult[]>();
    for (const c of outcomes.flatMap((o) => o.checks)) byRule.set(c.rule, [...(byRule.get(c.rule) ?? []), c]);
    const checks = RULES.flatMap((r) => byRule.get(r.id) ?? []);
    const non2xx = outcomes.flatMap((o) => o.non2xx);
    const exchanges = outcomes.flatMap((o) => o.exchanges);
    if (opts.notTestableOnly) return { checks, gaps: [], seed: ctx.seed };

    // ERR-01 from every family's non-2xx answers; "none met" needs answers.
    if (ctx.selected('ERR-01')) {
      const noAnswer =
        non2xx.length === 0 && checks.every((c) => c.verdict === 'error' || c.verdict === 'skipped')
          ? groupCauses(checks)[0]
          : undefined;
      // Nothing sent (every family's rules were skipped): nothing met, and nothing to observe.
      if (exchanges.length === 0 && !noAnswer)
        checks.push({
          id: 'errors.non2xx[nothing-sent]',
          rule: 'ERR-01',
          verdict: 'skipped',
          message: 'no request was sent: every other selected rule was skipped',
          evidence: { cause: 'no request was sent' },
        });
      else if (noAnswer)
        checks.push({
          id: 'errors.non2xx[no-answer]',
          rule: 'ERR-01',
          verdict: 'error',
          message: `could not check: ${noAnswer.line}`,
          evidence: { cause: noAnswer.line },
        });
      else if (!ctx.signal.aborted) checks.push(...errorChecks(non2xx));
    }

    const failed = outcomes.filter((o) => o.failed !== undefined);
    const reason = (rule: string): string => {
      if (ctx.signal.aborted) return 'interrupted';
      if (Date.now() >= ctx.deadline) return 'budget: the run reached limits.maxSeconds';
      const { maxRequests } = ctx.target.limits;
      if (session.budget.used() >= maxRequests) return `budget: the run reached limits.maxRequests (${maxRequests})`;
      const broke = failed.find((o) => o.family === familyOf(rule));
      if (broke) return `the ${broke.family} plan failed: ${broke.failed}`;
      return familyCause(checks, rule) ?? NO_EVIDENCE;
    };
    const gaps: Gap[] = [
      { rules: (id) => selected.includes(id), reason: (rule) => ctx.redactor.text(reason(rule)).slice(0, 300) },
    ];
    return { checks, gaps, seed: ctx.seed, ...(ctx.recordExchanges && { exchanges }) };
  } finally {
    session.close();
  }
}
