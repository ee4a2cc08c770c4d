// OpenRarity-style scoring: a token's score is the information content of its traits
// (sum of -log2 of each trait value's frequency) divided by the collection's entropy, so 1.0 is
// an average token and rarer combinations score higher. Rank 1 is the highest score; equal
// scores (identical trait combinations) are ordered by token id, so every rank is unique and
// the order is the same on every run.

export interface Rarity {
  /** score[i] for asset index i, rounded to 6 decimals as served. */
  scores: Float64Array;
  /** byRank[r] = asset index holding rank r + 1. */
  byRank: Uint32Array;
  /** rankOf[i] = rank (1-based) of asset index i. */
  rankOf: Uint32Array;
}

/**
 * @param traitValues value index per (asset, trait): traitValues[i * traitCount + t]
 * @param valueCounts number of possible values per trait
 * @param tokenIdOf tie-break key: on-chain token id of asset index i
 */
export function computeRarity(
  size: number,
  traitValues: Uint8Array,
  valueCounts: readonly number[],
  tokenIdOf: (i: number) => number,
): Rarity {
  const traitCount = valueCounts.length;
  const counts = valueCounts.map((n) => new Uint32Array(n));
  for (let i = 0; i < size; i++) {
    for (let t = 0; t < traitCount; t++) counts[t]![traitValues[i * traitCount + t]!]!++;
  }
  // Information content of each (trait, value) and the collection's entropy.
  let entropy = 0;
  const ic = counts.map((c) =>
    Array.from(c, (n) => {
      if (n === 0) return 0;
      const p = n / size;
      entropy += -p * Math.log2(p);
      return -Math.log2(p);
    }),
  );
  const scores = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    let s = 0;
    for (let t = 0; t < traitCount; t++) s += ic[t]![traitValues[i * traitCount + t]!]!;
    scores[i] = entropy > 0 ? Math.round((s / entropy) * 1e6) / 1e6 : 1;
  }
  const byRank = new Uint32Array(size);
  for (let i = 0; i < size; i++) byRank[i] = i;
  byRank.sort((a, b) => scores[b]! - scores[a]! || tokenIdOf(a) - tokenIdOf(b));
  const rankOf = new Uint32Array(size);
  for (let r = 0; r < size; r++) rankOf[byRank[r]!] = r + 1;
  return { scores, byRank, rankOf };
}
