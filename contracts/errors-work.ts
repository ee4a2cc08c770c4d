// The errors family's work (ERR-01): the causes no other family provokes, so that `--only errors`
// still meets some: an unknown path, a block height the chain does not have yet, and requests
// without credentials. ERR-01's check itself is built by the parent run from every non-2xx answer
// the suite met (contracts/errors-summary.ts), these included.
import type { CallSpec } from './api.js';
import { dataAccess, PATHS } from './urls.js';
import { hostOf, WorkList, type FamilyWork, type WorkEnv } from './work.js';

/** The largest height the block-by-height path accepts as a number: no chain is there yet. */
const FUTURE_HEIGHT = Number.MAX_SAFE_INTEGER;

/** The requests that cannot succeed this target allows: each a cause of its own. */
function requests({ target }: WorkEnv): CallSpec[] {
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

export function errorsWorks(env: WorkEnv): FamilyWork[] {
  const calls = requests(env);
  if (!calls.length) return [];
  const works = new WorkList([...new Set(calls.map((c) => hostOf(c.url)))]);
  // Independent requests: all at once.
  works.contract('answers to requests that cannot succeed', ['ERR-01'], async ({ api, check }) => {
    await Promise.all(
      calls.map((r) =>
        check.guard('ERR-01', r.purpose, async () => {
          await api.call(r);
        }),
      ),
    );
  });
  return works.list;
}
