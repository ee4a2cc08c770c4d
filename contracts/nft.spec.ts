// NFT data API (NFT-01..13) and the shared resource rules (RES-01, RES-02), one test per rule, titled
// by the catalogue: each takes its rule's checks from the works of contracts/nft-work.ts.
import { RULES } from '../src/rules/catalogue.js';
import { Spec } from './fixtures.js';
import { SharedWork } from './shared-work.js';
import { nftMissing } from './urls.js';

const spec = new Spec('nft');
const works = new SharedWork();

works.addFamily('nft');

works.declareTests(
  spec,
  RULES.filter((r) => ['NFT', 'RES'].includes(r.section)),
);

spec.coverRest(
  RULES.filter((r) => r.section === 'NFT' || r.section === 'RES').map((r) => r.id),
  (rule, t) => {
    const missing = nftMissing(t);
    if (missing) return missing;
    if (['NFT-01', 'NFT-02', 'NFT-03', 'NFT-04'].includes(rule)) return 'target has no api.nft.eventIds';
    return 'target has neither api.nft.collectionId nor api.nft.eventIds';
  },
);
