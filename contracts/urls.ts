// The service's paths, filled in from the endpoint table (src/service/endpoints.ts), and the
// credential a data-reading check uses. Every spec builds its URLs here; none spells a path itself.
import { ENDPOINTS, fillPath } from '../src/service/endpoints.js';
import type { ResolvedApi, ResolvedNft, ResolvedTarget } from '../src/target-file/types.js';
import type { Credential } from './api.js';

const seg = encodeURIComponent;
const E = ENDPOINTS;
const chain = (n: ResolvedNft) => ({ protocol: n.protocol, network: n.network });

export const PATHS = {
  blockNumber: (protocol: string, network: string) => fillPath(E.blockNumber.path, { protocol, network }),
  native: (protocol: string, network: string) => fillPath(E.native.path, { protocol, network }),
  event: (n: ResolvedNft, id: string) => fillPath(E.event.path, { ...chain(n), event_id: id }),
  collection: (n: ResolvedNft, id: string) => fillPath(E.collection.path, { ...chain(n), collection_id: id }),
  asset: (n: ResolvedNft, contract: string, tokenId: string) =>
    `${fillPath(E.asset.path, chain(n))}?contract_address=${seg(contract)}&token_id=${seg(tokenId)}`,
  rarity: (n: ResolvedNft, collectionId: string) =>
    `${fillPath(E.rarity.path, { ...chain(n), collection_id: collectionId })}?sort_by=rarity_rank`,
  blockByHeight: (height: number | string) => fillPath(E.blockByHeight.path, { height }),
  appRestNodeInfo: E.appRestNodeInfo.path,
  consensusRpc: E.consensusRpc.path,
  consensusRestStatus: E.consensusRestStatus.path,
  feeStats: E.feeStats.path,
} as const;

export const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

/** Where data-reading checks send their requests, and with which credential. */
export interface DataAccess {
  base: string;
  auth: Credential;
  /** e.g. `new key, Bearer, base URL`. */
  label: string;
}

/**
 * The documented way in for reading data: a new key as Bearer on {base_url}, else a legacy key in
 * the apiKey query on {legacy_base_url}. Undefined (with the reason) when the target has neither.
 */
export function dataAccess(api: ResolvedApi | undefined): DataAccess | string {
  if (!api) return 'target has no api section';
  if (api.baseUrl && api.apiKey)
    return {
      base: api.baseUrl,
      auth: { form: 'bearer', secret: api.apiKey },
      label: 'new key as Bearer on the base URL',
    };
  if (api.legacyBaseUrl && api.legacyApiKey)
    return {
      base: api.legacyBaseUrl,
      auth: { form: 'apikey-query', secret: api.legacyApiKey },
      label: 'legacy key in the apiKey query on the legacy base URL',
    };
  return 'target has neither api.baseUrl with api.apiKey nor api.legacyBaseUrl with api.legacyApiKey';
}

/** Reason the NFT checks cannot run, or undefined. */
export function nftMissing(t: ResolvedTarget): string | undefined {
  const access = dataAccess(t.api);
  if (typeof access === 'string') return access;
  if (!t.api?.nft) return 'target has no api.nft section';
  return undefined;
}

/** One base a data rule reads an endpoint on, with that base's own key generation. */
export interface BaseAccess extends DataAccess {
  /** Which base: {base_url} or {legacy_base_url}. */
  kind: 'base' | 'legacy';
  /** The base as a check names it: `base URL`, `legacy base URL`. */
  name: string;
}

/**
 * Every base that serves an endpoint of both bases (the universal block number) in this run, for
 * the data rules that judge it on each: {base_url} with the new key as Bearer, then
 * {legacy_base_url} with the legacy key in the apiKey query, each only where the target has the
 * base and its key. Empty when it has neither (dataAccess says why).
 */
export function dataBases(api: ResolvedApi | undefined): BaseAccess[] {
  const out: BaseAccess[] = [];
  if (api?.baseUrl && api.apiKey)
    out.push({
      kind: 'base',
      name: 'base URL',
      base: api.baseUrl,
      auth: { form: 'bearer', secret: api.apiKey },
      label: 'new key as Bearer on the base URL',
    });
  if (api?.legacyBaseUrl && api.legacyApiKey)
    out.push({
      kind: 'legacy',
      name: 'legacy base URL',
      base: api.legacyBaseUrl,
      auth: { form: 'apikey-query', secret: api.legacyApiKey },
      label: 'legacy key in the apiKey query on the legacy base URL',
    });
  return out;
}
