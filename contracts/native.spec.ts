// Native JSON-RPC (RPC-01..12), one test per rule, titled by the catalogue: each takes its rule's
// checks from the works of contracts/native-work.ts.
import { RULES } from '../src/rules/catalogue.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { SharedWork } from './shared-work.js';
import { dataAccess } from './urls.js';

const spec = new Spec('native');
const works = new SharedWork();
const access = dataAccess(suiteEnv().target.api);
const native = suiteEnv().target.api?.native;

works.addFamily('native');

works.declareTests(
  spec,
  RULES.filter((r) => ['RPC'].includes(r.section)),
);

spec.coverRest(
  RULES.filter((r) => r.section === 'RPC').map((r) => r.id),
  () =>
    typeof access === 'string'
      ? access
      : !native
        ? 'target has no api.native section'
        : 'not testable with this target',
);
