// The NFT family's plan (NFT-01..13, RES-01, RES-02): the events, the collection, the full rarity-list
// walk and NFT-11's cross-check of its items, an asset, unknown and malformed ids. It sends only what
// a selected rule reads and keeps what each request got, or why it could not be made (budget, time-out,
// network): those causes are answers too. It judges nothing (contracts/nft-judge.ts does). A walk's
// pages go one after another, each asking for the page the last one named; everything else is
// independent and goes at once (the ApiClient bounds what is in flight per host), NFT-11's asset
// reads at most CROSS_CHECK_CONCURRENCY at a time.
import { randomUUID } from 'node:crypto';
import { withQueryParam } from '../src/auth/forms.js';
import type { ResolvedNft } from '../src/target-file/types.js';
import { crossCheckPlan, crossCheckSlot, type CrossCheckItem } from './agreement.js';
import type { ApiClient, CallResult } from './api.js';
import { lostOf, type Lost } from './checks.js';
import { CROSS_CHECK_CONCURRENCY, settleAll, valueOf } from './in-flight.js';
import type { PlanEnv, Senders } from './plan.js';
import { RarityPages } from './rarity-walk.js';
import type { AssetRef, Samples } from './samples.js';
import { dataAccess, PATHS, type DataAccess } from './urls.js';

/** What one read got: the answer, or why there was none. */
export type Read = { res: CallResult } | { lost: Lost };

/** One of api.nft.eventIds, read. */
export interface EventRead {
  eventId: string;
  read: Read;
}

/** NFT-11's reads: the items it compares, the collection's contracts, each item's asset. */
export interface CrossCheckAnswers {
  /** The page edges and the seeded sample, in the order they are judged (contracts/agreement.ts). */
  items: CrossCheckItem[];
  /** The collection read for its contracts; absent when there was no item to compare. */
  collection?: Read;
  /** Each item's asset read, in `items` order. */
  assets: Read[];
}

/** The rarity-list walk: what its pages showed (kept as RarityPages keeps them), then NFT-11's reads. */
export interface RarityAnswers {
  collectionId: string;
  /** The page-token parameter the walk followed (api.nft.pageTokenParam). */
  pageTokenParam: string;
  pages: RarityPages;
  /** Absent when NFT-11 is not selected or the walk got no page. */
  crossCheck?: CrossCheckAnswers;
}

/** The asset asked for (found through Samples) and its answer, or why there is none. */
export type AssetAnswers = { ref: AssetRef; res: CallResult } | { lost: Lost };

/** NFT-12: an unknown event id, an unknown collection id, an unknown token of a known contract. */
export interface UnknownAnswers {
  event: Read;
  collection: Read;
  token: Read;
}

/** NFT-13: a malformed (non-UUID) event id and collection id. */
export interface MalformedAnswers {
  event: Read;
  collection: Read;
}

/** What the NFT plan got; a part is absent when no selected rule reads it or the target gives it nothing to read. */
export interface NftAnswers {
  /** Every one of api.nft.eventIds, in that order. */
  events?: EventRead[];
  collection?: { collectionId: string; read: Read };
  rarity?: RarityAnswers;
  asset?: AssetAnswers;
  unknown?: UnknownAnswers;
  malformed?: MalformedAnswers;
}

/** The rules each part of the plan is read by: a part is sent when one of them is selected. */
export const PART_RULES = {
  events: ['NFT-01', 'NFT-02', 'NFT-03', 'NFT-04', 'RES-01', 'RES-02'],
  collection: ['NFT-05', 'RES-01', 'RES-02'],
  rarity: ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'NFT-11', 'RES-01', 'RES-02'],
  asset: ['NFT-06', 'NFT-07', 'RES-01', 'RES-02'],
  unknown: ['NFT-12'],
  malformed: ['NFT-13'],
} as const;

export type NftPart = keyof typeof PART_RULES;

