// Inputs the target file does not give but some checks need (an asset's contract and token id,
// the first rarity page to compare with), discovered once per worker and shared by its tests.
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { ApiClient } from './api.js';
import { CouldNotTest } from './checks.js';
import { dataAccess, PATHS } from './urls.js';
import { isObject } from './json.js';

export interface AssetRef {
  contract_address: string;
  token_id: string;
}

export interface RarityFirstPage {
  /** Item ids in the order served. */
  ids: string[];
  first?: AssetRef;
}

function assetRefOf(v: unknown): AssetRef | undefined {
  if (!isObject(v)) return undefined;
  const { contract_address, token_id } = v;
  return typeof contract_address === 'string' && contract_address && typeof token_id === 'string' && token_id
    ? { contract_address, token_id }
    : undefined;
}

export class Samples {
  private firstPage?: Promise<RarityFirstPage>;
  private assetRef?: Promise<AssetRef>;

  constructor(private readonly target: ResolvedTarget) {}

  /** The first page of the collection's rarity list, read the documented way. */
  rarityFirstPage(api: ApiClient): Promise<RarityFirstPage> {
    return (this.firstPage ??= this.fetchFirstPage(api));
  }

  /** An asset to ask the asset endpoint for: the first rarity item, else the first event's token. */
  asset(api: ApiClient): Promise<AssetRef> {
    return (this.assetRef ??= this.findAsset(api));
  }

  private async fetchFirstPage(api: ApiClient): Promise<RarityFirstPage> {
    const access = dataAccess(this.target.api);
    const nft = this.target.api?.nft;
    if (typeof access === 'string' || !nft?.collectionId)
      throw new CouldNotTest(typeof access === 'string' ? access : 'target has no api.nft.collectionId');
    const r = await api.call({
      purpose: 'sample.rarity-first-page',
      method: 'GET',
      url: access.base + PATHS.rarity(nft, nft.collectionId),
      auth: access.auth,
    });
    const data = isObject(r.json) ? r.json.data : undefined;
    if (!r.ok || !Array.isArray(data))
      throw new CouldNotTest(`the rarity list answered ${r.status} without a data array`, [r.exchange]);
    return {
      ids: data.map((item) => (isObject(item) && typeof item.id === 'string' ? item.id : '')),
      first: data.map(assetRefOf).find((a) => a !== undefined),
    };
  }

  private async findAsset(api: ApiClient): Promise<AssetRef> {
    const nft = this.target.api?.nft;
    let listProblem = 'target has no api.nft.collectionId';
    if (nft?.collectionId) {
      try {
        const page = await this.rarityFirstPage(api);
        if (page.first) return page.first;
        listProblem = 'the first rarity page has no item with contract_address and token_id';
      } catch (e) {
        if (!(e instanceof CouldNotTest)) throw e;
        listProblem = e.message;
      }
    }
    const access = dataAccess(this.target.api);
    const eventId = nft?.eventIds[0];
    if (typeof access === 'string' || !nft || !eventId)
      throw new CouldNotTest(`no asset to ask for: ${listProblem}, and the target has no api.nft.eventIds`);
    const r = await api.call({
      purpose: 'sample.asset-from-event',
      method: 'GET',
      url: access.base + PATHS.event(nft, eventId),
      auth: access.auth,
    });
    const ref = assetRefOf(isObject(r.json) ? r.json.data : undefined);
    if (!r.ok || !ref)
      throw new CouldNotTest(
        `no asset to ask for: ${listProblem}; the event answered ${r.status} without contract_address and token_id`,
        [r.exchange],
      );
    return ref;
  }
}
