// The state of a rarity-list walk (NFT-09, NFT-10, NFT-11), fed one page at a time. It keeps only
// what the rules need - item ids, a count per rank, tokens seen, a few sampled items - never the
// pages, so a walk over 100,000 assets stays small.
import { isObject } from './json.js';

export interface SampledItem {
  id: string;
  contract_address: string;
  token_id: string;
  rarity: unknown;
}

/** Largest rank the gap analysis tracks (a count per rank): 4 bytes each, 40 MB at most. */
const MAX_TRACKED_RANK = 10_000_000;
export const SAMPLE_SIZE = 3;

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
  readonly sample: SampledItem[] = [];

  private readonly ids = new Set<string>();
  private readonly tokens = new Set<string>();
  private rankCounts = new Uint32Array(1024);
  private maxRank = 0;
  private rankOverflow = false;
  private previousRank: number | undefined;
  private readonly sampleKeys: number[] = [];

  /** Records a page token; false when it was seen before (the walk loops). */
  acceptToken(token: string): boolean {
    if (this.tokens.has(token)) return false;
    this.tokens.add(token);
    return true;
  }

  addPage(items: readonly unknown[]): void {
    this.pages++;
    this.emptyPagesInRow = items.length === 0 ? this.emptyPagesInRow + 1 : 0;
    items.forEach((item, index) => this.addItem(item, { page: this.pages, index }));
  }

  private addItem(item: unknown, where: Where): void {
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
    if (!duplicate) this.offerSample(item);
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
   * Bottom-k sampling: the items whose id hashes lowest. Every item has the same chance, memory
   * stays at k items, and the same collection gives the same sample on every run.
   */
  private offerSample(item: unknown): void {
    if (!isObject(item) || typeof item.contract_address !== 'string' || typeof item.token_id !== 'string') return;
    const s: SampledItem = {
      id: String(item.id),
      contract_address: item.contract_address,
      token_id: item.token_id,
      rarity: item.rarity,
    };
    const key = fnv1a(`${s.id}|${s.contract_address}|${s.token_id}`);
    if (this.sample.length < SAMPLE_SIZE) {
      this.sample.push(s);
      this.sampleKeys.push(key);
      return;
    }
    let worst = 0;
    for (let i = 1; i < SAMPLE_SIZE; i++) if (this.sampleKeys[i]! > this.sampleKeys[worst]!) worst = i;
    if (key < this.sampleKeys[worst]!) {
      this.sample[worst] = s;
      this.sampleKeys[worst] = key;
    }
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
