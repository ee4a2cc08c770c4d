// NFT data API routes: event, collection, asset, rarity list. Malformed ids get 400 (the
// `malformed-id-404` variant: 404); well-formed unknown ones get 404.
import { apiFault } from '../faults/api.js';
import { apiVariant } from '../api/variants.js';
import type { ApiContext, Route } from '../api/context.js';
import { UUID_RE } from './derive.js';
import { assetIndexOf, NFT_NETWORK, NFT_PROTOCOL, type Collection, type Dataset } from './dataset.js';
import { decodePageToken, encodePageToken, pageSizeOf, rarityPage } from './paging.js';
import { assetView, collectionView, eventView, listItemView, storedEventId } from './views.js';

export const PAGE_TOKEN_PARAM = 'page_token';
export const PAGE_SIZE_PARAM = 'limit';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** Answers 404 for a protocol/network without NFT data; true when the route may go on. */
async function servesNft(ctx: ApiContext): Promise<boolean> {
  const { protocol, network } = ctx.params;
  if (protocol === NFT_PROTOCOL && network === NFT_NETWORK) return true;
  await ctx.reply.error(404, 'unknown_network', `no NFT data for ${protocol}/${network}`);
  return false;
}

function malformed(ctx: ApiContext, what: string): Promise<void> {
  return apiVariant(ctx.opts, 'malformed-id-404')
    ? ctx.reply.error(404, 'not_found', `${what} not found`)
    : ctx.reply.error(400, 'invalid_id', `${what} must be a UUID`);
}

async function event(ctx: ApiContext): Promise<void> {
  if (!(await servesNft(ctx))) return;
  const id = storedEventId(ctx.params.event_id!, ctx.opts);
  if (id === undefined) return malformed(ctx, 'event_id');
  const { events } = ctx.dataset;
  let i = ctx.dataset.eventIndex(id);
  if (i === undefined) {
    if (!apiFault(ctx.opts, 'unknown-event-returns-data')) return ctx.reply.error(404, 'not_found', 'event not found');
    i = events.length - 1;
  } else if (apiFault(ctx.opts, 'event-wrong-id')) {
    i = (i + 1) % events.length;
  }
  return ctx.reply.json(200, { data: eventView(events[i]!, ctx.opts) });
}

async function collection(ctx: ApiContext): Promise<void> {
  if (!(await servesNft(ctx))) return;
  const id = ctx.params.collection_id!;
  if (!UUID_RE.test(id)) return malformed(ctx, 'collection_id');
  const c = ctx.dataset.collectionById(id);
  if (!c) return ctx.reply.error(404, 'not_found', 'collection not found');
  return ctx.reply.json(200, { collection: collectionView(c, ctx.opts) });
}

/** Fault asset-lookup-by-token-id: one cache over every collection, keyed by token id, the last collection winning. */
const byTokenId = new WeakMap<Dataset, Map<string, [Collection, number]>>();
function tokenIdIndex(ds: Dataset): Map<string, [Collection, number]> {
  let index = byTokenId.get(ds);
  if (!index) {
    index = new Map();
    for (const c of ds.collections) for (let i = 0; i < c.size; i++) index.set(String(c.firstTokenId + i), [c, i]);
    byTokenId.set(ds, index);
  }
  return index;
}

async function asset(ctx: ApiContext): Promise<void> {
  if (!(await servesNft(ctx))) return;
  const address = ctx.query.get('contract_address');
  const tokenId = ctx.query.get('token_id');
  if (!address || !tokenId)
    return ctx.reply.error(400, 'missing_parameter', 'contract_address and token_id are both required');
  if (!ADDRESS_RE.test(address))
    return ctx.reply.error(400, 'invalid_parameter', 'contract_address must be a 0x-prefixed 20-byte hex address');
  if (!/^\d{1,78}$/.test(tokenId)) return ctx.reply.error(400, 'invalid_parameter', 'token_id must be decimal digits');
  let c = ctx.dataset.collectionByContract(address);
  let i = c ? assetIndexOf(c, tokenId) : undefined;
  if (c && i !== undefined && apiFault(ctx.opts, 'asset-lookup-by-token-id'))
    [c, i] = tokenIdIndex(ctx.dataset).get(tokenId) ?? [c, i];
  if (!c || i === undefined) return ctx.reply.error(404, 'not_found', 'asset not found');
  return ctx.reply.json(200, { asset: assetView(c, i, ctx.opts) });
}

async function rarityList(ctx: ApiContext): Promise<void> {
  if (!(await servesNft(ctx))) return;
  const id = ctx.params.collection_id!;
  if (!UUID_RE.test(id)) return malformed(ctx, 'collection_id');
  const sortBy = ctx.query.get('sort_by');
  if (sortBy !== null && sortBy !== 'rarity_rank')
    return ctx.reply.error(400, 'invalid_parameter', 'sort_by supports rarity_rank only');
  const limit = pageSizeOf(ctx.query.get(PAGE_SIZE_PARAM));
  if (limit === undefined)
    return ctx.reply.error(400, 'invalid_parameter', `${PAGE_SIZE_PARAM} must be a positive integer`);
  const c: Collection | undefined = ctx.dataset.collectionById(id);
  if (!c) return ctx.reply.error(404, 'not_found', 'collection not found');
  const token = ctx.query.get(PAGE_TOKEN_PARAM);
  const offset = token ? decodePageToken(ctx.dataset.seed, c.index, token) : 0;
  if (offset === undefined)
    return ctx.reply.error(400, 'invalid_page_token', `${PAGE_TOKEN_PARAM} is not valid for this collection`);
  const page = rarityPage(c, { offset, limit }, ctx.opts);
  const paging: Record<string, string> = {};
  if (page.nextOffset !== undefined)
    paging.next_page_token = encodePageToken(ctx.dataset.seed, c.index, page.nextOffset);
  else if (!apiVariant(ctx.opts, 'last-page-token-absent')) paging.next_page_token = '';
  const data = page.assets.map((i) => listItemView(ctx.dataset, c, i, ctx.opts));
  return ctx.reply.json(200, { data, meta: { paging } });
}

const NFT = '/nft/v1/:protocol/:network';

export const NFT_ROUTES: readonly Route[] = [
  { pattern: `${NFT}/event/:event_id`, methods: ['GET'], kind: 'nft', handle: event },
  { pattern: `${NFT}/collection/:collection_id`, methods: ['GET'], kind: 'nft', handle: collection },
  { pattern: `${NFT}/asset`, methods: ['GET'], kind: 'nft', handle: asset },
  { pattern: `${NFT}/assets/rarity/:collection_id`, methods: ['GET'], kind: 'nft', handle: rarityList },
];
