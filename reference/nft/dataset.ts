// The seeded NFT dataset. Collections hold their assets compactly (one byte per trait per
// asset); an asset record is built only when a request asks for it, and rarity is computed on
// first use, so a 100,000-asset collection costs nothing until a scale test touches it.
// Same seed, same dataset: ids, addresses, traits, ranks and events.
import { startHeightOf, CHAIN_EPOCH_MS, DEFAULT_BLOCK_TIME_MS } from '../chain.js';
import { addressOf, cidOf, hash256Of, hash32, strHash, unit, uuidOf, weightedPick } from './derive.js';
import { computeRarity, type Rarity } from './rarity.js';

export const NFT_PROTOCOL = 'chain-a';
export const NFT_NETWORK = 'mainnet';

export interface TraitType {
  name: string;
  values: readonly string[];
  /** Relative weights: earlier values are common, later ones rare. */
  weights: readonly number[];
}

export interface Contract {
  address: string;
  name: string;
  symbol: string;
  description: string;
  image_url: string;
  type: 'ERC721';
}

export interface Collection {
  /** Position in the dataset; namespaces derived values and page tokens. */
  index: number;
  id: string;
  slug: string;
  name: string;
  description: string;
  logo: string;
  banner: string;
  verified: boolean;
  meta: { discord_url: string; external_url: string; twitter_username: string };
  contract: Contract;
  size: number;
  firstTokenId: number;
  mintStartSec: number;
  assetDescription: string;
  mediaCid: string;
  metadataCid: string;
  traits: readonly TraitType[];
  /** traitValues[i * traits.length + t]: value index of trait t for asset index i. */
  traitValues: Uint8Array;
  /** Computed on first use. */
  rarity(): Rarity;
}

export interface Payment {
  from: string;
  to: string;
  price: number;
  currency: string;
}

/** An event as stored; which events carry payments is decided when it is rendered (NFT-04). */
export interface StoredEvent {
  id: string;
  contract_address: string;
  token_id: string;
  /** `transfer` includes mints (from the zero address); the `event-type-mint` variant names them. */
  event_type: 'sale' | 'transfer';
  timestamp: string;
  from: string;
  to: string;
  quantity: string;
  transaction: { block_hash: string; block_number: number; transaction_hash: string };
  /** The payment this event would carry once indexed (sale price, or the transfer's consideration). */
  payment: Payment;
  /** Payments still being indexed: rendered as an empty array whatever the reading. */
  indexing: boolean;
  isMint: boolean;
}

export interface Dataset {
  seed: number;
  collections: readonly Collection[];
  /** The collection of a few hundred assets the target file names. */
  main: Collection;
  big?: Collection;
  events: readonly StoredEvent[];
  collectionById(id: string): Collection | undefined;
  collectionByContract(address: string): Collection | undefined;
  eventIndex(id: string): number | undefined;
}

export const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

const weightsFor = (n: number): number[] => Array.from({ length: n }, (_, i) => Math.round(1000 / (i + 1) ** 1.3));
const trait = (name: string, values: string[]): TraitType => ({ name, values, weights: weightsFor(values.length) });

const CREATURE_TRAITS: readonly TraitType[] = [
  trait('Background', ['Slate', 'Sand', 'Teal', 'Rose', 'Ochre', 'Indigo', 'Mint', 'Gold']),
  trait('Fur', ['Brown', 'Grey', 'Cream', 'Black', 'Red', 'Silver', 'Zebra']),
  trait('Eyes', ['Calm', 'Sleepy', 'Wide', 'Wink', 'Squint', 'Laser', 'Starry', 'Closed', 'Hypnotic']),
  trait('Mouth', ['Neutral', 'Smile', 'Grin', 'Frown', 'Tongue', 'Pipe']),
  trait('Hat', ['None', 'Cap', 'Beanie', 'Bowler', 'Crown', 'Halo', 'Helmet', 'Fez', 'Top Hat', 'Laurel']),
  trait('Earring', ['None', 'Silver Hoop', 'Gold Stud', 'Diamond']),
];

