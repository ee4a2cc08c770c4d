// The NFT data API of the reference: a seeded dataset whose records have every documented field,
// rarity ranks that follow from trait rarity, a paging walk that visits every asset once in rank
// order, and the open choices (payments reading, event types, last-page token, extra fields)
// switchable by variant.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assetIndexOf, datasetOf } from '../../reference/nft/dataset.js';
import { assetView } from '../../reference/nft/views.js';
import { ULID_RE, ulidOfUuid, uuidOfUlid } from '../../reference/nft/derive.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../reference/nft/paging.js';
import { fieldErrors, RULE_PROBES, walkRarity } from './api-probes.js';
import { startFixture, type Fixture } from './api-http.js';

let f: Fixture;
before(async () => {
  f = await startFixture();
});
after(() => f.close());

const rarityUrl = (id: string, q = 'sort_by=rarity_rank') => `/assets/rarity/${id}?${q}`;

describe('NFT dataset', () => {
  test('same seed, same dataset; another seed, other ids', () => {
    const a = datasetOf(42);
    const b = datasetOf(43);
    assert.equal(datasetOf(42), a, 'memoised per seed');
    assert.notEqual(a.main.id, b.main.id);
    assert.notEqual(a.events[0]!.id, b.events[0]!.id);
    assert.ok(a.collections.length >= 3);
    assert.ok(a.main.size >= 200 && a.main.size < 1000);
    assert.ok(a.collections.every((c) => c.contract.type === 'ERC721'));
  });

  test('open_rarity ranks follow from trait frequencies: rank 1 = highest score, unique ranks, ties by token id', () => {
    const c = datasetOf(42).main;
    const assets = Array.from(
      { length: c.size },
      (_, i) => assetView(c, i, { faults: new Set(), variants: new Set() }) as any,
    );
    // Recompute information content from the served attributes alone.
    const freq = new Map<string, number>();
    for (const a of assets)
      for (const at of a.attributes)
        freq.set(`${at.trait_type}=${at.value}`, (freq.get(`${at.trait_type}=${at.value}`) ?? 0) + 1);
    const ic = (a: any) =>
      a.attributes.reduce((s: number, at: any) => s - Math.log2(freq.get(`${at.trait_type}=${at.value}`)! / c.size), 0);
    const byRank = [...assets].sort((x, y) => Number(x.rarity[0].rank) - Number(y.rarity[0].rank));
    assert.deepEqual(
      byRank.map((a) => a.rarity[0].rank),
      Array.from({ length: c.size }, (_, i) => String(i + 1)),
    );
    for (let i = 1; i < byRank.length; i++) {
      const [prev, cur] = [byRank[i - 1], byRank[i]];
      assert.ok(ic(prev) >= ic(cur) - 1e-9, `rank ${i} is not rarer than rank ${i + 1}`);
      assert.ok(prev.rarity[0].score >= cur.rarity[0].score);
      if (prev.rarity[0].score === cur.rarity[0].score)
        assert.ok(Number(prev.token_id) < Number(cur.token_id), 'ties go by token id');
    }
  });

  test('events cover sale with payment, sale still indexing, transfer and mint, in the advertised ids', () => {
    const ds = datasetOf(42);
    const advertised = ds.events.filter((e) => f.s.nft.eventIds.includes(e.id));
    assert.ok(advertised.some((e) => e.event_type === 'sale' && !e.indexing));
    assert.ok(advertised.some((e) => e.event_type === 'sale' && e.indexing));
    assert.ok(advertised.some((e) => e.event_type === 'transfer' && !e.isMint));
    assert.ok(advertised.some((e) => e.isMint));
  });
});

