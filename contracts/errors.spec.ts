// Errors (ERR-01), one test: it takes the checks of contracts/errors-work.ts (none unless a request
// could not be sent). The rule's check itself is built by the parent run from every non-2xx answer
// the suite met (contracts/errors-summary.ts).
import { RULES } from '../src/rules/catalogue.js';
import { Spec } from './fixtures.js';
import { SharedWork } from './shared-work.js';

const spec = new Spec('errors');
const works = new SharedWork();

works.addFamily('errors');

works.declareTests(
  spec,
  RULES.filter((r) => r.section === 'ERR'),
);

spec.coverRest(
  RULES.filter((r) => r.section === 'ERR').map((r) => r.id),
  () => 'target has neither an api section with credentials nor nodes.blockRest',
);