const LANDSCAPE_TRAITS: readonly TraitType[] = [
  trait('Sky', ['Clear', 'Overcast', 'Dusk', 'Aurora', 'Eclipse']),
  trait('Terrain', ['Plains', 'Hills', 'Coast', 'Desert', 'Glacier', 'Volcano']),
  trait('Season', ['Summer', 'Autumn', 'Winter', 'Spring']),
  trait('Landmark', ['None', 'Lighthouse', 'Windmill', 'Ruin', 'Obelisk']),
];

const FIELD_TRAITS: readonly TraitType[] = [
  ...LANDSCAPE_TRAITS,
  trait('Weather', ['Calm', 'Breeze', 'Rain', 'Fog', 'Storm', 'Snow', 'Hail', 'Sandstorm', 'Thunder', 'Rainbow']),
  trait(
    'Palette',
    Array.from({ length: 16 }, (_, i) => `Palette ${i + 1}`),
  ),
  trait(
    'Frame',
    Array.from({ length: 12 }, (_, i) => `Frame ${String.fromCharCode(65 + i)}`),
  ),
  trait(
    'Signature',
    Array.from({ length: 20 }, (_, i) => `Artist ${i + 1}`),
  ),
];

interface CollectionSpec {
  slug: string;
  name: string;
  symbol: string;
  size: number;
  firstTokenId: number;
  verified: boolean;
  description: string;
  banner: boolean;
  assetDescription: string;
  traits: readonly TraitType[];
}

function collectionSpecs(bigSize: number): CollectionSpec[] {
  const specs: CollectionSpec[] = [
    {
      slug: 'lattice-lions',
      name: 'Lattice Lions',
      symbol: 'LION',
      size: 320,
      firstTokenId: 1,
      verified: true,
      description: 'Three hundred and twenty lions, drawn on a lattice.',
      banner: true,
      assetDescription: 'A lion of the lattice.',
      traits: CREATURE_TRAITS,
    },
    {
      slug: 'quiet-harbors',
      name: 'Quiet Harbors',
      symbol: 'HRBR',
      size: 48,
      firstTokenId: 0,
      verified: false,
      description: '',
      banner: false,
      assetDescription: '',
      traits: LANDSCAPE_TRAITS,
    },
    {
      slug: 'paper-comets',
      name: 'Paper Comets',
      symbol: 'COMET',
      size: 24,
      firstTokenId: 1000,
      verified: true,
      description: 'Folded comets, one per night.',
      banner: true,
      assetDescription: 'A paper comet.',
      traits: LANDSCAPE_TRAITS,
    },
  ];
  if (bigSize > 0) {
    specs.push({
      slug: 'vast-field',
      name: 'Vast Field',
      symbol: 'FIELD',
      size: bigSize,
      firstTokenId: 1,
      verified: false,
      description: 'A very large generative collection.',
      banner: false,
      assetDescription: '',
      traits: FIELD_TRAITS,
    });
  }
  return specs;
}

function buildCollection(seed: number, index: number, spec: CollectionSpec): Collection {
  const address = addressOf(seed, 'contract', index);
  const traitCount = spec.traits.length;
  const traitValues = new Uint8Array(spec.size * traitCount);
  const tag = hash32(seed, strHash(spec.slug));
  for (let i = 0; i < spec.size; i++) {
    for (let t = 0; t < traitCount; t++)
      traitValues[i * traitCount + t] = weightedPick(spec.traits[t]!.weights, unit(tag, i, t));
  }
  let rarity: Rarity | undefined;
  const col: Collection = {
    index,
    id: uuidOf(seed, 'collection', index),
    slug: spec.slug,
    name: spec.name,
    description: spec.description,
    logo: `/media/collections/${spec.slug}/logo.png`,
    banner: spec.banner ? `/media/collections/${spec.slug}/banner.png` : '',
    verified: spec.verified,
    meta: {
      discord_url: `https://discord.example.invalid/${spec.slug}`,
      external_url: `https://${spec.slug}.example.invalid`,
      twitter_username: spec.slug.replace(/-/g, '_'),
    },
    contract: {
      address,
      name: spec.name,
      symbol: spec.symbol,
      description: spec.description,
      image_url: spec.banner ? `/media/collections/${spec.slug}/contract.png` : '',
      type: 'ERC721',
    },
    size: spec.size,
    firstTokenId: spec.firstTokenId,
    mintStartSec: Math.floor(CHAIN_EPOCH_MS / 1000) - 400 * 86400 + index * 86400,
    assetDescription: spec.assetDescription,
    mediaCid: cidOf(seed, 'media', index),
    metadataCid: cidOf(seed, 'metadata', index),
    traits: spec.traits,
    traitValues,
    rarity: () =>
      (rarity ??= computeRarity(
        spec.size,
        traitValues,
        spec.traits.map((t) => t.values.length),
        (i) => spec.firstTokenId + i,
      )),
  };
  return col;
}

