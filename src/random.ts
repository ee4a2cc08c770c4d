// A seeded random source for everything that must repeat from a seed: the reference's jitter and
// data, the suite's near-miss credentials.

/** mulberry32: tiny, fast, and the same sequence on every platform for one seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
