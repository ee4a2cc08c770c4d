// Records as the NFT endpoints render them. Faults and open-behaviour variants that change a
// record's shape live here, next to the shape they change.
import { apiFault } from '../faults/api.js';
import { apiVariant } from '../api/variants.js';
import type { ReferenceOptions } from '../options.js';
import { ULID_RE, ulidOfUuid, UUID_RE, uuidOf, uuidOfUlid } from './derive.js';
import { NFT_PROTOCOL, type Collection, type Dataset, type StoredEvent } from './dataset.js';

export type ViewEnv = Pick<ReferenceOptions, 'faults' | 'variants'>;

/** An event's id as the service spells it: a UUID, or a ULID under fault event-ids-ulid. */
export function publicEventId(storedId: string, env: Pick<ReferenceOptions, 'faults'>): string {
  return apiFault(env, 'event-ids-ulid') ? ulidOfUuid(storedId) : storedId;
}

/** The stored (UUID) id an event_id path parameter names; undefined when it is malformed for this service. */
export function storedEventId(param: string, env: Pick<ReferenceOptions, 'faults'>): string | undefined {
  if (apiFault(env, 'event-ids-ulid')) return ULID_RE.test(param) ? uuidOfUlid(param) : undefined;
  return UUID_RE.test(param) ? param : undefined;
}

export function eventView(e: StoredEvent, env: ViewEnv): Record<string, unknown> {
  // Default reading of the ambiguous payments rule: the indexing note (sales carry payments).
  const paidType = apiVariant(env, 'payments-on-transfer') ? 'transfer' : 'sale';
  const payments = e.event_type === paidType && !e.indexing ? [e.payment] : [];
  const view: Record<string, unknown> = {
    id: publicEventId(e.id, env),
    contract_address: e.contract_address,
    token_id: e.token_id,
    event_type: e.isMint && apiVariant(env, 'event-type-mint') ? 'mint' : e.event_type,
    timestamp: apiFault(env, 'event-timestamp-ms') ? `${e.timestamp}000` : e.timestamp,
    from: e.from,
    to: e.to,
    quantity: e.quantity,
    transaction: {
      ...e.transaction,
      block_number: apiFault(env, 'event-block-number-string')
        ? String(e.transaction.block_number)
        : e.transaction.block_number,
    },
    payments: payments.map((p) => ({ ...p, price: apiFault(env, 'payment-price-string') ? String(p.price) : p.price })),
  };
  if (apiVariant(env, 'extra-fields')) view.chain = NFT_PROTOCOL;
  return view;
}

export function collectionView(c: Collection, env: ViewEnv): Record<string, unknown> {
  const { symbol: _symbol, ...withoutSymbol } = c.contract;
  const view: Record<string, unknown> = {
    id: c.id,
    name: c.name,
    description: c.description,
    logo: c.logo,
    banner: c.banner,
    verified: apiFault(env, 'collection-verified-string') ? String(c.verified) : c.verified,
    contracts: [apiFault(env, 'contract-missing-symbol') ? withoutSymbol : { ...c.contract }],
    meta: { ...c.meta },
    sub_collection: [],
  };
  if (apiVariant(env, 'extra-fields')) view.slug = c.slug;
  return view;
}

export const tokenIdOf = (c: Collection, i: number): string => String(c.firstTokenId + i);
export const assetUuidOf = (ds: Dataset, c: Collection, i: number): string => uuidOf(ds.seed, `asset:${c.index}`, i);
const imageUrlOf = (c: Collection, i: number): string => `/media/nft/${c.slug}/${tokenIdOf(c, i)}.png`;
/** A global row sequence, as a database would number assets (what `asset-wrong-token` leaks). */
const rowIdOf = (c: Collection, i: number): string => String(7_000_001 + c.index * 10_000_000 + i);

function rarityOf(c: Collection, i: number, env: ViewEnv, onAssetEndpoint: boolean): Record<string, unknown>[] {
  const r = c.rarity();
  const rank = r.rankOf[i]!;
  // The faulty asset endpoint still runs an older model whose normalisation differs.
  const score =
    onAssetEndpoint && apiFault(env, 'asset-rarity-disagrees')
      ? Math.round(r.scores[i]! * 0.9 * 1e6) / 1e6
      : r.scores[i]!;
  return [{ model: 'open_rarity', score, rank: apiFault(env, 'rarity-rank-number') ? rank : String(rank) }];
}

export function assetView(c: Collection, i: number, env: ViewEnv): Record<string, unknown> {
  const tokenId = tokenIdOf(c, i);
  const traitCount = c.traits.length;
  const view: Record<string, unknown> = {
    token_id: apiFault(env, 'asset-wrong-token') ? rowIdOf(c, i) : tokenId,
    token_type: c.contract.type,
    media: { image_url: imageUrlOf(c, i), source: `ipfs://${c.mediaCid}/${tokenId}.png` },
    name: `${c.name} #${tokenId}`,
    mint_date: String((c.mintStartSec + i * 37) * (apiFault(env, 'asset-mint-date-ms') ? 1000 : 1)),
    token_uri: `ipfs://${c.metadataCid}/${tokenId}`,
    description: c.assetDescription,
    contract_address: c.contract.address,
    wallets: [],
    attributes: c.traits.map((t, k) => ({ trait_type: t.name, value: t.values[c.traitValues[i * traitCount + k]!]! })),
    burned: (Math.imul(i, 2654435761) >>> 0) % 97 === 13,
    rarity: rarityOf(c, i, env, true),
  };
  if (apiVariant(env, 'extra-fields')) view.collection_id = c.id;
  return view;
}

export function listItemView(ds: Dataset, c: Collection, i: number, env: ViewEnv): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: assetUuidOf(ds, c, i),
    token_id: tokenIdOf(c, i),
    image_url: imageUrlOf(c, i),
    name: `${c.name} #${tokenIdOf(c, i)}`,
    contract_address: c.contract.address,
    rarity: rarityOf(c, i, env, false),
  };
  if (apiFault(env, 'rarity-item-missing-image')) delete item.image_url;
  return item;
}
