// NFT-11, resources agree: an item of the rarity list, fetched from the asset endpoint by its
// contract_address and token_id, is that asset, with the same rarity entries, and its contract is
// among the collection's. Pure functions of the item and the answer: the spec fetches, this judges.
import { get } from './json.js';
import type { SampledItem } from './walk.js';

/** Whether two rarity arrays hold the same entries (model, score, rank), in any order. */
export function sameRarity(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) =>
    Array.isArray(v)
      ? v
          .map((r) => JSON.stringify([get(r, 'model'), get(r, 'score'), get(r, 'rank')]))
          .sort()
          .join('|')
      : 'none';
  return norm(a) === norm(b);
}

/** Why an item is cross-checked: a page edge, or the n-th of the seeded sample. */
export type CrossCheckReason = { edge: 'first' | 'last' } | { sample: number };

export interface CrossCheckItem {
  item: SampledItem;
  why: CrossCheckReason;
}

/**
 * Most pages whose edges NFT-11 reads: two reads a page would make a long walk (500 pages by
 * default) spend more than its own requests again, most of limits.maxRequests.
 */
export const EDGE_PAGES = 25;

/** `k` of `pages`, spread evenly over them, the first and last included. */
function spread<T>(pages: readonly T[], k: number): T[] {
  if (pages.length <= k) return [...pages];
  if (k <= 1) return pages.slice(0, k);
  return [...new Set(Array.from({ length: k }, (_, i) => pages[Math.round((i * (pages.length - 1)) / (k - 1))]!))];
}

/**
 * What NFT-11 reads, in order: the first and last item of every page (of at most `edgePages` pages
 * spread over the walk), then the seeded sample (walk order).
 */
export function crossCheckPlan(
  edges: readonly SampledItem[],
  sample: readonly SampledItem[],
  edgePages = EDGE_PAGES,
): CrossCheckItem[] {
  const pages = new Set(spread([...new Set(edges.map((e) => e.page))], edgePages));
  return [
    ...edges
      .filter((e) => pages.has(e.page))
      .map((item): CrossCheckItem => ({ item, why: { edge: item.index === 0 ? 'first' : 'last' } })),
    ...sample.map((item, k): CrossCheckItem => ({ item, why: { sample: k + 1 } })),
  ];
}

/** The check id part of a cross-checked item, stable from run to run: `p2-first`, `sample-3`. */
export function crossCheckSlot(item: SampledItem, why: CrossCheckReason): string {
  return 'edge' in why ? `p${item.page}-${why.edge}` : `sample-${why.sample}`;
}

/** The item in words, for messages: `the first item of page 2, 0xab…/17`. */
export function describeItem(item: SampledItem, why: CrossCheckReason): string {
  const where =
    'edge' in why
      ? `the ${why.edge} item of page ${item.page}`
      : `sampled item ${why.sample} (page ${item.page}, item ${item.index + 1})`;
  return `${where}, ${item.contract_address}/${item.token_id}`;
}

/** Addresses compare without letter case (a checksummed address is the same address). */
const sameAddress = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/**
 * What disagrees between a listed item and the asset the asset endpoint answered for it ([] when
 * all agree): other rarity entries, a contract the collection does not list. An answer that names
 * another asset is NFT-06's finding; here it only explains a rarity that differs.
 * `contracts`: the collection's contract addresses, undefined when they could not be read.
 */
export function agreementProblems(
  item: SampledItem,
  asset: unknown,
  contracts: readonly string[] | undefined,
): string[] {
  const problems: string[] = [];
  const rarity = get(asset, 'rarity');
  if (!sameRarity(item.rarity, rarity)) {
    const address = get(asset, 'contract_address');
    const token = get(asset, 'token_id');
    const other =
      sameAddress(address, item.contract_address) && token === item.token_id
        ? ''
        : ` (the asset endpoint answered ${String(address)}/${String(token)})`;
    problems.push(`rarity differs: list ${JSON.stringify(item.rarity)}, asset ${JSON.stringify(rarity)}${other}`);
  }
  if (contracts && !contracts.some((c) => sameAddress(c, item.contract_address)))
    problems.push(`contract ${item.contract_address} is not among the collection's contracts`);
  return problems;
}
