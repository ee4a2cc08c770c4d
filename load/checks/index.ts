// Every rate-limit check as a row: its rule, its check id, the plan's phases it reads (RULE_PHASES),
// what must be known before it can judge anything (a phase's data, Limit, T), and the check
// function, which is handed what it needs. A need that does not hold is `error`, worded by the row
// where its wording differs from the shared one, from one function for every check. A rule whose
// phases were cut short (budget, abort) keeps a `fail` it found on the data it has; anything else
// becomes `error` with the cause.
import type { CheckResult } from '../../src/verdict.js';
import { RULE_PHASES, type PhaseName } from '../plan.js';
import { toCheck, type CheckInput, type Finding, type Known, type Need } from './common.js';
import { checkAcceptedBeforeFirst429, checkCap, checkCapRejection, checkDenialAfterZero } from './drain.js';
import { checkFasterThanT, checkPauses, checkResetAgrees } from './dynamics.js';
import { checkHeaders, checkLimitConstant } from './headers.js';
import { checkIntegrity } from './integrity.js';
import { checkRate } from './rate.js';
import { checkGradualRecovery, checkRemainingTruthful, checkRetryAfterHonest } from './recovery.js';

export type { CheckInput } from './common.js';

type Text = string | ((input: CheckInput) => string);

/** How a check says that something it needs is not known: its message, and the evidence's cause. */
export interface Unmet {
  message: Text;
  cause: Text;
}

export interface CheckRow<N extends Need = Need> {
  rule: string;
  /** The check's id (a rule judged in parts adds `[part]`). */
  id: string;
  /** The plan's phases the check reads: the rule's RULE_PHASES. */
  phases: readonly PhaseName[];
  /** What must be known before the check can judge anything, in the order they are asked for. */
  needs: readonly N[];
  /** The row's own wording for a need that does not hold, where it differs from UNMET's. */
  unmet?: Partial<Record<N, Partial<Unmet>>>;
  run: (input: CheckInput, known: Pick<Known, N>) => Finding | Finding[];
}

/** Where each need is read, undefined when it does not hold. */
const KNOWN: { [K in Need]: (input: CheckInput) => Known[K] | undefined } = {
  pause: ({ plan }) => {
    const d = plan.dynamics;
    return d?.full && d.pausedAfter ? { full: d.full, pausedAfter: d.pausedAfter } : undefined;
  },
  drain: ({ plan }) => plan.drain,
  burst: ({ plan }) => (plan.drain?.burst.length ? plan.drain.burst : undefined),
  recovery: ({ plan }) => plan.recovery,
  limit: ({ a }) => a.limit,
  T: ({ a }) => a.T,
  estimate: ({ a }) => a.estimate,
};

/** The shared wording of each need that does not hold. */
const UNMET: Record<Need, Unmet> = {
  pause: {
    message: ({ plan }) => {
      const note = plan.dynamics?.note;
      return `the pause as long as the last Reset was not made${note ? `: ${note}` : ''}`;
    },
    cause: ({ plan }) => plan.dynamics?.note ?? 'no pause',
  },
  drain: { message: 'the drain did not run', cause: 'no drain' },
  burst: {
    message: ({ plan }) => {
      const note = plan.drain?.burstNote;
      return `no burst above the cap was sent${note ? ` (${note})` : ''}`;
    },
    cause: ({ plan }) => plan.drain?.burstNote ?? 'no burst',
  },
  recovery: { message: 'the recovery phase did not run', cause: 'no recovery phase' },
  limit: { message: 'no answer carried a usable X-RateLimit-Limit', cause: 'no Limit header' },
  T: { message: 'T could not be estimated', cause: 'no T estimate' },
  estimate: { message: 'T could not be estimated from the headers', cause: 'no estimate' },
};

/** Limit or T unknown, for the checks that need both, with what cannot be done without them. */
const limitOrT = (so: string): Unmet => ({
  message: `Limit or T could not be estimated, so ${so}`,
  cause: 'no Limit/T estimate',
});

function row<const N extends Need>(r: Omit<CheckRow<N>, 'phases'>): CheckRow {
  const phases = RULE_PHASES[r.rule];
  if (!phases) throw new Error(`${r.rule} has no phases in RULE_PHASES`);
  return { ...r, phases };
}

