// compareResults, a pure function of two results files: each rule of the comparison (CMP-xx) on
// synthetic runs, one behaviour per test: what it finds, and what it must not take for a difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareResults, type Comparison } from '../../src/compare/compare.js';
import { bodyShape as compareShape } from '../../src/compare/shape.js';
import { bodyShape as contractShape } from '../../src/body-shape.js';
import { COMPARISON_RULES } from '../../src/compare/rules.js';
import { comparisonLines } from '../../src/compare/lines.js';
import { API, API_B, LIMITER, check, exchange, run } from './fixture.js';

const rows = (c: Comparison) =>
  c.differences.map((d) => `${d.cmp} ${d.kind} ${d.key}: ${JSON.stringify(d.a)} | ${JSON.stringify(d.b)}`);

const EVENT = {
  data: {
    id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    token_id: '42',
    timestamp: '1700000000',
    transaction: { block_number: 17_000_000 },
    payments: [{ price: 1.25, currency: 'ETH' }],
  },
};

function eventCheck(base: string, id: string, body: unknown, verdict: 'pass' | 'fail' = 'pass') {
  return check(`nft.event[${id}]`, 'NFT-01', verdict, {
    exchanges: [exchange({ url: `${base}/nft/v1/chain-a/mainnet/event/${id}`, body, purpose: `nft.event[${id}]` })],
  });
}

test('two runs of one behaviour: no difference, every rule compared, the rules of the comparison stated', () => {
  const a = run('production', [eventCheck(API, 'e1-0f8fad5b-d9cb-469f-a165-70867728950e', EVENT)]);
  const b = run('staging', [eventCheck(API_B, 'e1-0f8fad5b-d9cb-469f-a165-70867728950e', EVENT)]);
  const c = compareResults(a, b);
  assert.deepEqual(rows(c), []);
  assert.equal(c.counts.differences, 0);
  assert.equal(c.a.label, 'production');
  assert.equal(c.b.label, 'staging');
  assert.deepEqual(
    c.rules.map((r) => r.id),
    COMPARISON_RULES.map((r) => r.id),
  );
  for (const r of c.rules) assert.ok(r.description.length > 40, r.id);
  assert.match(comparisonLines(c)[0]!, /^production compared with staging: no difference over \d+ rules?$/);
});

test('a field whose type differs is one body-shape difference (CMP-05), not also a value one; verdicts differ per rule (CMP-02)', () => {
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const broken = { data: { ...EVENT.data, payments: [{ price: '1.25', currency: 'ETH' }] } };
  const a = run('production', [eventCheck(API, id, EVENT)]);
  const b = run('staging', [eventCheck(API_B, id, broken, 'fail')]);
  const c = compareResults(a, b);
  assert.deepEqual(rows(c), [
    'CMP-02 verdict verdict: "pass" | "fail"',
    'CMP-05 body-shape data.payments[].price: "number" | "string"',
  ]);
  const shape = c.differences.find((d) => d.kind === 'body-shape')!;
  assert.deepEqual(shape.subjects, ['GET /nft/v1/chain-a/mainnet/event/{id}']);
  assert.deepEqual(c.byRule.find((r) => r.rule === 'NFT-01')!.differences, ['D1', 'D2']);
  assert.deepEqual(c.b.failing, ['NFT-01']);
});

test('each side names its own resources (CMP-01): checks pair by place, answers about other resources are compared by shape only', () => {
  const ids = ['0f8fad5b-d9cb-469f-a165-70867728950e', '1b348110-d6cb-4e23-8ebb-3122eaba3c67'];
  const other = ['7c9e6679-7425-40de-944b-e07fc1f90ae7', '9b2f3a1e-5c4d-4e6f-8a7b-0c1d2e3f4a5b'];
  const body = (id: string, token: string) => ({ data: { ...EVENT.data, id, token_id: token } });
  const a = run('production', [
    eventCheck(API, ids[0]!, body(ids[0]!, '1')),
    eventCheck(API, ids[1]!, body(ids[1]!, '2')),
  ]);
  const b = run('staging', [
    eventCheck(API_B, other[0]!, body(other[0]!, '7')),
    eventCheck(API_B, other[1]!, { data: { ...body(other[1]!, '8').data, extra: true } }),
  ]);
  const c = compareResults(a, b);
  // No check is "only on one side", no token id is a difference: only the field staging's second event adds.
  assert.deepEqual(rows(c), ['CMP-05 body-shape data.extra: undefined | "boolean"']);
  assert.deepEqual(c.differences[0]!.checks, ['nft.event[#2]']);
  assert.deepEqual(c.onlyIn, { a: 0, b: 0 });
});

