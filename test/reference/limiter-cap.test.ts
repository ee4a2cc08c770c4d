// The proxy's per-second cap: a sliding one-second window per token, in front of the limiter.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CalendarSecondCap,
  CAP_STRICT_SPACING_VARIANT,
  PerSecondCap,
  StrictSpacingCap,
  TokenBucketCap,
  type Cap,
} from '../../reference/limiter/cap.js';
import { ACCOUNT_BUCKET_VARIANT, createHorizonLimiter, type Admission } from '../../reference/limiter/pipeline.js';

const admitAll = (cap: Cap, times: readonly number[], key = 'a') => times.map((t) => cap.admit(key, t));
const every = (n: number, from: number, stepMs: number) => Array.from({ length: n }, (_, i) => from + i * stepMs);

describe('PerSecondCap', () => {
  test('20 in any one second; the 21st inside the second is refused', () => {
    const cap = new PerSecondCap(20);
    assert.deepEqual(admitAll(cap, every(20, 0, 50)), Array(20).fill(true));
    assert.equal(cap.admit('a', 990), false);
    // The forward at t = 0 is one second old: room for exactly one more.
    assert.equal(cap.admit('a', 1000), true);
    assert.equal(cap.admit('a', 1000), false);
  });

  test('the window slides: no reset at a calendar-second boundary', () => {
    const cap = new PerSecondCap(20);
    assert.deepEqual(admitAll(cap, Array(20).fill(500)), Array(20).fill(true));
    assert.equal(cap.admit('a', 1200), false, 'a per-calendar-second counter would accept here');
    assert.equal(cap.admit('a', 1499), false);
    assert.deepEqual(admitAll(cap, Array(21).fill(1500)), [...Array(20).fill(true), false]);
  });

  test('refused requests are not counted', () => {
    const cap = new PerSecondCap(20);
    admitAll(cap, Array(20).fill(0));
    assert.deepEqual(admitAll(cap, every(10, 0, 99)), Array(10).fill(false));
    assert.deepEqual(admitAll(cap, Array(20).fill(1000)), Array(20).fill(true));
  });

  test('per token', () => {
    const cap = new PerSecondCap(2);
    assert.deepEqual(admitAll(cap, [0, 0, 0], 'a'), [true, true, false]);
    assert.deepEqual(admitAll(cap, [0, 0, 0], 'b'), [true, true, false]);
  });

  test('Infinity switches the cap off; a cap below 1 is refused', () => {
    assert.deepEqual(admitAll(new PerSecondCap(Infinity), Array(1000).fill(0)), Array(1000).fill(true));
    assert.throws(() => new PerSecondCap(0), RangeError);
  });
});

describe('cap in front of the limiter', () => {
  const limiter = () => createHorizonLimiter({ faults: new Set(), hourlyLimit: 3600, burst: 100, perSecondCap: 20 });

  test('a request over the cap is answered by the proxy without limiter headers and uses no quota', () => {
    const l = limiter();
    const burst: Admission[] = Array.from({ length: 25 }, () => l.admit('a', 0));
    const forwarded = burst.filter((a) => a.by === 'limiter');
    assert.equal(forwarded.length, 20);
    assert.deepEqual(
      forwarded.map((a) => a.by === 'limiter' && a.headers.remaining),
      Array.from({ length: 20 }, (_, i) => 100 - i),
    );
    assert.deepEqual(burst.slice(20), Array(5).fill({ by: 'proxy' }));
    // TAT 20 s after 20 counted requests (not 25): at t = 1 s ttl 20 s, Remaining 81.
    assert.deepEqual(l.admit('a', 1000), {
      by: 'limiter',
      limited: false,
      headers: { limit: 101, remaining: 81, reset: 20 },
    });
  });

  test('limiter denials are forwards: they count toward the cap', () => {
    const l = createHorizonLimiter({ faults: new Set(), hourlyLimit: 3600, burst: 4, perSecondCap: 20 });
    const answers = Array.from({ length: 21 }, () => l.admit('a', 0));
    assert.deepEqual(
      answers.map((a) => (a.by === 'proxy' ? 'proxy' : a.limited ? 429 : 200)),
      [...Array(5).fill(200), ...Array(15).fill(429), 'proxy'],
    );
  });

  test('variant horizon-account-bucket: every token draws on one GCRA bucket, each keeps its own cap', () => {
    const l = createHorizonLimiter({
      faults: new Set(),
      variants: new Set([ACCOUNT_BUCKET_VARIANT]),
      hourlyLimit: 3600,
      burst: 100,
      perSecondCap: 20,
    });
    const remaining = (a: Admission) => (a.by === 'limiter' ? a.headers.remaining : a.by);
    // Alternating tokens: one Remaining, falling by one per request whichever token sent it.
    assert.deepEqual(
      ['a', 'b', 'a', 'b'].map((k) => remaining(l.admit(k, 0))),
      [100, 99, 98, 97],
    );
    // 18 more from a reach its cap of 20; b's cap still lets b through (the bucket says 78 left).
    for (let i = 0; i < 18; i++) l.admit('a', 0);
    assert.equal(remaining(l.admit('a', 0)), 'proxy');
    assert.equal(remaining(l.admit('b', 0)), 78);
  });
});

