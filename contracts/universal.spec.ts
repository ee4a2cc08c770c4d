// Universal REST (UNI-01, UNI-02), one test per rule, titled by the catalogue: each takes its rule's
// checks from the works of contracts/universal-work.ts.
import { RULES } from '../src/rules/catalogue.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { SharedWork, suiteWorkEnv } from './shared-work.js';
import { universalWorks } from './universal-work.js';
import { dataAccess } from './urls.js';

const spec = new Spec('universal');
const works = new SharedWork();
const access = dataAccess(suiteEnv().target.api);

works.addFamily('universal', universalWorks(suiteWorkEnv()));

works.declareTests(
  spec,
  RULES.filter((r) => r.section === 'UNI'),
);

spec.coverRest(
  RULES.filter((r) => r.section === 'UNI').map((r) => r.id),
  (_rule, t) =>
    typeof access === 'string'
      ? access
      : !t.api?.universal.length
        ? 'target has no api.universal entry'
        : 'not testable with this target',
);