const SAME_RESOURCE_COMPARED =
  'the same resource is compared value by value (CMP-07), block numbers within the tolerance (CMP-08), ' +
  'tokens and times by shape (CMP-09), texts without their numbers (CMP-10)';
test(SAME_RESOURCE_COMPARED, () => {
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const page = (o: { token: string; block: number; time: string; message: string; name: string }) => ({
    data: [{ id, name: o.name, minted_at: o.time, transaction: { block_number: o.block } }],
    meta: { paging: { next_page_token: o.token } },
    note: o.message,
  });
  const url = (base: string) => `${base}/nft/v1/chain-a/mainnet/assets/rarity/${id}?sort_by=rarity_rank`;
  const a = run('production', [
    check(`nft.rarity[${id}].walk`, 'NFT-10', 'pass', {
      exchanges: [
        exchange({
          url: url(API),
          body: page({
            token: 'eyJvIjo1MH0=',
            block: 100,
            time: '2026-01-01T00:00:00Z',
            message: 'head is 100',
            name: 'Ape',
          }),
        }),
      ],
    }),
  ]);
  const same = run('staging', [
    check(`nft.rarity[${id}].walk`, 'NFT-10', 'pass', {
      exchanges: [
        exchange({
          url: url(API_B),
          body: page({
            token: 'c29tZXRoaW5nIGVsc2U=',
            block: 102,
            time: '2026-03-04T05:06:07Z',
            message: 'head is 9',
            name: 'Ape',
          }),
        }),
      ],
    }),
  ]);
  assert.deepEqual(rows(compareResults(a, same)), []);
  const moved = run('staging', [
    check(`nft.rarity[${id}].walk`, 'NFT-10', 'pass', {
      exchanges: [
        exchange({
          url: url(API_B),
          body: page({ token: '', block: 103, time: '1767225600', message: 'the head is 9', name: 'Bear' }),
        }),
      ],
    }),
  ]);
  assert.deepEqual(rows(compareResults(a, moved)), [
    'CMP-09 value data[].minted_at: "ISO 8601" | "Unix seconds (string)"',
    'CMP-07 value data[].name: "Ape" | "Bear"',
    'CMP-08 value data[].transaction.block_number: 100 | 103',
    'CMP-09 value meta.paging.next_page_token: "a token" | "empty"',
    'CMP-10 value note: "head is 100" | "the head is 9"',
  ]);
  // A run recording a looser tolerance (results.json `tolerances`) takes 3 blocks apart.
  const loose = compareResults(run('production', a.checks, { extra: { tolerances: { blockNumbers: 5 } } }), moved);
  assert.equal(loose.blockNumberTolerance, 5);
  assert.ok(!rows(loose).some((r) => r.startsWith('CMP-08')));
});

test('answers about current state (no id in the request) are compared by shape and block number only', () => {
  const state = (base: string, fee: string, height: number) =>
    check('node.horizon.fee_stats', 'NODE-07', 'pass', {
      exchanges: [exchange({ url: `${base}/fee_stats`, body: { last_ledger: height, fee_charged: { p50: fee } } })],
      observation: { status: 200, contentType: 'application/json', bodyShape: { x: 'string' } },
    });
  assert.deepEqual(rows(compareResults(run('a', [state(API, '100', 50)]), run('b', [state(API_B, '900', 51)]))), []);
  assert.deepEqual(rows(compareResults(run('a', [state(API, '100', 50)]), run('b', [state(API_B, '900', 60)]))), [
    'CMP-08 value last_ledger: 50 | 60',
  ]);
});

test('statuses, media types, header sets (CMP-03, CMP-04) and JSON-RPC error codes (CMP-06); observations that restate them are not counted twice', () => {
  const refusal = (base: string, status: number, headers: Record<string, string>) =>
    check('auth.native[mainnet][no-credentials@base]', 'AUTH-07', 'pass', {
      exchanges: [
        exchange({ method: 'POST', url: `${base}/native/v1/chain-a/mainnet`, status, headers, body: { error: 'no' } }),
      ],
      observation: { status, accepted: false },
    });
  const rpc = (base: string, code: number) =>
    check('native.unknown-method[mainnet]', 'RPC-05', 'pass', {
      exchanges: [
        exchange({
          method: 'POST',
          url: `${base}/native/v1/chain-a/mainnet`,
          requestBody: { jsonrpc: '2.0', id: 5, method: 'no_such' },
          body: { jsonrpc: '2.0', id: 5, error: { code, message: 'Method not found' } },
        }),
      ],
    });
  const a = run('a', [refusal(API, 401, { 'www-authenticate': 'Bearer' }), rpc(API, -32601)]);
  const b = run('b', [refusal(API_B, 403, { 'content-type': 'text/plain' }), rpc(API_B, -32600)]);
  assert.deepEqual(rows(compareResults(a, b)), [
    'CMP-03 status status: 401 | 403',
    'CMP-03 content-type content-type: "application/json" | "text/plain"',
    'CMP-04 header www-authenticate: "present" | "absent"',
    'CMP-06 rpc-error error.code: [-32601] | [-32600]',
  ]);
});

