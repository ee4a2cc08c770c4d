// Universal REST (UNI-01, UNI-02), one test per rule, titled by the catalogue: each takes its rule's
// checks from the works of contracts/universal-work.ts.
import { RULES } from '../src/rules/catalogue.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { SharedWork } from './shared-work.js';
import { dataAccess } from './urls.js';

const spec = new Spec('universal');
const works = new SharedWork();
const access = dataAccess(suiteEnv().target.api);

works.addFamily('universal');

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
