// Open behaviours of the API servers: where the description is silent, the reference makes a
// default choice, and each variant switches to another choice that breaks no rule. Tests use
// them to show that observations (and baselines of observations) notice a change.
import type { ReferenceOptions } from '../options.js';

export interface ApiVariant {
  name: string;
  /** The observe rule (or open part of a must rule) whose observation changes. */
  rule: string;
  description: string;
}

const DEFS = [
  {
    name: 'missing-credentials-403',
    rule: 'AUTH-07',
    description: 'missing credentials get 403 instead of the default 401',
  },
  {
    name: 'new-key-query-refused',
    rule: 'AUTH-09',
    description:
      'a new key in the apiKey query on {base_url} is refused (default: accepted, as the NFT tutorials show)',
  },
  {
    name: 'cross-generation-accepted',
    rule: 'AUTH-10',
    description: 'a new key works on {legacy_base_url} and a legacy key on {base_url} (default: refused with 403)',
  },
  {
    name: 'legacy-xapikey-accepted',
    rule: 'AUTH-11',
    description: 'X-API-Key with a legacy key works on {legacy_base_url} (default: refused with 403)',
  },
  {
    name: 'batches-not-served',
    rule: 'RPC-08',
    description:
      'batches are not served: a non-empty array gets one -32600 error object (default: one answer per request)',
  },
  {
    name: 'batch-limit-5',
    rule: 'RPC-08',
    description: 'a batch of more than 5 requests gets one -32600 error object (default: up to 100 are served)',
  },
  {
    name: 'notification-200-empty',
    rule: 'RPC-09',
    description: 'a notification (or a batch of only notifications) gets 200 with an empty body (default: 204)',
  },
  {
    name: 'payments-on-transfer',
    rule: 'NFT-04',
    description:
      'payments are filled on transfer events, the tutorial reading (default: on sale events, the indexing note)',
  },
  {
    name: 'event-type-mint',
    rule: 'NFT-03',
    description: 'the first transfer of each token is reported with event_type "mint"',
  },
  {
    name: 'malformed-id-404',
    rule: 'NFT-13',
    description: 'a malformed (non-UUID) id gets 404 like an unknown one (default: 400)',
  },
  {
    name: 'last-page-token-absent',
    rule: 'NFT-08',
    description: 'the last rarity page omits next_page_token (default: an empty string)',
  },
  {
    name: 'extra-fields',
    rule: 'RES-02',
    description: 'records carry undocumented fields (event chain, collection slug, asset collection_id)',
  },
  {
    name: 'error-body-flat',
    rule: 'ERR-01',
    description: 'error bodies are `{code, message}` (default: `{error: {code, message}}`)',
  },
] as const satisfies readonly ApiVariant[];

export type ApiVariantName = (typeof DEFS)[number]['name'];

export const API_VARIANTS: readonly ApiVariant[] = DEFS;

export function apiVariant(opts: Pick<ReferenceOptions, 'variants'>, name: ApiVariantName): boolean {
  return opts.variants.has(name);
}