describe('other cap shapes', () => {
  test('strict spacing (nginx limit_req without burst): one per 1/cap s after the last forwarded request', () => {
    const cap = new StrictSpacingCap(20);
    assert.deepEqual(admitAll(cap, [0, 5, 49.9, 50, 99, 100]), [true, false, false, true, false, true]);
    // Never more than the cap in any second, and never less than 50 ms apart.
    assert.deepEqual(admitAll(cap, every(40, 150, 25)).filter(Boolean).length, 20);
  });

  test('calendar second (fault): the count starts over at each whole second, so 40 fit inside one second', () => {
    const cap = new CalendarSecondCap(20);
    const accepted = every(40, 600, 20).filter((t) => cap.admit('a', t));
    assert.equal(accepted.length, 40, 'all of 600..1380 ms: 20 before the boundary, 20 after');
    assert.equal(cap.admit('a', 1990), false);
  });

  test('token bucket (fault): a burst from full gets the cap plus what refills meanwhile', () => {
    const cap = new TokenBucketCap(20);
    // 30 at 40 a second from full: 20 tokens plus 20 x 0.725 s refilled.
    assert.equal(admitAll(cap, every(30, 0, 25)).filter(Boolean).length, 30);
    assert.equal(admitAll(new TokenBucketCap(20), Array(25).fill(0)).filter(Boolean).length, 20);
  });

  test('the pipeline picks the shape: the strict-spacing variant, the two faults, the sliding window by default', () => {
    const shapes = (extra: { faults?: string[]; variants?: string[] }) => {
      const l = createHorizonLimiter({
        faults: new Set(extra.faults ?? []),
        variants: new Set(extra.variants ?? []),
        hourlyLimit: 3600,
        burst: 100,
        perSecondCap: 20,
      });
      return [0, 10, 60].map((t) => l.admit('a', t).by);
    };
    assert.deepEqual(shapes({}), ['limiter', 'limiter', 'limiter']);
    assert.deepEqual(shapes({ variants: [CAP_STRICT_SPACING_VARIANT] }), ['limiter', 'proxy', 'limiter']);
    const calendar = createHorizonLimiter({
      faults: new Set(['rl-cap-calendar-second']),
      hourlyLimit: 3600,
      burst: 100,
      perSecondCap: 2,
    });
    assert.deepEqual(
      [900, 950, 990, 1000].map((t) => calendar.admit('a', t).by),
      ['limiter', 'limiter', 'proxy', 'limiter'],
    );
    const bucket = createHorizonLimiter({
      faults: new Set(['rl-cap-token-bucket']),
      hourlyLimit: 3600,
      burst: 100,
      perSecondCap: 2,
    });
    assert.deepEqual(
      [0, 0, 0, 500].map((t) => bucket.admit('a', t).by),
      ['limiter', 'limiter', 'proxy', 'limiter'],
    );
  });
});
