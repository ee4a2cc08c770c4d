// The pure parts of the contract suite: the rarity walk's bookkeeping, the block-number reader,
// ERR-01 grouping, the auth matrix tables, and empty observations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_KEY_USAGES } from '../../src/auth/forms.js';
import { Redactor } from '../../src/record/redact.js';
import { readBlockNumber } from '../../contracts/block-number.js';
import { Checks, ExtraFieldsByResource } from '../../contracts/checks.js';
import { judgeExtras } from '../../contracts/schema-judge.js';
import { SCHEMA } from '../../src/schemas/validate.js';
import { errorChecks } from '../../contracts/errors-summary.js';
import {
  usageGroups,
  usageRules,
  apiEndpoints,
  fullEndpoint,
  PROBED_FORMS,
  rotationIndex,
  probedFormOf,
} from '../../contracts/matrix.js';
import type { Non2xx } from '../../contracts/protocol.js';
import { bodyShape, shapeOf } from '../../src/body-shape.js';
import { crossCheckPlan, crossCheckSlot } from '../../contracts/agreement.js';
import { RarityWalk } from '../../contracts/walk.js';
import type { ResolvedTarget } from '../../src/target-file/types.js';

const item = (id: string, rank: number | string) => ({
  id,
  contract_address: '0xabc',
  token_id: id,
  rarity: [{ model: 'open_rarity', score: 1, rank: String(rank) }],
});
const pageOf = (ranks: number[], prefix = 'a') => ranks.map((r) => item(`${prefix}${r}`, r));

