import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MIN_HALF,
  NEAR_MISS_EXPECT,
  NEAR_MISS_KINDS,
  nearMisses,
  rotatingKind,
  withNearMisses,
  type NearMissKind,
} from '../../src/auth/near-miss.js';
import { ROTATION, wrongCredentialCount, wrongCredentials } from '../../src/auth/wrong-credentials.js';

const REAL = 'ref-new-key-7f3a9c2e41d84b6f';
const OTHER = 'ref-legacy-key-2b8e5d1c9a7f4e03';

const byKind = (real: string, seed: number, other?: string) =>
  new Map(nearMisses(real, seed, other).map((m) => [m.kind, m.value]));

/** Positions where two equally long strings differ. */
function diffs(a: string, b: string): number[] {
  assert.equal(a.length, b.length);
  return [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));
}

/** Whether `longer` is `shorter` with exactly one character inserted. */
function oneInserted(shorter: string, longer: string): boolean {
  if (longer.length !== shorter.length + 1) return false;
  for (let i = 0; i <= shorter.length; i++) if (longer.slice(0, i) + longer.slice(i + 1) === shorter) return true;
  return false;
}

test('every kind is made, distinct from the real value and from each other', () => {
  const m = nearMisses(REAL, 7, OTHER);
  assert.deepEqual(
    m.map((x) => x.kind),
    [...NEAR_MISS_KINDS],
  );
  const values = m.map((x) => x.value);
  assert.equal(new Set([...values, REAL]).size, values.length + 1);
});

test('each kind is the near miss its name says (many seeds)', () => {
  for (let seed = 0; seed < 200; seed++) {
    const k = byKind(REAL, seed, OTHER);
    assert.deepEqual(diffs(REAL, k.get('first-changed')!), [0]);
    assert.deepEqual(diffs(REAL, k.get('last-changed')!), [REAL.length - 1]);
    const [mid] = diffs(REAL, k.get('middle-changed')!);
    assert.ok(mid! >= REAL.length / 3 - 1 && mid! <= (2 * REAL.length) / 3, `middle index ${mid}`);
    assert.equal(k.get('case-changed'), REAL.toUpperCase());
    // The truncated and extended forms do not move with the seed (only the appended character does).
    assert.equal(k.get('char-cut'), REAL.slice(0, -1));
    assert.equal(k.get('first-half'), REAL.slice(0, REAL.length / 2));
    assert.ok(oneInserted(REAL, k.get('char-added')!), 'added');
    assert.ok(k.get('char-added')!.startsWith(REAL), 'appended');
    assert.equal(k.get('other-generation'), OTHER);
    assert.equal(k.get('whitespace'), ` ${REAL} `);
    const unknown = k.get('unknown')!;
    assert.equal(unknown.length, REAL.length);
    assert.equal(unknown.replace(/[0-9a-z]/g, 'x'), REAL.replace(/[0-9a-z]/g, 'x'), 'same shape: punctuation kept');
  }
});

test('a compare of one value as a prefix of the other, either way round, meets a near miss it must refuse on every seed', () => {
  for (const real of [REAL, OTHER, '5c1e9b7d3f2a5c1e', 'ab']) {
    for (let seed = 0; seed < 50; seed++) {
      const refused = nearMisses(real, seed).filter((m) => NEAR_MISS_EXPECT[m.kind] === 'refuse');
      assert.ok(
        refused.some((m) => real.startsWith(m.value)),
        `${real} seed ${seed}: no proper prefix`,
      );
      assert.ok(
        refused.some((m) => m.value.startsWith(real)),
        `${real} seed ${seed}: no extension`,
      );
    }
  }
});

test('the first half is sent only when it is long enough to redact safely', () => {
  assert.equal(byKind(REAL, 1).get('first-half'), REAL.slice(0, 14));
  assert.equal(byKind('x'.repeat(2 * MIN_HALF), 1).get('first-half'), 'x'.repeat(MIN_HALF));
  assert.equal(byKind('y'.repeat(2 * MIN_HALF - 1), 1).has('first-half'), false);
});

test('changed characters keep the alphabet: a hex token stays hex, an upper-case letter stays upper-case', () => {
  for (let seed = 0; seed < 100; seed++) {
    const hex = byKind('5c1e9b7d3f2a5c1e', seed);
    for (const kind of ['first-changed', 'middle-changed', 'last-changed', 'char-added'] as NearMissKind[])
      assert.match(hex.get(kind)!, /^[0-9a-f]+$/, kind);
    const upper = byKind('ABCDEFGH', seed);
    assert.match(upper.get('first-changed')!, /^[A-Z]+$/);
    assert.equal(upper.get('case-changed'), 'abcdefgh');
  }
});

