// "Did you mean ...?" for misspelt flags, target-file sections and fields.

/** Edit distance (insert, delete, substitute, swap of neighbours), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The known name closest to `word`, when it is close enough to be a plausible typo (at most a third
 * of the word's letters off, and at least one); ties go to the earlier name.
 */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const dist = editDistance(word, k);
    if (dist <= limit && dist < bestDistance) [best, bestDistance] = [k, dist];
  }
  return best;
}

/** " (did you mean x?)" or "". */
export function didYouMean(word: string, known: readonly string[], show: (k: string) => string = (k) => k): string {
  const k = nearest(word, known);
  return k === undefined ? '' : ` (did you mean ${show(k)}?)`;
}