describe('rarity walk bookkeeping', () => {
  it('accepts a complete, ordered walk, ties included (competition and dense ranking)', () => {
    for (const ranks of [
      [1, 2, 3, 4, 5],
      [1, 2, 2, 4, 5],
      [1, 2, 2, 3, 4],
    ]) {
      const w = new RarityWalk();
      w.addPage(ranks.slice(0, 3).map((r, i) => item(`x${i}`, r)));
      w.addPage(ranks.slice(3).map((r, i) => item(`y${i}`, r)));
      assert.deepEqual(w.missingRanks(), { count: 0, first: undefined }, String(ranks));
      assert.equal(w.orderViolations, 0);
      assert.equal(w.duplicates, 0);
    }
  });

  it('finds a skipped asset, a duplicate, a step down and a loop', () => {
    const w = new RarityWalk();
    w.addPage(pageOf([1, 2, 3]));
    w.addPage(pageOf([5, 6]));
    assert.deepEqual(w.missingRanks(), { count: 1, first: 4 });

    const d = new RarityWalk();
    d.addPage(pageOf([1, 2, 3]));
    d.addPage(pageOf([3, 4]));
    assert.equal(d.duplicates, 1);
    assert.equal(d.firstDuplicate?.id, 'a3');
    // A repeated item is not a tie that would hide a gap.
    d.addPage(pageOf([6]));
    assert.equal(d.missingRanks()?.count, 1);

    const o = new RarityWalk();
    o.addPage(pageOf([1, 3, 2]));
    assert.equal(o.orderViolations, 1);
    assert.deepEqual(o.firstOrderViolation, { page: 1, index: 2, previous: 3, rank: 2 });

    assert.equal(o.acceptToken('t1'), true);
    assert.equal(o.acceptToken('t1'), false);
  });

  it('a missing first rank counts as missing assets; numbers as ranks are read too', () => {
    const w = new RarityWalk();
    w.addPage([item('a', 3), item('b', 4)]);
    assert.deepEqual(w.missingRanks(), { count: 2, first: 1 });
    const n = new RarityWalk();
    n.addPage([{ id: 'a', rarity: [{ model: 'open_rarity', rank: 1 }] }]);
    assert.equal(n.unranked, 0);
  });

  it('a 100,000-asset walk: each asset counted once, no gap, a 12-item sample', () => {
    const w = new RarityWalk();
    for (let p = 0; p < 1000; p++)
      w.addPage(Array.from({ length: 100 }, (_, i) => item(`id-${p * 100 + i}`, p * 100 + i + 1)));
    assert.equal(w.items, 100_000);
    assert.equal(w.distinctIds, 100_000);
    assert.deepEqual(w.missingRanks(), { count: 0, first: undefined });
    assert.equal(w.sample.length, 12);
    assert.equal(w.edges.length, 0, 'page edges are kept only when asked for');
  });

  it('NFT-11 items: the first and last of every page, and a seeded sample of the others', () => {
    const walkWith = (seed: number, sample = 5) => {
      const w = new RarityWalk({ sample, seed, edges: true });
      for (let p = 0; p < 4; p++)
        w.addPage(Array.from({ length: 10 }, (_, i) => item(`id-${p * 10 + i}`, p * 10 + i + 1)));
      w.addPage([item('id-40', 41)]);
      return w;
    };
    const w = walkWith(1);
    assert.deepEqual(
      w.edges.map((e) => `${e.page}:${e.index}:${e.id}`),
      [
        '1:0:id-0',
        '1:9:id-9',
        '2:0:id-10',
        '2:9:id-19',
        '3:0:id-20',
        '3:9:id-29',
        '4:0:id-30',
        '4:9:id-39',
        '5:0:id-40',
      ],
    );
    const sample = w.sampleInWalkOrder();
    assert.equal(sample.length, 5);
    assert.ok(
      sample.every((s) => s.index > 0 && s.index < 9),
      'a page edge is not drawn again',
    );
    assert.deepEqual(
      sample,
      [...sample].sort((a, b) => a.page - b.page || a.index - b.index),
      'in walk order',
    );
    assert.deepEqual(walkWith(1).sampleInWalkOrder(), sample, 'one seed, one sample');
    const others = new Set(
      [2, 3, 4, 5, 6].map((seed) =>
        JSON.stringify(
          walkWith(seed)
            .sampleInWalkOrder()
            .map((s) => s.id),
        ),
      ),
    );
    assert.ok(others.size >= 4, `another seed draws another sample (${others.size} distinct of 5)`);
    assert.deepEqual(
      crossCheckPlan(w.edges, sample)
        .map((x) => crossCheckSlot(x.item, x.why))
        .slice(7),
      ['p4-last', 'p5-first', 'sample-1', 'sample-2', 'sample-3', 'sample-4', 'sample-5'],
    );
    assert.deepEqual(
      crossCheckPlan(w.edges, [], 3).map((x) => crossCheckSlot(x.item, x.why)),
      ['p1-first', 'p1-last', 'p3-first', 'p3-last', 'p5-first'],
      'a long walk: the edges of pages spread over it, the first and last page included',
    );
    assert.equal(walkWith(1, 0).sample.length, 0);
    assert.equal(walkWith(1, 100).sample.length, 41 - 9, 'every item that is no page edge, and no more');
  });
});

describe('block number reader', () => {
  it('finds the number where services put it and says where', () => {
    assert.deepEqual(readBlockNumber({ block_number: 12 }), { value: 12, path: 'block_number', encoding: 'integer' });
    assert.deepEqual(readBlockNumber(42), { value: 42, path: '(root)', encoding: 'integer' });
    assert.deepEqual(readBlockNumber({ data: { height: '77' } }), {
      value: 77,
      path: 'data.height',
      encoding: 'decimal string',
    });
    assert.deepEqual(readBlockNumber({ result: '0x10' }), { value: 16, path: 'result', encoding: 'hex string' });
    assert.equal(readBlockNumber({ block_number: -1 })?.value, -1);
    assert.equal(readBlockNumber({ status: 'ok' }), undefined);
  });
});

describe('ERR-01 grouping', () => {
  const ex = (status: number) => ({
    seq: 1,
    method: 'GET',
    url: 'http://x',
    requestHeaders: {},
    responseHeaders: {},
    status,
    sentAt: 0,
  });
  const n = (cause: string, status: number, shape: unknown): Non2xx => ({
    cause,
    method: 'GET',
    status,
    contentType: 'application/json',
    bodyShape: shape,
    exchange: ex(status),
  });
  it('groups by cause with statuses, content types and shapes, observed', () => {
    const checks = errorChecks([
      n('no credentials', 401, { error: 'object' }),
      n('no credentials', 403, { error: 'object' }),
      n('an unknown id', 404, 'empty'),
    ]);
    assert.deepEqual(
      checks.map((c) => [c.id, c.verdict]),
      [
        ['errors.non2xx[an-unknown-id]', 'observed'],
        ['errors.non2xx[no-credentials]', 'observed'],
      ],
    );
    assert.deepEqual(checks[1]!.evidence.observation, {
      statuses: { '401': 1, '403': 1 },
      contentTypes: ['application/json'],
      bodyShapes: [{ error: 'object' }],
    });
  });
  it('says so when nothing non-2xx was met', () => {
    assert.equal(errorChecks([])[0]!.message, 'no non-2xx answer met in this run');
  });
});

