// The errors family (ERR-01): its plan provokes the causes no other family does, so that `--only
// errors` still meets some: an unknown path, a block height the chain does not have yet, and
// requests without credentials. ERR-01's observation is judged over every non-2xx answer of the run,
// these included (contracts/errors-summary.ts); this family's own judge reports a request that could
// not be sent.
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { CallSpec } from './api.js';
import { isCouldNotTest } from './checks.js';
import { hostOf, type FamilyContract } from './plan.js';
import { dataAccess, PATHS } from './urls.js';

/** The largest height the block-by-height path accepts as a number: no chain is there yet. */
const FUTURE_HEIGHT = Number.MAX_SAFE_INTEGER;

/** The requests that cannot succeed this target allows: each a cause of its own. */
function requests(target: ResolvedTarget): CallSpec[] {
  const access = dataAccess(target.api);
  const blockRest = target.nodes.blockRest;
  const out: CallSpec[] = [];
  if (typeof access !== 'string') {
    out.push({
      purpose: 'errors.unknown-path',
      method: 'GET',
      url: `${access.base}/chainprobe/v1/no/such/path`,
      auth: access.auth,
      cause: 'an unknown path',
    });
    const base = target.api?.baseUrl ?? target.api?.legacyBaseUrl;
    const u = target.api?.universal[0];
    if (base && u)
      out.push({
        purpose: 'errors.no-credentials',
        method: 'GET',
        url: base + PATHS.blockNumber(u.protocol, u.network),
        cause: 'no credentials',
      });
  }
  if (blockRest)
    out.push(
      {
        purpose: 'errors.future-height',
        method: 'GET',
        url: blockRest.endpoint + PATHS.blockByHeight(FUTURE_HEIGHT),
        auth: { form: 'x-auth-token', secret: blockRest.token },
        cause: 'a block height the chain does not have',
      },
      {
        purpose: 'errors.no-node-token',
        method: 'GET',
        url: blockRest.endpoint + PATHS.blockByHeight(blockRest.height),
        cause: 'no node token',
      },
    );
  return out;
}

/** What the plan got: each request's purpose, and why it could not be sent when it could not. */
export type ErrorsAnswers = { purpose: string; cause?: string }[];

export const ERRORS: FamilyContract<ErrorsAnswers> = {
  family: 'errors',
  // Independent requests: all at once. Their answers matter only as non-2xx answers of the run.
  send: ({ api }, { target }) =>
    Promise.all(
      requests(target).map((r) =>
        api.call(r).then(
          () => ({ purpose: r.purpose }),
          (e: unknown) => {
            if (!isCouldNotTest(e)) throw e;
            return { purpose: r.purpose, cause: e.message };
          },
        ),
      ),
    ),
  judges: {
    'ERR-01': (answers) =>
      answers.flatMap((a) =>
        a.cause === undefined ? [] : [{ rule: 'ERR-01', id: a.purpose, verdict: 'error' as const, message: a.cause }],
      ),
  },
  untestable: (_rule, t) =>
    requests(t).length ? undefined : 'target has neither an api section with credentials nor nodes.blockRest',
  hosts: (t) => [...new Set(requests(t).map((c) => hostOf(c.url)))],
};