export const CHECKS: readonly CheckRow[] = [
  row({ rule: 'RL-01', id: 'rl.headers', needs: [], run: checkHeaders }),
  row({ rule: 'RL-02', id: 'rl.limit-constant', needs: ['limit'], run: checkLimitConstant }),
  row({
    rule: 'RL-03',
    id: 'rl.dynamics.faster-than-T',
    needs: ['T', 'limit'],
    unmet: { T: { message: 'T could not be estimated, so "faster than one per T" cannot be judged' } },
    run: checkFasterThanT,
  }),
  row({ rule: 'RL-04', id: 'rl.dynamics.pause', needs: ['pause'], run: checkPauses }),
  row({ rule: 'RL-05', id: 'rl.gradual', needs: ['recovery', 'T'], run: checkGradualRecovery }),
  row({ rule: 'RL-06', id: 'rl.exhaustion.429', needs: ['drain'], run: checkDenialAfterZero }),
  row({ rule: 'RL-07', id: 'rl.retry-after', needs: ['recovery'], run: checkRetryAfterHonest }),
  row({ rule: 'RL-08', id: 'rl.remaining-truthful', needs: [], run: checkRemainingTruthful }),
  row({ rule: 'RL-09', id: 'rl.rate', needs: ['limit', 'estimate'], unmet: { limit: UNMET.estimate }, run: checkRate }),
  row({ rule: 'RL-10', id: 'rl.cap', needs: ['drain'], run: checkCap }),
  row({
    rule: 'RL-11',
    id: 'rl.exhaustion.count',
    needs: ['drain', 'limit', 'T'],
    unmet: { limit: limitOrT('there is no forecast'), T: limitOrT('there is no forecast') },
    run: checkAcceptedBeforeFirst429,
  }),
  row({
    rule: 'RL-12',
    id: 'rl.reset-consistency',
    needs: ['limit', 'T'],
    unmet: {
      limit: limitOrT('Reset cannot be compared with them'),
      T: limitOrT('Reset cannot be compared with them'),
    },
    run: checkResetAgrees,
  }),
  row({ rule: 'RL-13', id: 'rl.cap-rejection', needs: ['drain', 'burst'], run: checkCapRejection }),
  row({ rule: 'RL-14', id: 'rl.integrity', needs: ['drain'], run: checkIntegrity }),
];

const textOf = (t: Text, input: CheckInput): string => (typeof t === 'string' ? t : t(input));

/** The `error` a check gets when something it needs is not known, in the row's wording. */
function unmet(r: CheckRow, need: Need, input: CheckInput): CheckResult {
  const w = { ...UNMET[need], ...r.unmet?.[need] };
  const f: Finding = {
    verdict: 'error',
    message: textOf(w.message, input),
    evidence: { cause: textOf(w.cause, input) },
  };
  return toCheck(input, r.id, r.rule, f);
}

/** One row's checks: `error` for the first need that does not hold, else what its check function finds. */
export function judge(r: CheckRow, input: CheckInput): CheckResult[] {
  const known: Partial<Record<Need, unknown>> = {};
  for (const need of r.needs) {
    const value = KNOWN[need](input);
    if (value === undefined) return [unmet(r, need, input)];
    known[need] = value;
  }
  const findings = ([] as Finding[]).concat(r.run(input, known as Known));
  return findings.map((f) => toCheck(input, f.part === undefined ? r.id : `${r.id}[${f.part}]`, r.rule, f));
}

export function evaluate(input: CheckInput, selected: (ruleId: string) => boolean): CheckResult[] {
  const out: CheckResult[] = [];
  for (const r of CHECKS) {
    if (!selected(r.rule)) continue;
    const cut = input.plan.phases.find((p) => r.phases.includes(p.name) && p.stop !== undefined);
    for (const c of judge(r, input)) {
      if (!cut || c.verdict === 'fail') out.push(c);
      else
        out.push({
          ...c,
          verdict: 'error',
          message: `${cut.stop}: the ${cut.name} phase was cut short (${cut.reason})`,
          evidence: { ...c.evidence, cause: cut.stop },
        });
    }
  }
  return out;
}
