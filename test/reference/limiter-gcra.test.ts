// The reference GCRA against tables worked out by hand from the formulas of the `throttled`
// library (T = 1 h / hourly limit, tau = T * (burst + 1), Remaining = trunc((tau - ttl) / T),
// Reset = ceil(ttl), retry-after = ceil(allowAt - now)), one row per request on an injected clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ceilSeconds,
  gcra,
  gcraParams,
  GcraLimiter,
  GcraParamsError,
  headersOf,
  msToNs,
  type GcraParams,
  type RateLimitHeaders,
} from '../../reference/limiter/gcra.js';

/** One request: when (ms on the injected clock), the status and the headers it must get. */
interface Row {
  at: number;
  status: 200 | 429;
  remaining: number;
  reset: number;
  retryAfter?: number;
}

function runTable(limiter: GcraLimiter, rows: readonly Row[], key = 'token-a'): void {
  rows.forEach((row, i) => {
    const o = limiter.take(key, msToNs(row.at));
    const expected: RateLimitHeaders = { limit: 101, remaining: row.remaining, reset: row.reset };
    if (row.retryAfter !== undefined) expected.retryAfter = row.retryAfter;
    assert.deepEqual(
      { status: o.limited ? 429 : 200, ...headersOf(o) },
      { status: row.status, ...expected },
      `request ${i + 1} at ${row.at} ms`,
    );
  });
}

/** Requests `from`..`to` (1-based) of a burst at t = 0 from full quota; `resetOf` gives ceil(k * T). */
function burstRows(from: number, to: number, resetOf: (k: number) => number): Row[] {
  const rows: Row[] = [];
  for (let k = from; k <= to; k++) rows.push({ at: 0, status: 200, remaining: 101 - k, reset: resetOf(k) });
  return rows;
}

describe('GCRA at 3600/h, burst 100 (T = 1 s, tau = 101 s)', () => {
  test('params', () => {
    assert.deepEqual(gcraParams(3600, 100), { emissionNs: 1_000_000_000n, toleranceNs: 101_000_000_000n, limit: 101 });
  });

  test('burst from full quota, exhaustion, gradual recovery, full recovery', () => {
    runTable(new GcraLimiter(gcraParams(3600, 100)), [
      { at: 0, status: 200, remaining: 100, reset: 1 },
      { at: 0, status: 200, remaining: 99, reset: 2 },
      { at: 0, status: 200, remaining: 98, reset: 3 },
      ...burstRows(4, 100, (k) => k),
      { at: 0, status: 200, remaining: 0, reset: 101 },
      // Request 102: denied, Reset from the unchanged TAT (101 s), wait until allowAt = 1 s.
      { at: 0, status: 429, remaining: 0, reset: 101, retryAfter: 1 },
      // A denial uses no quota: the same answer again.
      { at: 0, status: 429, remaining: 0, reset: 101, retryAfter: 1 },
      { at: 500, status: 429, remaining: 0, reset: 101, retryAfter: 1 },
      // One T later one request fits again (allowAt = now is allowed), long before Reset.
      { at: 1000, status: 200, remaining: 0, reset: 101 },
      { at: 1000, status: 429, remaining: 0, reset: 101, retryAfter: 1 },
      // 10.5 s pause: TAT 102 s -> 103 s, ttl 91.5 s, (101 - 91.5) / 1 = 9.5 -> 9.
      { at: 11_500, status: 200, remaining: 9, reset: 92 },
      { at: 11_500, status: 200, remaining: 8, reset: 93 },
      // TAT 104 s: ttl 55 s.
      { at: 50_000, status: 200, remaining: 46, reset: 55 },
      // TAT 105 s passed: full quota again, the answer looks like a first one.
      { at: 105_000, status: 200, remaining: 100, reset: 1 },
    ]);
  });

  test('each key has its own state', () => {
    const limiter = new GcraLimiter(gcraParams(3600, 100));
    runTable(
      limiter,
      burstRows(1, 101, (k) => k),
      'token-a',
    );
    runTable(limiter, [{ at: 0, status: 429, remaining: 0, reset: 101, retryAfter: 1 }], 'token-a');
    runTable(limiter, [{ at: 0, status: 200, remaining: 100, reset: 1 }], 'token-b');
  });
});