describe('auth matrix tables', () => {
  const target = {
    name: 't',
    nodes: {},
    limits: { maxRequests: 1, maxSeconds: 1, timeoutMs: 1, wsGraceMs: 1 },
    api: {
      baseUrl: 'http://b',
      legacyBaseUrl: 'http://l',
      universal: [{ protocol: 'p', network: 'n' }],
      native: { protocol: 'p', networks: ['n'], optionalNetworks: [], blockNumberMethod: 'm', blockNumberTolerance: 2 },
      nft: {
        protocol: 'p',
        network: 'n',
        eventIds: ['e'],
        collectionId: 'c',
        pageTokenParam: 'page_token',
        maxPages: 5,
        crossCheck: 12,
      },
    },
  } satisfies ResolvedTarget;

  it('every key usage is in exactly one group', () => {
    const grouped = usageGroups().flatMap((g) => g.usages);
    assert.equal(grouped.length, API_KEY_USAGES.length);
    assert.deepEqual(new Set(grouped), new Set(API_KEY_USAGES));
  });

  it('AUTH-12 rides on the apiKey query of the universal endpoint, AUTH-06 on endpoints with a query', () => {
    const eps = apiEndpoints(target);
    assert.deepEqual(
      eps.map((e) => e.id),
      ['universal[p/n]', 'native[n]', 'nft.event', 'nft.collection', 'nft.asset', 'nft.rarity'],
    );
    const legacyQuery = API_KEY_USAGES.find((u) => u.key === 'legacyKey' && u.form === 'apikey-query')!;
    const newQuery = API_KEY_USAGES.find((u) => u.key === 'newKey' && u.form === 'apikey-query')!;
    const universal = eps[0]!;
    const asset = eps.find((e) => e.id === 'nft.asset')!;
    assert.deepEqual(usageRules(universal, legacyQuery), [
      { rule: 'AUTH-04', expect: 'accept' },
      { rule: 'AUTH-12', expect: 'accept' },
    ]);
    assert.deepEqual(usageRules(universal, newQuery), [
      { rule: 'AUTH-09', expect: 'open' },
      { rule: 'AUTH-12', expect: 'open' },
    ]);
    assert.deepEqual(
      usageRules(asset, legacyQuery).map((r) => r.rule),
      ['AUTH-04', 'AUTH-06'],
    );
  });

  it('wrong keys: every kind on the first endpoint of each family, elsewhere one kind rotating over distinct positions', () => {
    const eps = apiEndpoints(target);
    assert.deepEqual(
      eps.filter((e) => fullEndpoint(eps, e)).map((e) => e.id),
      ['universal[p/n]', 'native[n]', 'nft.event'],
    );
    const positions = eps.flatMap((ep) =>
      (['base', 'legacy'] as const).flatMap((b) => PROBED_FORMS[b].map((f) => rotationIndex(eps, ep, b, f))),
    );
    assert.equal(new Set(positions).size, positions.length);
    // Only a key's own generation in a probed form teaches which forms take wrong keys.
    assert.deepEqual(
      API_KEY_USAGES.filter((u) => probedFormOf(u))
        .map((u) => `${u.form}@${u.base}`)
        .sort(),
      [
        'apikey-query@base',
        'apikey-query@legacy',
        'bearer@base',
        'bearer@legacy',
        'x-api-key@base',
        'x-api-key@legacy',
      ],
    );
  });
});

