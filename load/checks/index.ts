// Every rate-limit check, keyed by rule. A rule whose phases were cut short (budget, abort) keeps
// a `fail` it found on the data it has; anything else becomes `error` with the cause.
import type { CheckResult } from '../../src/verdict.js';
import { RULE_PHASES } from '../plan.js';
import type { CheckInput } from './common.js';
import { checkAcceptedBeforeFirst429, checkCap, checkCapRejection, checkDenialAfterZero } from './drain.js';
import { checkFasterThanT, checkPauses, checkResetAgrees } from './dynamics.js';
import { checkHeaders, checkLimitConstant } from './headers.js';
import { checkRate } from './rate.js';
import { checkGradualRecovery, checkRemainingTruthful, checkRetryAfterHonest } from './recovery.js';

export type { CheckInput } from './common.js';

const CHECKS: readonly [string, (input: CheckInput) => CheckResult | CheckResult[]][] = [
  ['RL-01', checkHeaders],
  ['RL-02', checkLimitConstant],
  ['RL-03', checkFasterThanT],
  ['RL-04', checkPauses],
  ['RL-05', checkGradualRecovery],
  ['RL-06', checkDenialAfterZero],
  ['RL-07', checkRetryAfterHonest],
  ['RL-08', checkRemainingTruthful],
  ['RL-09', checkRate],
  ['RL-10', checkCap],
  ['RL-11', checkAcceptedBeforeFirst429],
  ['RL-12', checkResetAgrees],
  ['RL-13', checkCapRejection],
];

export function evaluate(input: CheckInput, selected: (ruleId: string) => boolean): CheckResult[] {
  const out: CheckResult[] = [];
  for (const [rule, run] of CHECKS) {
    if (!selected(rule)) continue;
    const cut = input.plan.phases.find((p) => RULE_PHASES[rule]!.includes(p.name) && p.stop !== undefined);
    for (const c of ([] as CheckResult[]).concat(run(input))) {
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