/** The parts this target gives the plan something to read for (its event ids, its collection). */
export function partsOf(n: ResolvedNft): NftPart[] {
  return [
    ...(n.eventIds.length ? (['events'] as const) : []),
    ...(n.collectionId ? (['collection', 'rarity'] as const) : []),
    ...(n.collectionId || n.eventIds.length ? (['asset', 'unknown'] as const) : []),
    'malformed',
  ];
}

/** Each read's purpose, and the id of the checks judged on it. */
export const NFT_IDS = {
  event: (eventId: string) => `nft.event[${eventId}]`,
  collection: (collectionId: string) => `nft.collection[${collectionId}]`,
  rarity: (collectionId: string) => `nft.rarity[${collectionId}]`,
  /** NFT-11's checks: `nft.agree[<collection>]`, its collection read `.collection`, an item `[p2-first]`. */
  agree: (collectionId: string) => `nft.agree[${collectionId}]`,
  agreeItem: (collectionId: string, { item, why }: CrossCheckItem) =>
    `nft.agree[${collectionId}][${crossCheckSlot(item, why)}]`,
  asset: 'nft.asset',
  unknown: { event: 'nft.unknown.event', collection: 'nft.unknown.collection', token: 'nft.unknown.token' },
  malformed: { event: 'nft.malformed.event', collection: 'nft.malformed.collection' },
} as const;

export const NO_DATA_CAUSE = 'an unknown id';
export const MALFORMED_CAUSE = 'a malformed id';

const readOf = (p: Promise<CallResult>): Promise<Read> =>
  p.then(
    (res) => ({ res }),
    (e: unknown) => ({ lost: lostOf(e) }),
  );

/** The NFT data API's reads, with the documented credential. */
class NftReads {
  constructor(
    readonly api: ApiClient,
    readonly a: DataAccess,
    readonly n: ResolvedNft,
  ) {}

  get(path: string, purpose: string, cause?: string): Promise<CallResult> {
    return this.api.call({ purpose, method: 'GET', url: this.a.base + path, auth: this.a.auth, cause });
  }

  read(path: string, purpose: string, cause?: string): Promise<Read> {
    return readOf(this.get(path, purpose, cause));
  }
}

const sendEvents = (r: NftReads): Promise<EventRead[]> =>
  Promise.all(
    r.n.eventIds.map(async (eventId) => ({
      eventId,
      read: await r.read(PATHS.event(r.n, eventId), NFT_IDS.event(eventId)),
    })),
  );

async function sendAsset(r: NftReads, samples: Samples): Promise<AssetAnswers> {
  try {
    const ref = await samples.asset(r.api);
    return { ref, res: await r.get(PATHS.asset(r.n, ref.contract_address, ref.token_id), NFT_IDS.asset) };
  } catch (e) {
    return { lost: lostOf(e) };
  }
}