test("hop-by-hop headers are the connection's, not the answer's (CMP-04): a fresh connection's answer differs in none", () => {
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const event = (base: string, headers: Record<string, string>) =>
    check(`nft.event[${id}]`, 'NFT-01', 'pass', {
      exchanges: [exchange({ url: `${base}/nft/v1/chain-a/mainnet/event/${id}`, body: EVENT, headers })],
    });
  // A pooled answer against one sent again on a connection of its own (Connection: close).
  const a = run('a', [event(API, { connection: 'keep-alive', 'keep-alive': 'timeout=5', 'x-request-id': 'r1' })]);
  const b = run('b', [event(API_B, { connection: 'close', 'transfer-encoding': 'chunked' })]);
  assert.deepEqual(rows(compareResults(a, b)), ['CMP-04 header x-request-id: "present" | "absent"']);
});

test('a rule a side skipped for a missing target-file section is not compared, and the comparison says which section', () => {
  const a = run('production', [eventCheck(API, '0f8fad5b-d9cb-469f-a165-70867728950e', EVENT)]);
  const b = run('staging', [{ ...check('nft.event', 'NFT-01', 'skipped'), message: 'target has no api.nft section' }]);
  const c = compareResults(a, b);
  assert.deepEqual(rows(c), []);
  assert.deepEqual(c.absentSections, [{ section: 'api.nft', side: 'b', rules: ['NFT-01'] }]);
  assert.equal(
    c.byRule.find((r) => r.rule === 'NFT-01')!.notCompared,
    'skipped on staging: target has no api.nft section',
  );
  assert.match(comparisonLines(c).at(-1)!, /not compared: staging's target file has no api\.nft section \(NFT-01\)/);
});

test('the rate limiter by its estimates and what its 429s carry (CMP-11), never request by request', () => {
  const denial = (base: string, retryAfters: string[], withHeaders: boolean) =>
    check('rl.exhaustion.429', 'RL-06', 'pass', {
      exchanges: [
        exchange({ url: `${base}/fee_stats`, status: 200, headers: { 'x-ratelimit-remaining': '3' } }),
        ...retryAfters.map((retryAfter) =>
          exchange({
            url: `${base}/fee_stats`,
            status: 429,
            headers: {
              'retry-after': retryAfter,
              'x-ratelimit-limit': '101',
              ...(withHeaders && { 'x-ratelimit-reset': '1' }),
            },
          }),
        ),
      ],
    });
  // Other requests, other counts, T's bands overlapping: the same limiter.
  const a = run('a', [denial(API, ['1'], true)], { limiter: LIMITER });
  const same = run('b', [denial(API_B, ['2', '1'], true)], {
    limiter: {
      ...LIMITER,
      requestsSent: 130,
      emissionIntervalMs: 1000.05,
      emissionIntervalBandMs: { lo: 999.95, hi: 1000.15 },
    },
  });
  assert.deepEqual(rows(compareResults(a, same)), []);
  const other = run('b', [denial(API_B, ['1000'], false)], {
    limiter: { ...LIMITER, limit: 91, emissionIntervalMs: 1200, emissionIntervalBandMs: { lo: 1199, hi: 1201 } },
  });
  assert.deepEqual(rows(compareResults(a, other)), [
    'CMP-11 limiter limiter\'s 429: headers: ["retry-after","x-ratelimit-limit","x-ratelimit-reset"] | ["retry-after","x-ratelimit-limit"]',
    'CMP-11 limiter limit: 101 | 91',
    "CMP-11 limiter limiter's 429: largest retry-after (s): 1 | 1000",
    'CMP-11 limiter T (emission interval, ms): 1000 | 1200',
  ]);
});

test('the per-second cap (CMP-11): a count over the declared cap differs; counts at or under it say how the burst fell, not the cap', () => {
  const capped = (seen: number) =>
    run('x', [], { limiter: { ...LIMITER, perSecondCap: seen, declaredPerSecondCap: 20 } });
  // A starved client spread one side's burst: 19 of 20 in its busiest second. Both held the cap.
  assert.deepEqual(rows(compareResults(capped(20), capped(19))), []);
  assert.deepEqual(rows(compareResults(capped(20), capped(25))), [
    'CMP-11 limiter perSecondCap: "at most the cap (20)" | 25',
  ]);
});

test('latency per family (CMP-12): a difference only past twice and the stated margin, a median from 20 requests a side, a p95 from 40', () => {
  const timed = (base: string, ms: number[]) =>
    ms.map((d, i) =>
      check(`universal.block-number[n${i}]`, 'UNI-01', 'pass', {
        exchanges: [
          exchange({
            url: `${base}/universal/v1/chain-a/n${i}/sync/block_number`,
            durationMs: d,
            body: { block_number: 1 },
          }),
        ],
      }),
    );
  const fast = Array.from({ length: 40 }, () => 40);
  const noisy = Array.from({ length: 40 }, (_v, i) => (i < 36 ? 200 : 500));
  // 40 vs 200 ms (500 ms at the 95th percentile) is five times slower but only 160 (460) ms: within the margins.
  assert.deepEqual(rows(compareResults(run('a', timed(API, fast)), run('b', timed(API_B, noisy)))), []);
  const slow = Array.from({ length: 40 }, (_v, i) => (i < 36 ? 400 : 1200));
  assert.deepEqual(rows(compareResults(run('a', timed(API, fast)), run('b', timed(API_B, slow)))), [
    'CMP-12 latency universal: 95th percentile (ms): 40 | 1200',
    'CMP-12 latency universal: median (ms): 40 | 400',
  ]);
  // 30 requests: the median is compared, the 95th percentile is not; 19: neither.
  const some = [...slow.slice(0, 27), ...slow.slice(36, 39)];
  assert.deepEqual(rows(compareResults(run('a', timed(API, fast.slice(0, 30))), run('b', timed(API_B, some)))), [
    'CMP-12 latency universal: median (ms): 40 | 400',
  ]);
  assert.deepEqual(
    rows(compareResults(run('a', timed(API, fast.slice(0, 19))), run('b', timed(API_B, slow.slice(0, 19))))),
    [],
  );
});

test('the NFT walk (CMP-13): pages and items where both walked one collection, rank problems anywhere', () => {
  const walk = (id: string, w: Record<string, number>) =>
    check(`nft.rarity[${id}].walk`, 'NFT-10', 'pass', {
      walk: w,
      observation: { pageTokenParam: 'page_token', advanced: true },
    });
  const counts = {
    pages: 4,
    items: 200,
    distinctItems: 200,
    duplicates: 0,
    unranked: 0,
    rankStepsDown: 0,
    missingRanks: 0,
  };
  const col = '23fc6c58-a4dd-427b-8735-c206ea8ae64f';
  assert.deepEqual(
    rows(
      compareResults(
        run('a', [walk(col, counts)]),
        run('b', [walk(col, { ...counts, pages: 5, items: 201, duplicates: 1, distinctItems: 200 })]),
      ),
    ),
    ['CMP-13 walk duplicates: 0 | 1', 'CMP-13 walk items: 200 | 201', 'CMP-13 walk pages: 4 | 5'],
  );
  const other = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
  assert.deepEqual(
    rows(
      compareResults(
        run('a', [walk(col, counts)]),
        run('b', [walk(other, { ...counts, pages: 9, items: 450, distinctItems: 450 })]),
      ),
    ),
    [],
  );
});

test("the comparison's body skeleton is the one contracts/shape.ts records", () => {
  for (const body of [
    undefined,
    '',
    'plain text',
    '[]',
    '{"a":1,"b":[{"c":"x","d":null}],"e":1.5,"f":true}',
    JSON.stringify({ deep: { a: { b: { c: { d: { e: 1 } } } } } }),
    JSON.stringify(Object.fromEntries(Array.from({ length: 40 }, (_v, i) => [`k${i}`, i]))),
  ])
    assert.deepEqual(compareShape(body), contractShape(body), String(body));
});

test('compareResults reads nothing but its two arguments: the same inputs give the same comparison', () => {
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const a = run('production', [eventCheck(API, id, EVENT)]);
  const b = run('staging', [eventCheck(API_B, id, { data: { ...EVENT.data, token_id: 43 } }, 'fail')]);
  const before = JSON.stringify([a, b]);
  assert.deepEqual(compareResults(a, b), compareResults(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))));
  assert.equal(JSON.stringify([a, b]), before, 'inputs unchanged');
});
