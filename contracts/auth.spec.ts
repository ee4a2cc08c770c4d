// API-key authentication, one test per rule (AUTH-01..12), titled by the catalogue: every endpoint
// of the target crossed with every key usage of the auth table, plus the refusals (no credentials,
// and wrong keys: near misses of the real one, the empty value, a duplicated apiKey) in every form
// the base was seen to accept. The matrix is sent once, all at once (the ApiClient bounds the requests
// in flight per host: limits.concurrency; contracts/auth-send.ts): by the contract stage while
// Playwright starts, or else by whichever AUTH test of a worker runs first. Each test then judges its
// rule over the answers (contracts/auth-judge.ts).
import { wrongCredentialCount } from '../src/auth/wrong-credentials.js';
import { RULES } from '../src/rules/catalogue.js';
import type { ApiClient } from './api.js';
import { judgeAuth } from './auth-judge.js';
import { readAuthAnswers } from './auth-file.js';
import { authPlanOf, sendAuth, type AuthAnswers } from './auth-send.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { apiEndpoints, fullEndpoint, groupRules, NO_CREDENTIALS, PROBED_FORMS, usageGroups } from './matrix.js';
import type { Samples } from './samples.js';

const spec = new Spec('auth');
const env = suiteEnv();
const target = env.target;
const endpoints = apiEndpoints(target);
const groups = usageGroups();

let answers: Promise<AuthAnswers> | undefined;
/**
 * The matrix's answers: sent by the contract stage while Playwright started (contracts/stage-work.ts),
 * or else by the first AUTH test of this worker (its api, its time).
 */
const authAnswers = (api: ApiClient, samples: Samples) =>
  (answers ??= env.authAnswers
    ? readAuthAnswers(env.authAnswers, env.deadline, endpoints)
    : sendAuth(api, samples, authPlanOf(target, env.seed, env.selected)));

/** Every request the matrix may send: the first AUTH test's timeout is that many request timeouts. */
const matrixRequests = endpoints.reduce((n, ep) => {
  const wrong = (['base', 'legacy'] as const).reduce(
    (m, base) => m + PROBED_FORMS[base].reduce((k, f) => k + wrongCredentialCount(f, fullEndpoint(endpoints, ep)), 0),
    0,
  );
  return n + groups.reduce((k, g) => k + g.usages.length, 0) + NO_CREDENTIALS.length + wrong;
}, 2);

/** The AUTH rules this target's endpoints give checks to. */
const checked = new Set([
  ...endpoints.flatMap((ep) => groups.flatMap((g) => groupRules(ep, g))),
  ...(endpoints.length ? ['AUTH-07', 'AUTH-08', 'AUTH-10'] : []),
]);

for (const rule of RULES.filter((r) => r.section === 'AUTH' && checked.has(r.id)))
  spec.contract(
    rule.title,
    [rule.id],
    async ({ api, check, samples }) => check.state(judgeAuth(rule.id, await authAnswers(api, samples))),
    { requests: matrixRequests },
  );

spec.coverRest(
  RULES.filter((r) => r.section === 'AUTH').map((r) => r.id),
  (rule, t) => {
    if (!t.api) return 'target has no api section';
    if (endpoints.length === 0) return 'target has no api endpoint to call (no api.universal, api.native or api.nft)';
    if (rule === 'AUTH-12') return 'target has no api.universal entry';
    if (rule === 'AUTH-06')
      return 'target has no NFT endpoint with a query string (api.nft with collectionId or eventIds)';
    return 'not testable with this target';
  },
);
