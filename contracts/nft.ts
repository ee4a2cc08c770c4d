// The NFT data API (NFT-01..13, and the shared resource rules RES-01, RES-02) as a family contract:
// the plan reads the events, the collection, the whole rarity list page by page with NFT-11's
// cross-check of its items, an asset, unknown and malformed ids (contracts/nft-send.ts); the judges,
// one per rule, judge what it got (contracts/nft-judge.ts).
import type { ResolvedTarget } from '../src/target-file/types.js';
import { NFT_JUDGES } from './nft-judge.js';
import { PART_RULES, partsOf, sendNft, type NftAnswers } from './nft-send.js';
import { hostOf, type FamilyContract } from './plan.js';
import { dataAccess, nftMissing } from './urls.js';

/** The rules this target gives the plan something to read for. */
function tested(t: ResolvedTarget): Set<string> {
  const n = t.api?.nft;
  if (!n || nftMissing(t)) return new Set();
  return new Set(partsOf(n).flatMap((p) => PART_RULES[p]));
}

export const NFT: FamilyContract<NftAnswers> = {
  family: 'nft',
  send: sendNft,
  judges: NFT_JUDGES,
  untestable: (rule, t) => {
    if (tested(t).has(rule)) return undefined;
    const missing = nftMissing(t);
    if (missing) return missing;
    if (['NFT-01', 'NFT-02', 'NFT-03', 'NFT-04'].includes(rule)) return 'target has no api.nft.eventIds';
    return 'target has neither api.nft.collectionId nor api.nft.eventIds';
  },
  hosts: (t) => {
    const access = dataAccess(t.api);
    return typeof access === 'string' || nftMissing(t) ? [] : [hostOf(access.base)];
  },
};