describe('NFT endpoints', () => {
  test('every probe of the NFT rules passes on the reference', async () => {
    for (const rule of [
      'NFT-01',
      'NFT-02',
      'NFT-04',
      'NFT-05',
      'NFT-06',
      'NFT-07',
      'NFT-08',
      'NFT-09',
      'NFT-10',
      'NFT-11',
      'NFT-12',
      'RES-01',
    ]) {
      assert.equal(await RULE_PROBES[rule]!(f), undefined, rule);
    }
  });

  test('event: {data} with the documented fields; payments only on indexed sales (default reading)', async () => {
    const ds = datasetOf(f.opts.seed);
    for (const e of ds.events) {
      const a = await f.nft(`/event/${e.id}`);
      assert.equal(a.status, 200);
      assert.deepEqual(Object.keys(a.json), ['data']);
      const d = a.json.data;
      assert.deepEqual(
        Object.keys(d).sort(),
        [
          'contract_address',
          'event_type',
          'from',
          'id',
          'payments',
          'quantity',
          'timestamp',
          'to',
          'token_id',
          'transaction',
        ].sort(),
      );
      assert.equal(d.id, e.id);
      assert.equal(d.payments.length, e.event_type === 'sale' && !e.indexing ? 1 : 0);
      for (const p of d.payments)
        assert.deepEqual(
          fieldErrors(p, { from: 'string', to: 'string', price: 'number', currency: 'string' }, 'payment'),
          [],
        );
    }
  });

  test('event ids match case-insensitively (UUIDs), the answer keeps the canonical id', async () => {
    const id = f.s.nft.eventIds[0]!;
    const a = await f.nft(`/event/${id.toUpperCase()}`);
    assert.equal(a.status, 200);
    assert.equal(a.json.data.id, id);
  });

  test('fault event-ids-ulid: the advertised ids are ULIDs, each names the same event its UUID did, and UUIDs are now malformed', async () => {
    const ds = datasetOf(f.opts.seed);
    assert.equal(ulidOfUuid('00000000-0000-0000-0000-000000000000'), '0'.repeat(26));
    assert.equal(ulidOfUuid('ffffffff-ffff-ffff-ffff-ffffffffffff'), `7${'Z'.repeat(25)}`);
    for (const e of ds.events.slice(0, 20)) assert.equal(uuidOfUlid(ulidOfUuid(e.id)), e.id);
    const g = await startFixture({ faults: new Set(['event-ids-ulid']) });
    try {
      for (const [k, id] of g.s.nft.eventIds.entries()) {
        assert.match(id, ULID_RE);
        const a = await g.nft(`/event/${id}`);
        assert.equal(a.status, 200);
        assert.equal(a.json.data.id, id);
        assert.equal(a.json.data.token_id, ds.events[k]!.token_id);
      }
      assert.equal((await g.nft(`/event/${ds.events[0]!.id}`)).status, 400);
    } finally {
      await g.close();
    }
  });

  test('every collection is served with its documented fields', async () => {
    for (const c of datasetOf(f.opts.seed).collections) {
      const a = await f.nft(`/collection/${c.id}`);
      assert.equal(a.status, 200);
      assert.deepEqual(Object.keys(a.json), ['collection']);
      const col = a.json.collection;
      assert.equal(col.id, c.id);
      assert.deepEqual(col.sub_collection, []);
      assert.equal(col.contracts[0].type, 'ERC721');
      assert.equal(typeof col.verified, 'boolean');
    }
  });

  test('asset lookup: both parameters select one asset; address case does not matter; non-canonical token ids are unknown', async () => {
    const c = datasetOf(f.opts.seed).collections[1]!;
    const a = await f.nft(
      `/asset?contract_address=${c.contract.address.toUpperCase().replace('0X', '0x')}&token_id=${c.firstTokenId + 5}`,
    );
    assert.equal(a.status, 200);
    assert.equal(a.json.asset.token_id, String(c.firstTokenId + 5));
    assert.equal(a.json.asset.contract_address, c.contract.address);
    assert.deepEqual(a.json.asset.wallets, []);
    assert.equal(
      (await f.nft(`/asset?contract_address=${c.contract.address}&token_id=0${c.firstTokenId + 5}`)).status,
      404,
    );
    assert.equal(
      (await f.nft(`/asset?contract_address=${c.contract.address}&token_id=${c.firstTokenId + c.size}`)).status,
      404,
    );
  });

  test('fault asset-lookup-by-token-id: where contracts share a token id, a page edge gets the other asset; rank 1 does not', async () => {
    const ds = datasetOf(f.opts.seed);
    const main = ds.main;
    const shared = (tokenId: number) =>
      ds.collections.some((c) => c !== main && assetIndexOf(c, String(tokenId)) !== undefined);
    const tokenAtRank = (rank: number) => main.firstTokenId + main.rarity().byRank[rank - 1]!;
    // The suite cross-checks the first and last item of each page of 50 (NFT-11); rank 1 is the asset the other checks read.
    const edges = Array.from({ length: Math.ceil(main.size / DEFAULT_PAGE_SIZE) }, (_, p) => [
      p * DEFAULT_PAGE_SIZE + 1,
      Math.min(main.size, (p + 1) * DEFAULT_PAGE_SIZE),
    ]).flat();
    const hit = edges.filter((rank) => shared(tokenAtRank(rank)));
    assert.ok(hit.length > 0 && hit.length < edges.length, `page edges on a shared token id: ranks ${hit.join(', ')}`);
    assert.equal(shared(tokenAtRank(1)), false);
    const g = await startFixture({ faults: new Set(['asset-lookup-by-token-id']) });
    try {
      const ask = async (rank: number) =>
        (await g.nft(`/asset?contract_address=${main.contract.address}&token_id=${tokenAtRank(rank)}`)).json.asset;
      const wrong = await ask(hit[0]!);
      assert.equal(wrong.token_id, String(tokenAtRank(hit[0]!)));
      assert.notEqual(wrong.contract_address, main.contract.address);
      assert.equal((await ask(1)).contract_address, main.contract.address);
    } finally {
      await g.close();
    }
  });

  // Limit 1 on the small collection keeps the page count (and the test) short.
  const WALKS = [
    { collection: 2, limit: 1 },
    { collection: 0, limit: 7 },
    { collection: 0, limit: DEFAULT_PAGE_SIZE },
    { collection: 0, limit: MAX_PAGE_SIZE },
    { collection: 1, limit: DEFAULT_PAGE_SIZE },
  ];
  for (const { collection, limit } of WALKS) {
    test(`rarity walk of collection ${collection} with limit ${limit}: every asset once, in rank order, ends with an empty token`, async () => {
      const c = datasetOf(f.opts.seed).collections[collection]!;
      const w = await walkRarity(f, c.id, limit, c.size + 1);
      assert.ok(w.ended, w.problem);
      assert.equal(w.pages, Math.ceil(c.size / limit));
      assert.equal(new Set(w.items.map((i) => i.id)).size, c.size);
      assert.deepEqual(
        w.items.map((i) => i.rarity[0].rank),
        Array.from({ length: c.size }, (_, i) => String(i + 1)),
      );
      assert.ok(w.items.every((i) => i.contract_address === c.contract.address));
    });
  }

  test('page size: default 50, clamped to 200, refused when not a positive integer', async () => {
    const id = f.s.nft.collectionId;
    assert.equal((await f.nft(rarityUrl(id))).json.data.length, DEFAULT_PAGE_SIZE);
    assert.equal((await f.nft(rarityUrl(id, 'sort_by=rarity_rank&limit=100000'))).json.data.length, MAX_PAGE_SIZE);
    for (const bad of ['0', '-1', 'abc', '2.5'])
      assert.equal((await f.nft(rarityUrl(id, `limit=${bad}`))).status, 400, bad);
  });

  test('page tokens are opaque base64 and bound to their collection; junk and foreign tokens -> 400', async () => {
    const [main, other] = datasetOf(f.opts.seed).collections;
    const token: string = (await f.nft(rarityUrl(main!.id))).json.meta.paging.next_page_token;
    assert.match(token, /^[A-Za-z0-9+/]+={0,2}$/);
    assert.equal((await f.nft(rarityUrl(other!.id, `page_token=${encodeURIComponent(token)}`))).status, 400);
    const tampered = Buffer.from(
      Buffer.from(token, 'base64')
        .toString()
        .replace(/"o":\d+/, '"o":7'),
    ).toString('base64');
    for (const t of [tampered, 'bm90IGEgdG9rZW4=', '%%%', 'a'.repeat(500)]) {
      const a = await f.nft(rarityUrl(main!.id, `page_token=${encodeURIComponent(t)}`));
      assert.equal(a.status, 400, t);
      assert.equal(a.json.error.code, 'invalid_page_token');
    }
  });

  test('sort_by other than rarity_rank -> 400; absent -> rank order', async () => {
    const id = f.s.nft.collectionId;
    assert.equal((await f.nft(rarityUrl(id, 'sort_by=price'))).status, 400);
    assert.equal((await f.nft(rarityUrl(id, 'limit=1'))).json.data[0].rarity[0].rank, '1');
  });
});

