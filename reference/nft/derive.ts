// Stateless derivation of pseudo-random values from (seed, tag, index). Every id, address and
// trait of the NFT dataset (and the chain's start heights) is a pure function of these, so any
// record of a 100,000-asset collection can be built on demand without generating its neighbours.

/** FNV-1a over a string: turns tags like "asset-id" into a 32-bit namespace. */
export function strHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's finaliser: good avalanche, so neighbouring indexes give unrelated values. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of any number of integers (order matters). */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) h = fmix((h ^ (p >>> 0)) + 0x7f4a7c15);
  return h;
}

/** A uniform float in [0, 1) from the same inputs as hash32. */
export function unit(...parts: number[]): number {
  return hash32(...parts) / 4294967296;
}

/** `nBytes` of lowercase hex derived from (seed, tag, index). */
export function hexOf(seed: number, tag: string, index: number, nBytes: number): string {
  const t = strHash(tag);
  let out = '';
  for (let word = 0; out.length < nBytes * 2; word++) out += hash32(seed, t, index, word).toString(16).padStart(8, '0');
  return out.slice(0, nBytes * 2);
}

/** A version-4-shaped UUID derived from (seed, tag, index). */
export function uuidOf(seed: number, tag: string, index: number): string {
  const h = hexOf(seed, tag, index, 16).split('');
  h[12] = '4';
  h[16] = '89ab'[parseInt(h[16]!, 16) & 3]!;
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Crockford's base32, as ULIDs spell them. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;

/** The same 128 bits as a ULID (26 characters, 130 bits with the top two zero): one id, two spellings. */
export function ulidOfUuid(uuid: string): string {
  let n = BigInt(`0x${uuid.replace(/-/g, '')}`);
  let out = '';
  for (let i = 0; i < 26; i++, n >>= 5n) out = CROCKFORD[Number(n & 31n)]! + out;
  return out;
}

/** The UUID spelling of a ULID's 128 bits (the inverse of ulidOfUuid). */
export function uuidOfUlid(ulid: string): string {
  let n = 0n;
  for (const ch of ulid.toUpperCase()) n = (n << 5n) | BigInt(CROCKFORD.indexOf(ch));
  const h = n.toString(16).padStart(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const addressOf = (seed: number, tag: string, index: number): string => `0x${hexOf(seed, tag, index, 20)}`;
export const hash256Of = (seed: number, tag: string, index: number): string => `0x${hexOf(seed, tag, index, 32)}`;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A CIDv1-looking content address (base32, `bafybei` prefix), for `media.source` and `token_uri`. */
export function cidOf(seed: number, tag: string, index: number): string {
  const hex = hexOf(seed, tag, index, 32);
  let out = 'bafybei';
  for (let i = 0; out.length < 59; i++) out += BASE32[parseInt(hex.slice((i * 2) % 64, ((i * 2) % 64) + 2), 16) & 31];
  return out;
}

/** Picks an index from relative weights with a uniform value u in [0, 1). */
export function weightedPick(weights: readonly number[], u: number): number {
  let total = 0;
  for (const w of weights) total += w;
  let x = u * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i]!;
    if (x < 0) return i;
  }
  return weights.length - 1;
}