const EVENTS_PER_COLLECTION = [16, 4, 0, 0];
const CURRENCIES = ['ETH', 'ETH', 'ETH', 'WETH'];

/**
 * Events follow a fixed pattern so the first few cover every case: sale with payment, transfer,
 * sale still indexing (every fifth event from the third), mint transfer (every fourth from the
 * fourth: from the zero address).
 */
function buildEvents(seed: number, collections: readonly Collection[]): StoredEvent[] {
  const events: StoredEvent[] = [];
  const head = startHeightOf(seed, `${NFT_PROTOCOL}/${NFT_NETWORK}`);
  const epochSec = Math.floor(CHAIN_EPOCH_MS / 1000);
  const blockSec = DEFAULT_BLOCK_TIME_MS / 1000;
  collections.forEach((col, c) => {
    const n = EVENTS_PER_COLLECTION[c] ?? 0;
    for (let k = 0; k < n; k++) {
      const g = events.length;
      const isSale = k % 2 === 0;
      const isMint = !isSale && k % 4 === 3;
      const assetIndex = hash32(seed, c, k) % col.size;
      // Later k, later in time; all within the 30 days before the chain epoch.
      const blocksBefore = 216_000 - k * 9_000 - (hash32(seed, 13, g) % 5_000);
      const blockNumber = head - blocksBefore;
      const seller = isMint ? ZERO_ADDRESS : addressOf(seed, 'wallet', g * 2);
      const buyer = addressOf(seed, 'wallet', g * 2 + 1);
      events.push({
        id: uuidOf(seed, 'event', g),
        contract_address: col.contract.address,
        token_id: String(col.firstTokenId + assetIndex),
        event_type: isSale ? 'sale' : 'transfer',
        timestamp: String(epochSec - blocksBefore * blockSec),
        from: seller,
        to: buyer,
        quantity: '1',
        transaction: {
          block_hash: hash256Of(seed, 'block', blockNumber),
          block_number: blockNumber,
          transaction_hash: hash256Of(seed, 'tx', g),
        },
        payment: {
          from: buyer,
          to: seller,
          price: Math.round((0.05 + unit(seed, 7, g) * 3) * 1000) / 1000,
          currency: CURRENCIES[hash32(seed, 11, g) % CURRENCIES.length]!,
        },
        indexing: k % 5 === 2,
        isMint,
      });
    }
  });
  return events;
}

const cache = new Map<string, Dataset>();

/** The dataset for a seed (and big-collection size), built once per process. */
export function datasetOf(seed: number, bigCollectionSize = 0): Dataset {
  const key = `${seed}:${bigCollectionSize}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const collections = collectionSpecs(bigCollectionSize).map((spec, i) => buildCollection(seed, i, spec));
  const events = buildEvents(seed, collections);
  const byId = new Map(collections.map((c) => [c.id, c]));
  const byContract = new Map(collections.map((c) => [c.contract.address, c]));
  const eventIdx = new Map(events.map((e, i) => [e.id, i]));
  const ds: Dataset = {
    seed,
    collections,
    main: collections[0]!,
    big: bigCollectionSize > 0 ? collections[3] : undefined,
    events,
    collectionById: (id) => byId.get(id.toLowerCase()),
    collectionByContract: (address) => byContract.get(address.toLowerCase()),
    eventIndex: (id) => eventIdx.get(id.toLowerCase()),
  };
  cache.set(key, ds);
  return ds;
}

/** Asset index of a token id string (canonical decimal), or undefined if the collection has none. */
export function assetIndexOf(col: Collection, tokenId: string): number | undefined {
  if (!/^(0|[1-9]\d{0,14})$/.test(tokenId)) return undefined;
  const i = Number(tokenId) - col.firstTokenId;
  return i >= 0 && i < col.size ? i : undefined;
}
