// Faults of the API servers ({base_url} and {legacy_base_url}): each breaks exactly one rule of
// the catalogue the way a real deployment might, switched on by `--fault <name>`.
import type { ReferenceOptions } from '../options.js';
import type { FaultDef } from './types.js';

const DEFS = [
  // Authentication
  {
    name: 'bearer-rejected-on-base',
    rule: 'AUTH-01',
    family: 'auth',
    description: '{base_url} ignores `Authorization: Bearer` (only X-API-Key gets through)',
  },
  {
    name: 'xapikey-rejected',
    rule: 'AUTH-02',
    family: 'auth',
    description: '{base_url} ignores the X-API-Key header (only Bearer gets through)',
  },
  {
    name: 'xapikey-case-sensitive',
    rule: 'AUTH-03',
    family: 'auth',
    description: 'the X-API-Key header is only recognised when spelt exactly `X-API-Key`',
  },
  {
    name: 'legacy-query-rejected',
    rule: 'AUTH-04',
    family: 'auth',
    description:
      '{legacy_base_url} ignores the apiKey query parameter except on the block-number route, which reads it itself',
  },
  {
    name: 'legacy-bearer-rejected',
    rule: 'AUTH-05',
    family: 'auth',
    description: '{legacy_base_url} ignores `Authorization: Bearer`',
  },
  {
    name: 'apikey-query-first-param-only',
    rule: 'AUTH-06',
    family: 'auth',
    description: 'apiKey is only found when it is the first query parameter (`?apiKey=`), so `&apiKey=` is refused',
  },
  {
    name: 'no-auth-serves-data',
    rule: 'AUTH-07',
    family: 'auth',
    description: 'a request with no credentials at all is served on {base_url}',
  },
  {
    name: 'legacy-empty-apikey-accepted',
    rule: 'AUTH-07',
    family: 'auth',
    description: '{legacy_base_url} takes an empty `apiKey=` as "no auth configured" and serves data',
  },
  {
    name: 'key-prefix-compare',
    rule: 'AUTH-08',
    family: 'auth',
    description:
      'API keys are compared on their first 12 characters only (a key that differs after the 12th is accepted)',
  },
  {
    name: 'key-unanchored-match',
    rule: 'AUTH-08',
    family: 'auth',
    description:
      'API keys are matched by a pattern without its end anchor: the real key followed by anything is accepted',
  },
  {
    name: 'base-apikey-query-any-value',
    rule: 'AUTH-08',
    family: 'auth',
    description:
      '{base_url} serves any value in the undocumented apiKey query parameter (only its presence is checked)',
  },
  {
    name: 'unknown-key-accepted',
    rule: 'AUTH-08',
    family: 'auth',
    description: 'any non-empty key is accepted (only its presence is checked)',
  },
  {
    name: 'block-number-query-key-ignored',
    rule: 'AUTH-12',
    family: 'auth',
    description: 'the universal block-number route does not read the apiKey query parameter',
  },
  // Universal REST
  {
    name: 'block-number-negative',
    rule: 'UNI-01',
    family: 'universal',
    description: 'the block-number endpoint reports -1 (a "not synced" sentinel) instead of the head',
  },
  {
    name: 'universal-lags-native',
    rule: 'UNI-02',
    family: 'universal',
    description: 'the block-number endpoint serves a stale cache 40 blocks behind the native head',
  },
  {
    name: 'universal-goes-backwards',
    rule: 'UNI-02',
    family: 'universal',
    description: 'the block-number endpoint alternates between two replicas, one 25 blocks behind',
  },
  {
    name: 'legacy-stale-block-number',
    rule: 'UNI-02',
    family: 'universal',
    description:
      '{legacy_base_url} serves the block number from a stale cache 40 blocks behind the native head ({base_url} is current)',
  },
  // Native JSON-RPC
  {
    name: 'rpc-wrong-jsonrpc-version',
    rule: 'RPC-01',
    family: 'native',
    description: 'successful JSON-RPC responses carry `jsonrpc: "1.0"`',
  },
  {
    name: 'hex-leading-zero',
    rule: 'RPC-02',
    family: 'native',
    description: 'the block-number method returns a 64-bit zero-padded hex quantity (`0x0000000001257e07`)',
  },
  {
    name: 'network-sepolia-down',
    rule: 'RPC-03',
    family: 'native',
    description: 'the sepolia native endpoint answers 503',
  },
  {
    name: 'rpc-id-as-number',
    rule: 'RPC-04',
    family: 'native',
    description: 'string ids are echoed converted to numbers (non-numeric ones become null)',
  },
  {
    name: 'rpc-id-int32',
    rule: 'RPC-04',
    family: 'native',
    description: 'numeric ids are echoed truncated to 32-bit integers (2^53-1 comes back as -1)',
  },
  {
    name: 'unknown-method-returns-result',
    rule: 'RPC-05',
    family: 'native',
    description: 'an unknown method gets `result: null` and no error',
  },
  {
    name: 'parse-error-with-id',
    rule: 'RPC-06',
    family: 'native',
    description: 'the -32700 parse error carries `id: 0` instead of null',
  },
  {
    name: 'missing-method-wrong-code',
    rule: 'RPC-07',
    family: 'native',
    description: 'a request without `method` gets -32601 (method not found) instead of -32600',
  },
  {
    name: 'notification-answered',
    rule: 'RPC-09',
    family: 'native',
    description: 'notifications are answered like calls, with a Response object carrying `id: null`',
  },
  {
    name: 'batch-notification-answered',
    rule: 'RPC-09',
    family: 'native',
    description:
      'a notification inside a batch is answered like a call, with a Response object carrying `id: null` (a notification alone gets nothing)',
  },
  {
    name: 'empty-batch-array',
    rule: 'RPC-10',
    family: 'native',
    description: 'an empty batch `[]` is answered `[]` instead of a single -32600 error',
  },
  {
    name: 'batch-invalid-element-no-id',
    rule: 'RPC-11',
    family: 'native',
    description: 'the -32600 errors for batch elements that are not Request objects carry no `id` member',
  },
  {
    name: 'error-code-string',
    rule: 'RPC-12',
    family: 'native',
    description: 'error objects carry their code as a decimal string (`"-32601"`)',
  },
  // NFT data API
  {
    name: 'event-ids-ulid',
    rule: 'NFT-01',
    family: 'nft',
    description: 'event ids are ULIDs (26 Crockford base32 characters), in answers, lookups and the target file',
  },
  {
    name: 'event-block-number-string',
    rule: 'NFT-01',
    family: 'nft',
    description: "the event's `transaction.block_number` is a string of digits",
  },
  {
    name: 'event-timestamp-ms',
    rule: 'NFT-01',
    family: 'nft',
    description: "the event's `timestamp` is Unix time in milliseconds (13 digits), still a string of digits",
  },
  {
    name: 'event-wrong-id',
    rule: 'NFT-02',
    family: 'nft',
    description: 'the event lookup is off by one: a valid event, but the neighbour of the one asked for',
  },
  {
    name: 'payment-price-string',
    rule: 'NFT-04',
    family: 'nft',
    description: 'payment `price` is a decimal string ("0.85") instead of a number',
  },
  {
    name: 'collection-verified-string',
    rule: 'NFT-05',
    family: 'nft',
    description: 'collection `verified` is the string "true"/"false"',
  },
  {
    name: 'asset-wrong-token',
    rule: 'NFT-06',
    family: 'nft',
    description: 'the asset answer carries the internal row number as `token_id`, not the on-chain token id',
  },
  {
    name: 'asset-mint-date-ms',
    rule: 'NFT-06',
    family: 'nft',
    description: "the asset's `mint_date` is Unix time in milliseconds (13 digits), still a string of digits",
  },
  {
    name: 'rarity-rank-number',
    rule: 'NFT-07',
    family: 'nft',
    description: 'rarity `rank` is a JSON number, in the list and on the asset',
  },
  {
    name: 'rarity-item-missing-image',
    rule: 'NFT-08',
    family: 'nft',
    description: 'rarity-list items lack `image_url`',
  },
  {
    name: 'rarity-order-broken',
    rule: 'NFT-09',
    family: 'nft',
    description: 'each rarity page is re-sorted by token id (pages still hold the right rank ranges)',
  },
  {
    name: 'page-boundary-duplicate',
    rule: 'NFT-10',
    family: 'nft',
    description: 'each next page starts with the last item of the previous page (offset off by one)',
  },
  {
    name: 'page-skips-asset',
    rule: 'NFT-10',
    family: 'nft',
    description: 'each next page skips one item after the page boundary (offset off by one the other way)',
  },
  {
    name: 'page-token-never-ends',
    rule: 'NFT-10',
    family: 'nft',
    description: 'the last page carries a token that leads to the last page again',
  },
  {
    name: 'asset-lookup-by-token-id',
    rule: 'NFT-11',
    family: 'nft',
    description:
      'the asset endpoint finds assets in a cache keyed by token id alone: where two contracts share a token id, it answers the asset of the other contract',
  },
  {
    name: 'asset-rarity-disagrees',
    rule: 'NFT-11',
    family: 'nft',
    description: "the asset endpoint computes rarity with an older model version: its scores differ from the list's",
  },
  {
    name: 'unknown-event-returns-data',
    rule: 'NFT-12',
    family: 'nft',
    description: 'an unknown (well-formed) event id answers 200 with the most recent event',
  },
  {
    name: 'contract-missing-symbol',
    rule: 'RES-01',
    family: 'nft',
    description: 'contract objects of a collection lack the documented `symbol` field',
  },
] as const satisfies readonly FaultDef[];

export type ApiFaultName = (typeof DEFS)[number]['name'];

export const API_FAULTS: FaultDef[] = DEFS.map((d) => ({ ...d }));

/** Is this API fault switched on? (Typed, so a misspelt name does not compile.) */
export function apiFault(opts: Pick<ReferenceOptions, 'faults'>, name: ApiFaultName): boolean {
  return opts.faults.has(name);
}