describe('NFT variants', () => {
  async function withVariant(variant: string, fn: (g: Fixture) => Promise<void>): Promise<void> {
    const g = await startFixture({ variants: new Set([variant]) });
    try {
      await fn(g);
    } finally {
      await g.close();
    }
  }

  test('payments-on-transfer: indexed transfers carry the payment, sales none', () =>
    withVariant('payments-on-transfer', async (g) => {
      for (const e of datasetOf(g.opts.seed).events.slice(0, 6)) {
        const d = (await g.nft(`/event/${e.id}`)).json.data;
        assert.equal(d.payments.length, e.event_type === 'transfer' && !e.indexing ? 1 : 0, e.id);
      }
    }));

  test('event-type-mint: mint transfers are reported as "mint"', () =>
    withVariant('event-type-mint', async (g) => {
      const mint = datasetOf(g.opts.seed).events.find((e) => e.isMint)!;
      assert.equal((await g.nft(`/event/${mint.id}`)).json.data.event_type, 'mint');
    }));

  test('malformed-id-404: a non-UUID id gets 404', () =>
    withVariant('malformed-id-404', async (g) => {
      assert.equal((await g.nft('/event/not-a-uuid')).status, 404);
    }));

  test('last-page-token-absent: the last page has no next_page_token at all', () =>
    withVariant('last-page-token-absent', async (g) => {
      const a = await g.nft(rarityUrl(g.s.nft.collectionId, `limit=${MAX_PAGE_SIZE}&page_token=`));
      const last = await g.nft(
        rarityUrl(
          g.s.nft.collectionId,
          `limit=${MAX_PAGE_SIZE}&page_token=${encodeURIComponent(a.json.meta.paging.next_page_token)}`,
        ),
      );
      assert.deepEqual(last.json.meta, { paging: {} });
      assert.ok((await walkRarity(g, g.s.nft.collectionId, 100, 10)).ended);
    }));

  test('extra-fields: undocumented fields appear and documented ones stay', () =>
    withVariant('extra-fields', async (g) => {
      assert.equal((await g.nft(`/event/${g.s.nft.eventIds[0]}`)).json.data.chain, 'chain-a');
      assert.equal((await g.nft(`/collection/${g.s.nft.collectionId}`)).json.collection.slug, 'lattice-lions');
      assert.equal(await RULE_PROBES['RES-01']!(g), undefined);
    }));
});
