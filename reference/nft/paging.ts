// The rarity list's paging: an opaque, base64 page token (JSON inside, as many real services
// do) that names the collection and the rank offset, with a check value so a tampered or
// foreign token is refused instead of silently serving the wrong page.
import { apiFault } from '../faults/api.js';
import type { ReferenceOptions } from '../options.js';
import { hash32 } from './derive.js';
import type { Collection } from './dataset.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

const checkOf = (seed: number, collection: number, offset: number): string =>
  hash32(seed, 0x9a6e, collection, offset).toString(36);

export function encodePageToken(seed: number, collection: number, offset: number): string {
  return Buffer.from(JSON.stringify({ v: 1, c: collection, o: offset, k: checkOf(seed, collection, offset) })).toString(
    'base64',
  );
}

/** The rank offset a token stands for, or undefined when it is not one this service issued for `collection`. */
export function decodePageToken(seed: number, collection: number, token: string): number | undefined {
  if (!/^[A-Za-z0-9+/_-]{1,400}={0,2}$/.test(token)) return undefined;
  try {
    const t: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (typeof t !== 'object' || t === null) return undefined;
    const { v, c, o, k } = t as Record<string, unknown>;
    if (v !== 1 || c !== collection || !Number.isSafeInteger(o) || (o as number) < 0) return undefined;
    return k === checkOf(seed, collection, o as number) ? (o as number) : undefined;
  } catch {
    return undefined;
  }
}

export interface PageParams {
  offset: number;
  limit: number;
}

/** Page size from the `limit` parameter: default 50, clamped to 200; anything not a positive integer is refused. */
export function pageSizeOf(raw: string | null): number | undefined {
  if (raw === null || raw === '') return DEFAULT_PAGE_SIZE;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) return undefined;
  return Math.min(Number(raw), MAX_PAGE_SIZE);
}

export interface RarityPage {
  /** Asset indexes, in the order served. */
  assets: number[];
  /** Rank offset of the next page; undefined on the last page. */
  nextOffset: number | undefined;
}

export function rarityPage(
  c: Collection,
  { offset, limit }: PageParams,
  opts: Pick<ReferenceOptions, 'faults'>,
): RarityPage {
  const { byRank } = c.rarity();
  const end = Math.min(offset + limit, c.size);
  const assets = Array.from(byRank.subarray(Math.min(offset, c.size), end));
  if (apiFault(opts, 'rarity-order-broken')) assets.sort((a, b) => a - b);
  let nextOffset: number | undefined = end < c.size ? end : undefined;
  if (nextOffset !== undefined && apiFault(opts, 'page-boundary-duplicate') && limit > 1) nextOffset = end - 1;
  if (nextOffset !== undefined && apiFault(opts, 'page-skips-asset'))
    nextOffset = end + 1 < c.size ? end + 1 : undefined;
  if (nextOffset === undefined && apiFault(opts, 'page-token-never-ends')) nextOffset = offset;
  return { assets, nextOffset };
}