describe('GCRA at 2000/h, burst 100 (T = 1.8 s, tau = 181.8 s)', () => {
  // ceil(1.8 k) in integers: ceil(18 k / 10).
  const ceil18 = (k: number) => Math.floor((18 * k + 9) / 10);

  test('params are exact', () => {
    assert.deepEqual(gcraParams(2000, 100), { emissionNs: 1_800_000_000n, toleranceNs: 181_800_000_000n, limit: 101 });
  });

  test('burst from full quota, exhaustion, gradual recovery, full recovery', () => {
    runTable(new GcraLimiter(gcraParams(2000, 100)), [
      { at: 0, status: 200, remaining: 100, reset: 2 },
      { at: 0, status: 200, remaining: 99, reset: 4 },
      { at: 0, status: 200, remaining: 98, reset: 6 },
      { at: 0, status: 200, remaining: 97, reset: 8 },
      { at: 0, status: 200, remaining: 96, reset: 9 },
      ...burstRows(6, 100, ceil18),
      { at: 0, status: 200, remaining: 0, reset: 182 },
      // Request 102: ttl 181.8 s, allowAt 1.8 s.
      { at: 0, status: 429, remaining: 0, reset: 182, retryAfter: 2 },
      { at: 1000, status: 429, remaining: 0, reset: 181, retryAfter: 1 },
      { at: 1800, status: 200, remaining: 0, reset: 182 },
      // 18 s pause: TAT 183.6 s -> 185.4 s, ttl 165.6 s, 16.2 s / 1.8 s = 9 exactly (floats give 8.999...).
      { at: 19_800, status: 200, remaining: 9, reset: 166 },
      { at: 19_800, status: 200, remaining: 8, reset: 168 },
      // TAT 187.2 s -> 189 s: ttl 89 s, 92.8 / 1.8 = 51.6 -> 51.
      { at: 100_000, status: 200, remaining: 51, reset: 89 },
      // TAT 189 s passed: full quota; Reset = ceil(1.8) = 2.
      { at: 189_000, status: 200, remaining: 100, reset: 2 },
    ]);
  });
});

describe('GCRA details', () => {
  test("the library's own table (PerSec(1), burst 4, quantities; reset and retry in ns)", () => {
    const p: GcraParams = { emissionNs: 1_000_000_000n, toleranceNs: 5_000_000_000n, limit: 5 };
    const s = (ms: number) => msToNs(ms);
    const rows: [
      at: number,
      quantity: number,
      remaining: number,
      resetMs: number,
      retryMs: number | undefined,
      limited: boolean,
    ][] = [
      [0, 6, 5, 0, undefined, true],
      [0, 1, 4, 1000, undefined, false],
      [0, 1, 3, 2000, undefined, false],
      [0, 1, 2, 3000, undefined, false],
      [0, 1, 1, 4000, undefined, false],
      [0, 1, 0, 5000, undefined, false],
      [0, 1, 0, 5000, 1000, true],
      [3000, 1, 2, 3000, undefined, false],
      [3100, 1, 1, 3900, undefined, false],
      [4000, 1, 1, 4000, undefined, false],
      [8000, 1, 4, 1000, undefined, false],
      [9500, 1, 4, 1000, undefined, false],
      [9500, 0, 4, 1000, undefined, false],
      [9500, 2, 2, 3000, undefined, false],
      [9500, 5, 2, 3000, 3000, true],
      [15000, 6, 5, 0, undefined, true],
    ];
    let tat: bigint | undefined;
    rows.forEach(([at, quantity, remaining, resetMs, retryMs, limited], i) => {
      const r = gcra(tat, s(at), p, quantity);
      tat = r.tat;
      const want = {
        limited,
        limit: 5,
        remaining,
        resetNs: s(resetMs),
        ...(retryMs === undefined ? {} : { retryAfterNs: s(retryMs) }),
      };
      assert.deepEqual(r.outcome, want, `row ${i}`);
    });
  });

  test('a denial returns the state unchanged', () => {
    const p = gcraParams(3600, 0);
    const first = gcra(undefined, 0n, p);
    const denied = gcra(first.tat, 0n, p);
    assert.equal(denied.outcome.limited, true);
    assert.equal(denied.tat, first.tat);
  });

  test('T is truncated to whole nanoseconds as Go does (7000/h)', () => {
    const p = gcraParams(7000, 100);
    assert.equal(p.emissionNs, 514_285_714n);
    assert.equal(p.toleranceNs, 514_285_714n * 101n);
  });

  test('bad parameters are refused with one line', () => {
    assert.throws(() => gcraParams(0, 100), GcraParamsError);
    assert.throws(() => gcraParams(3600, -1), GcraParamsError);
    assert.throws(() => gcraParams(1.5, 1), /positive integer/);
  });

  test('clock conversion and rounding', () => {
    assert.equal(msToNs(1_700_000_000_123), 1_700_000_000_123_000_000n);
    assert.equal(msToNs(1.5), 1_500_000n);
    assert.equal(ceilSeconds(0n), 0);
    assert.equal(ceilSeconds(1n), 1);
    assert.equal(ceilSeconds(1_000_000_000n), 1);
    assert.equal(ceilSeconds(1_000_000_001n), 2);
  });
});
