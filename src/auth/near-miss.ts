// Credentials that almost work: values derived from the real key or token that a correct service
// must refuse (AUTH-08, NAUTH-07), the way real bugs let them through (a prefix compare either
// way round, a case-insensitive compare, a compare of the first few characters). One function
// makes them all, deterministic per (run seed, real value), so the seed printed in the report
// repeats a run. They are secrets too: `withNearMisses` gives the redactor every value a run can send.
import { seededRandom } from '../random.js';

export const NEAR_MISS_KINDS = [
  'first-changed',
  'middle-changed',
  'last-changed',
  'case-changed',
  'char-cut',
  'first-half',
  'char-added',
  'other-generation',
  'unknown',
  'whitespace',
] as const;

export type NearMissKind = (typeof NEAR_MISS_KINDS)[number];

export interface NearMiss {
  kind: NearMissKind;
  value: string;
}

/**
 * What a correct service must do with each kind. `refuse`: data is a fail. `observe`: the
 * description does not settle it (a service may trim whitespace around a value, and another key
 * generation's key is AUTH-10's open question), so the answer is recorded, never failed.
 */
export const NEAR_MISS_EXPECT: Record<NearMissKind, 'refuse' | 'observe'> = {
  'first-changed': 'refuse',
  'middle-changed': 'refuse',
  'last-changed': 'refuse',
  'case-changed': 'refuse',
  'char-cut': 'refuse',
  'first-half': 'refuse',
  'char-added': 'refuse',
  'other-generation': 'observe',
  unknown: 'refuse',
  whitespace: 'observe',
};

export const NEAR_MISS_LABEL: Record<NearMissKind, string> = {
  'first-changed': 'first character changed',
  'middle-changed': 'middle character changed',
  'last-changed': 'last character changed',
  'case-changed': 'letter case changed',
  'char-cut': 'its last character cut',
  'first-half': 'its first half',
  'char-added': 'one character appended',
  'other-generation': "the other generation's key",
  unknown: 'unknown, same shape',
  whitespace: 'surrounded by whitespace',
};

/** A fresh run seed: a 31-bit non-negative integer. */
export function newRunSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** FNV-1a: mixes the real value into the seed, so two secrets of one run do not mutate alike. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const HEX = '0123456789abcdef';

/** The alphabet a character belongs to: a changed character stays well-formed. */
function alphabetOf(c: string, real: string): string {
  if (/[0-9]/.test(c)) return /^[0-9a-f-]*$/.test(real) ? HEX : DIGITS;
  if (/[a-z]/.test(c)) return /^[0-9a-f-]*$/.test(real) ? HEX : LOWER;
  if (/[A-Z]/.test(c)) return UPPER;
  return LOWER + DIGITS;
}

function otherChar(c: string, real: string, rnd: () => number): string {
  const set = alphabetOf(c, real).replace(c, '');
  return set[Math.floor(rnd() * set.length)]!;
}

const between = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * Math.max(1, hi - lo));

/**
 * The shortest first half sent. A shorter one is too common a string to redact everywhere it
 * appears in a report, and the cut form already catches a compare of the offered value as a prefix.
 */
export const MIN_HALF = 8;

function swapCase(s: string): string {
  return [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

/**
 * Every near miss of `real` for this run seed, in NEAR_MISS_KINDS order, each distinct from the
 * real value and from the others (a kind that cannot differ, e.g. the case of a digits-only token,
 * is left out). `other` is the other key generation's key, where there is one.
 */
export function nearMisses(real: string, seed: number, other?: string): readonly NearMiss[] {
  // The auth checks ask once per endpoint and form, hundreds of times a run, for a handful of values.
  const key = `${seed}\0${real}\0${other ?? ''}`;
  let out = made.get(key);
  if (!out) made.set(key, (out = Object.freeze(makeNearMisses(real, seed, other))));
  return out;
}

const made = new Map<string, readonly NearMiss[]>();

function makeNearMisses(real: string, seed: number, other?: string): NearMiss[] {
  const n = real.length;
  if (n === 0) return [];
  const rnd = seededRandom((seed ^ hash(real)) >>> 0);
  const at = (i: number, c: string) => real.slice(0, i) + c + real.slice(i + 1);
  const middle = between(rnd, Math.floor(n / 3), Math.ceil((2 * n) / 3));
  const half = real.slice(0, Math.floor(n / 2));
  // The cut, the half and the appended character sit where they are, whatever the seed: a compare
  // of one value as a prefix of the other (either way round) lets them through on every run.
  const candidates: [NearMissKind, string | undefined][] = [
    ['first-changed', at(0, otherChar(real[0]!, real, rnd))],
    ['middle-changed', at(middle, otherChar(real[middle]!, real, rnd))],
    ['last-changed', at(n - 1, otherChar(real[n - 1]!, real, rnd))],
    ['case-changed', swapCase(real)],
    ['char-cut', real.slice(0, -1)],
    ['first-half', half.length >= MIN_HALF ? half : undefined],
    ['char-added', real + otherChar(real[n - 1]!, real, rnd)],
    ['other-generation', other],
    ['unknown', unknownLike(real, rnd)],
    ['whitespace', ` ${real} `],
  ];
  const seen = new Set<string>([real]);
  const out: NearMiss[] = [];
  for (const [kind, value] of candidates) {
    if (!value || seen.has(value)) continue;
    seen.add(value);
    out.push({ kind, value });
  }
  return out;
}

/** A value of the same length and alphabet as `real`, every character drawn anew: well-formed, unknown. */
function unknownLike(real: string, rnd: () => number): string | undefined {
  for (let tries = 0; tries < 8; tries++) {
    const v = [...real]
      .map((c) => (/[0-9a-zA-Z]/.test(c) ? alphabetOf(c, real)[Math.floor(rnd() * alphabetOf(c, real).length)]! : c))
      .join('');
    if (v !== real) return v;
  }
  return undefined;
}

/** The near miss that probes one (endpoint, form) pair outside the full set: rotates per run. */
export function rotatingKind<K extends string>(kinds: readonly K[], seed: number, index: number): K {
  return kinds[(seed + index) % kinds.length]!;
}

/** The secrets plus every near miss a run with this seed can send: what the redactor must know. */
export function withNearMisses(secrets: readonly string[], seed: number | undefined): string[] {
  if (seed === undefined) return [...secrets];
  const out = new Set(secrets);
  for (const s of secrets) for (const m of nearMisses(s, seed)) out.add(m.value.trim());
  return [...out];
}