describe('body shapes', () => {
  it('keep types, never values', () => {
    assert.deepEqual(shapeOf({ b: 1.5, a: [{ x: 'secret' }], c: null }), {
      a: [{ x: 'string' }],
      b: 'number',
      c: 'null',
    });
    assert.equal(bodyShape('<html>'), 'not JSON');
    assert.equal(bodyShape(''), 'empty');
  });
});

describe('an observation with nothing observed', () => {
  const exchange = (status?: number, error?: string) => ({
    seq: 1,
    method: 'GET',
    url: 'http://127.0.0.1:9/x',
    requestHeaders: {},
    responseHeaders: {},
    sentAt: 0,
    ...(status !== undefined && { status }),
    ...(error && { error }),
  });

  it('is an error with the cause when no request it rests on was answered, even if the cause was met under an unselected rule', () => {
    const check = new Checks(new Redactor(), (rule) => rule === 'NFT-03');
    check.apply([
      { rule: 'NFT-01', id: 'nft.event[x]', verdict: 'error', message: 'network: connect ECONNREFUSED 127.0.0.1:9' },
      {
        rule: 'NFT-03',
        id: 'nft.event.types',
        verdict: 'observed',
        message: 'event types seen: none',
        observation: { eventTypes: [] },
        exchanges: [],
      },
      {
        rule: 'NFT-03',
        id: 'nft.event.types2',
        verdict: 'observed',
        message: 'event types seen: none',
        observation: { eventTypes: [] },
        exchanges: exchange(undefined, 'network: timeout after 10000 ms'),
      },
    ]);
    assert.deepEqual(
      check.results.map((c) => [c.verdict, c.message, c.evidence.cause]),
      [
        [
          'error',
          'could not check: nothing observed (network: connect ECONNREFUSED 127.0.0.1:9)',
          'network: connect ECONNREFUSED 127.0.0.1:9',
        ],
        [
          'error',
          'could not check: nothing observed (network: timeout after 10000 ms)',
          'network: timeout after 10000 ms',
        ],
      ],
    );
  });

  it('stays an observation when one answer came, or when it rests on other checks (no exchanges given)', () => {
    const check = new Checks(new Redactor(), () => true);
    check.apply([
      {
        rule: 'NFT-03',
        id: 'a',
        verdict: 'observed',
        message: 'event types seen: sale',
        observation: { eventTypes: ['sale'] },
        exchanges: [exchange(undefined, 'network: reset'), exchange(200)],
      },
      {
        rule: 'NFT-07',
        id: 'b',
        verdict: 'observed',
        message: 'rarity models: open_rarity only',
        observation: { otherModels: [] },
      },
    ]);
    assert.deepEqual(
      check.results.map((c) => c.verdict),
      ['observed', 'observed'],
    );
  });
});

describe('RES-02 roll-up', () => {
  const page = (paging: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    data: [],
    meta: { paging: { next_page_token: '', ...paging }, ...extra },
  });

  it('gathers the fields beyond the documented ones by resource over several records, each field once, sorted', () => {
    const roll = new ExtraFieldsByResource()
      .add(SCHEMA.rarityListResponse, page({ total: 3 }, { took: 1 }))
      .add(SCHEMA.rarityListResponse, page({ total: 4, a: 1 }, { zz: 2 }));
    assert.deepEqual(roll.rollUp(), {
      byResource: { Paging: ['a', 'total'], PagingEnvelope: ['took', 'zz'] },
      names: ['Paging.a', 'Paging.total', 'PagingEnvelope.took', 'PagingEnvelope.zz'],
    });
  });

  it('the check observes what the roll-up found, and says so when nothing was', () => {
    const check = new Checks(new Redactor([]), () => true);
    check.apply([
      judgeExtras('nft.list', SCHEMA.rarityListResponse, page({ total: 3 }), undefined, 'rarity list'),
      judgeExtras('nft.list.plain', SCHEMA.rarityListResponse, page({}), undefined, 'rarity list'),
    ]);
    assert.deepEqual(
      check.results.map((c) => [c.verdict, c.message]),
      [
        ['observed', 'rarity list: 1 field(s) beyond the documented ones: Paging.total'],
        ['observed', 'rarity list: no fields beyond the documented ones'],
      ],
    );
  });
});
