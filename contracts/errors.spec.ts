// Errors (ERR-01). The check itself is built by the parent run from every non-2xx answer the
// suite met (contracts/errors-summary.ts); this spec adds the causes no other family provokes, so
// that `--only errors` still meets some: an unknown path, a block height the chain does not have
// yet, and requests without credentials.
import { RULES } from '../src/rules/catalogue.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { dataAccess, PATHS } from './urls.js';
import type { CallSpec } from './api.js';

const spec = new Spec('errors');
const target = suiteEnv().target;
const access = dataAccess(target.api);
const blockRest = target.nodes.blockRest;

/** The largest height the block-by-height path accepts as a number: no chain is there yet. */
const FUTURE_HEIGHT = Number.MAX_SAFE_INTEGER;

/** The requests that cannot succeed this target allows: each a cause of its own. */
function requests(): CallSpec[] {
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

if (typeof access !== 'string' || blockRest) {
  // Independent requests: all at once.
  spec.contract('answers to requests that cannot succeed', ['ERR-01'], async ({ api, check }) => {
    await Promise.all(
      requests().map((r) =>
        check.guard('ERR-01', r.purpose, async () => {
          await api.call(r);
        }),
      ),
    );
  });
}

spec.coverRest(
  RULES.filter((r) => r.section === 'ERR').map((r) => r.id),
  () => 'target has neither an api section with credentials nor nodes.blockRest',
);
