// The state of a rarity-list walk (NFT-09, NFT-10, NFT-11), fed one page at a time. It keeps only
// what the rules need - item ids, a count per rank, tokens seen, the items NFT-11 cross-checks -
// never the pages, so a walk over 100,000 assets stays small (the page edges, when kept, grow with
// the pages the walk may read: api.nft.maxPages bounds them).
import { isObject } from './json.js';

export interface SampledItem {
  id: string;
  contract_address: string;
  token_id: string;
  rarity: unknown;
  /** Where the walk met it: page (from 1) and index on the page. */
  page: number;
  index: number;
}

/** Largest rank the gap analysis tracks (a count per rank): 4 bytes each, 40 MB at most. */
const MAX_TRACKED_RANK = 10_000_000;

export interface WalkSampling {
  /** Size of the seeded sample (items that are no page edge). */
  sample?: number;
  /** The run seed: another seed draws another sample. */
  seed?: number;
  /** Keep the first and last item of every page. */
  edges?: boolean;
}

/** The rank an item is listed under: its open_rarity entry, else its first rarity entry. */
export function rankOf(item: unknown): number | undefined {
  const rarity = isObject(item) ? item.rarity : undefined;
  if (!Array.isArray(rarity) || rarity.length === 0) return undefined;
  const entry = rarity.find((r) => isObject(r) && r.model === 'open_rarity') ?? rarity[0];
  const raw = isObject(entry) ? entry.rank : undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/** FNV-1a, 32 bits: a cheap, stable hash of an item id for sampling. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export interface Where {
  page: number;
  index: number;
}

export class RarityWalk {
  pages = 0;
  items = 0;
  unranked = 0;
  emptyPagesInRow = 0;
  duplicates = 0;
  firstDuplicate?: Where & { id: string };
  orderViolations = 0;
  firstOrderViolation?: Where & { previous: number; rank: number };
  /** The seeded sample, bottom-k by a seeded hash (unordered: see sampleInWalkOrder). */
  readonly sample: SampledItem[] = [];
  /** The first and last item of every page (when kept), in walk order. */
  readonly edges: SampledItem[] = [];

  private readonly ids = new Set<string>();
  private readonly tokens = new Set<string>();
  private rankCounts = new Uint32Array(1024);
  private maxRank = 0;
  private rankOverflow = false;
  private previousRank: number | undefined;
  private readonly sampleKeys: number[] = [];
  /** Position of the largest key in the full sample: the one a lower key replaces. */
  private worst = -1;
  private readonly sampleSize: number;
  private readonly seed: number;
  private readonly keepEdges: boolean;

  constructor(o: WalkSampling = {}) {
    this.sampleSize = o.sample ?? 12;
    this.seed = o.seed ?? 0;
    this.keepEdges = o.edges ?? false;
  }

  /** Records a page token; false when it was seen before (the walk loops). */
  acceptToken(token: string): boolean {
    if (this.tokens.has(token)) return false;
    this.tokens.add(token);
    return true;
  }

  addPage(items: readonly unknown[]): void {
    this.pages++;
    this.emptyPagesInRow = items.length === 0 ? this.emptyPagesInRow + 1 : 0;
    items.forEach((item, index) =>
      this.addItem(item, { page: this.pages, index }, index === 0 || index === items.length - 1),
    );
  }

  /** The seeded sample in walk order. */
  sampleInWalkOrder(): SampledItem[] {
    return [...this.sample].sort((a, b) => a.page - b.page || a.index - b.index);
  }

  private addItem(item: unknown, where: Where, edge: boolean): void {
    this.items++;
    const id = isObject(item) && typeof item.id === 'string' ? item.id : undefined;
    const duplicate = id !== undefined && this.ids.has(id);
    if (duplicate) {
      this.duplicates++;
      this.firstDuplicate ??= { ...where, id };
    } else if (id !== undefined) this.ids.add(id);
    const rank = rankOf(item);
    if (rank === undefined) this.unranked++;
    else {
      if (this.previousRank !== undefined && rank < this.previousRank) {
        this.orderViolations++;
        this.firstOrderViolation ??= { ...where, previous: this.previousRank, rank };
      }
      this.previousRank = rank;
      // A repeated item must not pass for a tie that would explain a missing rank.
      if (!duplicate) this.countRank(rank);
    }
    if (!duplicate) this.offerSample(item, where, edge);
  }

  private countRank(rank: number): void {
    if (rank > MAX_TRACKED_RANK) {
      this.rankOverflow = true;
      return;
    }
    if (rank >= this.rankCounts.length) {
      let size = this.rankCounts.length;
      while (size <= rank) size *= 2;
      const grown = new Uint32Array(Math.min(size, MAX_TRACKED_RANK + 1));
      grown.set(this.rankCounts);
      this.rankCounts = grown;
    }
    this.rankCounts[rank]!++;
    if (rank > this.maxRank) this.maxRank = rank;
  }

  /**
   * A page edge is kept as such (when edges are kept); any other item may join the sample.
   * Bottom-k sampling: the items whose seeded hash is lowest. Every item has the same chance,
   * memory stays at k items, and one seed on one collection gives the same sample on every run.
   */
  private offerSample(item: unknown, where: Where, edge: boolean): void {
    if (!isObject(item) || typeof item.contract_address !== 'string' || typeof item.token_id !== 'string') return;
    const s: SampledItem = {
      id: String(item.id),
      contract_address: item.contract_address,
      token_id: item.token_id,
      rarity: item.rarity,
      ...where,
    };
    if (edge && this.keepEdges) {
      this.edges.push(s);
      return;
    }
    if (this.sampleSize === 0) return;
    const key = fnv1a(`${this.seed}|${s.id}|${s.contract_address}|${s.token_id}`);
    if (this.sample.length < this.sampleSize) {
      this.sample.push(s);
      this.sampleKeys.push(key);
      if (this.sample.length === this.sampleSize) this.worst = this.worstKey();
      return;
    }
    if (key < this.sampleKeys[this.worst]!) {
      this.sample[this.worst] = s;
      this.sampleKeys[this.worst] = key;
      this.worst = this.worstKey();
    }
  }

  private worstKey(): number {
    let worst = 0;
    for (let i = 1; i < this.sampleKeys.length; i++) if (this.sampleKeys[i]! > this.sampleKeys[worst]!) worst = i;
    return worst;
  }

  /**
   * Ranks with no asset and no tie to explain them. With ties ranked 1,2,2,4 (or densely 1,2,2,3)
   * the ranks a tie covers may be absent; any other absent rank up to the highest seen means an
   * asset the walk never met. Undefined when ranks are too large to track.
   */
  missingRanks(): { count: number; first?: number } | undefined {
    if (this.rankOverflow) return undefined;
    let count = 0;
    let first: number | undefined;
    let r = 1;
    while (r <= this.maxRank) {
      const c = this.rankCounts[r]!;
      if (c > 0) r += c;
      else {
        count++;
        first ??= r;
        r++;
      }
    }
    return { count, first };
  }

  get distinctIds(): number {
    return this.ids.size;
  }
}
