// The service's paths, from the endpoint tables of the description, and the credential a
// data-reading check uses. Every spec builds its URLs here; none spells a path itself.
import type { ResolvedApi, ResolvedNft, ResolvedTarget } from '../src/target-file/types.js';
import type { Credential } from './api.js';

const seg = encodeURIComponent;

export const PATHS = {
  blockNumber: (protocol: string, network: string) =>
    `/universal/v1/${seg(protocol)}/${seg(network)}/sync/block_number`,
  native: (protocol: string, network: string) => `/${seg(protocol)}/${seg(network)}/native`,
  event: (n: ResolvedNft, id: string) => `/nft/v1/${seg(n.protocol)}/${seg(n.network)}/event/${seg(id)}`,
  collection: (n: ResolvedNft, id: string) => `/nft/v1/${seg(n.protocol)}/${seg(n.network)}/collection/${seg(id)}`,
  asset: (n: ResolvedNft, contract: string, tokenId: string) =>
    `/nft/v1/${seg(n.protocol)}/${seg(n.network)}/asset?contract_address=${seg(contract)}&token_id=${seg(tokenId)}`,
  rarity: (n: ResolvedNft, collectionId: string) =>
    `/nft/v1/${seg(n.protocol)}/${seg(n.network)}/assets/rarity/${seg(collectionId)}?sort_by=rarity_rank`,
  blockByHeight: (height: number | string) => `/v1/blocks/by_height/${seg(String(height))}`,
  appRestNodeInfo: '/app_rest/node_info',
  consensusRpc: '/consensus_rpc',
  consensusRestStatus: '/consensus_rest/status',
  feeStats: '/fee_stats',
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
