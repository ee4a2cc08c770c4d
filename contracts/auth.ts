// API-key authentication (AUTH-01..12) as a family contract: the plan is the matrix (every endpoint of
// the target crossed with every key usage of the auth table, then the refusals: no credentials, and
// wrong keys in every form the base was seen to accept; contracts/auth-send.ts), the judges one per
// rule over its answers (contracts/auth-judge.ts).
import type { ResolvedTarget } from '../src/target-file/types.js';
import { judgeAuth } from './auth-judge.js';
import { AUTH_RULES, authHosts, authPlanOf, sendAuth, type AuthAnswers } from './auth-send.js';
import { apiEndpoints, groupRules, usageGroups } from './matrix.js';
import type { FamilyContract, Judge } from './plan.js';

/** The AUTH rules this target's endpoints give checks to. */
function checkedBy(target: ResolvedTarget): Set<string> {
  const endpoints = apiEndpoints(target);
  return new Set([
    ...endpoints.flatMap((ep) => usageGroups().flatMap((g) => groupRules(ep, g))),
    ...(endpoints.length ? ['AUTH-07', 'AUTH-08', 'AUTH-10'] : []),
  ]);
}

export const AUTH: FamilyContract<AuthAnswers> = {
  family: 'auth',
  // Its requests are independent: a family whose next request depends on the last goes first when a slot frees.
  send: ({ client, samples }, env) =>
    sendAuth(
      client({ bulk: true }),
      samples,
      authPlanOf(env.target, env.seed, (r) => env.wants(r)),
    ),
  judges: Object.fromEntries(
    AUTH_RULES.map((rule): [string, Judge<AuthAnswers>] => [rule, (answers) => judgeAuth(rule, answers)]),
  ),
  untestable: (rule, t) => {
    if (checkedBy(t).has(rule)) return undefined;
    if (!t.api) return 'target has no api section';
    if (apiEndpoints(t).length === 0)
      return 'target has no api endpoint to call (no api.universal, api.native or api.nft)';
    if (rule === 'AUTH-12') return 'target has no api.universal entry';
    if (rule === 'AUTH-06')
      return 'target has no NFT endpoint with a query string (api.nft with collectionId or eventIds)';
    return 'not testable with this target';
  },
  hosts: authHosts,
};
