// API-key authentication, one test per rule (AUTH-01..12), titled by the catalogue: every endpoint
// of the target crossed with every key usage of the auth table, plus the refusals (no credentials,
// and wrong keys: near misses of the real one, the empty value, a duplicated apiKey) in every form
// the base was seen to accept. The matrix is sent once, all at once (the ApiClient bounds the requests
// in flight per host: limits.concurrency; contracts/auth-send.ts), and each rule judged over its
// answers (contracts/auth-judge.ts): by the contract stage while Playwright starts (each test then
// adopts its rule's checks from the stage's file), or else by whichever AUTH test of a worker runs
// first (each test then judges its rule).
import { wrongCredentialCount } from '../src/auth/wrong-credentials.js';
import { RULES } from '../src/rules/catalogue.js';
import type { ApiClient } from './api.js';
import { judgeAuth } from './auth-judge.js';
import { authPlanOf, sendAuth, type AuthAnswers } from './auth-send.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { apiEndpoints, fullEndpoint, groupRules, NO_CREDENTIALS, PROBED_FORMS, usageGroups } from './matrix.js';
import type { Samples } from './samples.js';
import { readPublished } from './stage-files.js';
import type { CheckResult } from '../src/verdict.js';

const spec = new Spec('auth');
const env = suiteEnv();
const target = env.target;
const endpoints = apiEndpoints(target);
const groups = usageGroups();

let judged: Promise<CheckResult[]> | undefined;
let answers: Promise<AuthAnswers> | undefined;
/** The checks the contract stage judged over the matrix it sent while Playwright started (contracts/stage-work.ts). */
const stageChecks = (file: string) =>
  (judged ??= readPublished<{ checks: CheckResult[]; error?: string }>(file, env.deadline, 'the auth matrix').then(
    (got) => got.checks,
  ));
/** Without the stage: the matrix's answers, sent by the first AUTH test of this worker (its api, its time). */
const authAnswers = (api: ApiClient, samples: Samples) =>
  (answers ??= sendAuth(api, samples, authPlanOf(target, env.seed, env.selected)));

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
    async ({ api, check, samples }) => {
      if (env.authChecks) check.adopt((await stageChecks(env.authChecks)).filter((c) => c.rule === rule.id));
      else check.state(judgeAuth(rule.id, await authAnswers(api, samples)));
    },
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