async function sendUnknown(r: NftReads, samples: Samples): Promise<UnknownAnswers> {
  const { n } = r;
  const token = async (): Promise<Read> => {
    let ref: AssetRef;
    try {
      ref = await samples.asset(r.api);
    } catch (e) {
      return { lost: lostOf(e) };
    }
    // Far above any token id a collection mints, and different on every run.
    const tokenId = `9${String(Date.now())}${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
    return r.read(PATHS.asset(n, ref.contract_address, tokenId), NFT_IDS.unknown.token, NO_DATA_CAUSE);
  };
  const [event, collection, unknownToken] = await Promise.all([
    r.read(PATHS.event(n, randomUUID()), NFT_IDS.unknown.event, NO_DATA_CAUSE),
    r.read(PATHS.collection(n, randomUUID()), NFT_IDS.unknown.collection, NO_DATA_CAUSE),
    token(),
  ]);
  return { event, collection, token: unknownToken };
}

async function sendMalformed(r: NftReads): Promise<MalformedAnswers> {
  const malformed = 'not-a-uuid';
  const [event, collection] = await Promise.all([
    r.read(PATHS.event(r.n, malformed), NFT_IDS.malformed.event, MALFORMED_CAUSE),
    r.read(PATHS.collection(r.n, malformed), NFT_IDS.malformed.collection, MALFORMED_CAUSE),
  ]);
  return { event, collection };
}

/** The walk, page after page, then (NFT-11) the items it compares. */
async function sendRarity(
  r: NftReads,
  collectionId: string,
  seed: number,
  wants: PlanEnv['wants'],
): Promise<RarityAnswers> {
  const { a, n } = r;
  const base = a.base + PATHS.rarity(n, collectionId);
  const id = NFT_IDS.rarity(collectionId);
  const pages = new RarityPages(n.maxPages, wants('RES-02'), {
    sample: n.crossCheck,
    seed,
    edges: wants('NFT-11'),
  });
  try {
    while (pages.wantsMore()) {
      const token = pages.nextToken;
      const url = token === undefined ? base : withQueryParam(base, n.pageTokenParam, token);
      pages.add(await r.get(url.slice(a.base.length), `${id}#page${pages.walk.pages + 1}`));
    }
  } catch (e) {
    const lost = lostOf(e);
    pages.cutShort(lost.cause, lost.exchanges);
  }
  const answers: RarityAnswers = { collectionId, pageTokenParam: n.pageTokenParam, pages };
  if (pages.walk.pages > 0 && wants('NFT-11'))
    answers.crossCheck = await sendCrossCheck(
      r,
      collectionId,
      crossCheckPlan(pages.walk.edges, pages.walk.sampleInWalkOrder()),
    );
  return answers;
}

/** The collection's contracts and each item's asset: independent reads, a few in flight at once. */
async function sendCrossCheck(r: NftReads, collectionId: string, items: CrossCheckItem[]): Promise<CrossCheckAnswers> {
  if (items.length === 0) return { items, assets: [] };
  const { n } = r;
  const [collection, assets] = await Promise.all([
    r.read(PATHS.collection(n, collectionId), `${NFT_IDS.agree(collectionId)}.collection`),
    settleAll(
      items.map(
        (x) => () =>
          r.read(PATHS.asset(n, x.item.contract_address, x.item.token_id), NFT_IDS.agreeItem(collectionId, x)),
      ),
      CROSS_CHECK_CONCURRENCY,
    ),
  ]);
  return { items, collection, assets: assets.map(valueOf) };
}

/** What the NFT plan sends: each part a selected rule reads, all at once. */
export async function sendNft({ api, samples }: Senders, { target, seed, wants }: PlanEnv): Promise<NftAnswers> {
  const a = dataAccess(target.api);
  const n = target.api?.nft;
  if (!n || typeof a === 'string') return {};
  const r = new NftReads(api, a, n);
  const parts = new Set(partsOf(n).filter((p) => wants(...PART_RULES[p])));
  const collectionId = n.collectionId;
  const [events, collection, rarity, asset, unknown, malformed] = await Promise.all([
    parts.has('events') ? sendEvents(r) : undefined,
    parts.has('collection') && collectionId
      ? r
          .read(PATHS.collection(n, collectionId), NFT_IDS.collection(collectionId))
          .then((read) => ({ collectionId, read }))
      : undefined,
    parts.has('rarity') && collectionId ? sendRarity(r, collectionId, seed, wants) : undefined,
    parts.has('asset') ? sendAsset(r, samples) : undefined,
    parts.has('unknown') ? sendUnknown(r, samples) : undefined,
    parts.has('malformed') ? sendMalformed(r) : undefined,
  ]);
  return {
    ...(events && { events }),
    ...(collection && { collection }),
    ...(rarity && { rarity }),
    ...(asset && { asset }),
    ...(unknown && { unknown }),
    ...(malformed && { malformed }),
  };
}