test('deterministic per (seed, real value); another seed moves the positions', () => {
  assert.deepEqual(nearMisses(REAL, 42, OTHER), nearMisses(REAL, 42, OTHER));
  const runs = new Set(Array.from({ length: 20 }, (_v, seed) => JSON.stringify(nearMisses(REAL, seed))));
  assert.ok(runs.size > 15, `only ${runs.size} distinct sets over 20 seeds`);
  // Two secrets of one run are not mutated alike.
  const middles = (s: string) =>
    Array.from({ length: 20 }, (_v, seed) => diffs(s, byKind(s, seed).get('middle-changed')!)[0]);
  assert.notDeepEqual(middles('aaaaaaaaaaaaaaaa'), middles('bbbbbbbbbbbbbbbb'));
});

test('kinds that cannot differ are left out, never sent as the real value', () => {
  const digits = byKind('0123456789', 1);
  assert.equal(digits.has('case-changed'), false, 'digits have no case');
  assert.equal(digits.has('other-generation'), false, 'no other key given');
  const one = nearMisses('a', 1);
  assert.ok(one.every((m) => m.value !== 'a' && m.value.length > 0));
  assert.equal(nearMisses('', 1).length, 0);
});

test('the rotating kind walks every kind over consecutive endpoints, starting where the seed says', () => {
  const kinds = ['a', 'b', 'c'] as const;
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => rotatingKind(kinds, 4, i)),
    ['b', 'c', 'a', 'b'],
  );
});

test('withNearMisses lists every value a run can send, for the redactor', () => {
  const all = withNearMisses([REAL, OTHER], 9);
  for (const s of [REAL, OTHER]) for (const m of nearMisses(s, 9)) assert.ok(all.includes(m.value.trim()), m.kind);
  assert.deepEqual(withNearMisses([REAL], undefined), [REAL]);
});

test('wrong credentials of a form: the near misses, the empty value, and in a query the parameter twice', () => {
  const query = wrongCredentials('apikey-query', REAL, 5, { full: true, index: 0, other: OTHER });
  const kinds = query.map((w) => w.kind);
  assert.deepEqual(kinds, [...NEAR_MISS_KINDS, 'empty', 'dup-wrong-first', 'dup-right-first']);
  assert.equal(query.length, wrongCredentialCount('apikey-query', true));
  const dup = query.find((w) => w.kind === 'dup-wrong-first')!;
  assert.equal(dup.values.length, 2);
  assert.equal(dup.values[1], REAL);
  assert.notEqual(dup.values[0], REAL);
  assert.equal(dup.expect, 'observe', 'which duplicate wins is open: a last-wins service is conformant');
  assert.equal(query.find((w) => w.kind === 'dup-right-first')!.expect, 'observe');
  assert.equal(query.find((w) => w.kind === 'whitespace')!.expect, 'observe');
  assert.deepEqual(query.find((w) => w.kind === 'empty')!.values, ['']);
  // Headers: whitespace around a value is not part of it, and a header carries one value.
  const header = wrongCredentials('x-auth-token', REAL, 5, { full: true, index: 0 }).map((w) => w.kind);
  assert.ok(
    !header.includes('whitespace') && !header.includes('dup-wrong-first') && !header.includes('other-generation'),
  );
  assert.ok(header.length <= wrongCredentialCount('x-auth-token', true));
});

test('outside the full set the empty value and one near miss, rotating over the positions, each one a correct service refuses', () => {
  const picked = Array.from({ length: ROTATION.length }, (_v, i) =>
    wrongCredentials('bearer', REAL, 3, { full: false, index: i }).filter((w) => w.kind !== 'empty'),
  );
  for (const p of picked) {
    assert.equal(p.length, 1);
    assert.equal(p[0]!.expect, 'refuse');
  }
  // The empty value goes everywhere: it is no credential, which every endpoint must refuse.
  assert.ok(
    wrongCredentials('bearer', REAL, 3, { full: false, index: 0 }).some((w) => w.kind === 'empty' && !w.rotating),
  );
  assert.equal(new Set(picked.map((p) => p[0]!.kind)).size, ROTATION.length);
  // The rotating one is marked (its check id leaves the kind out); the full set is not.
  assert.ok(picked.every((p) => p[0]!.rotating));
  assert.ok(wrongCredentials('bearer', REAL, 3, { full: true, index: 0 }).every((w) => !w.rotating));
});
