// The NFT judges (NFT-01..13, RES-01, RES-02) as pure functions of what the plan got: a table of
// hand-made answers, no network. Then the plan itself against a fake client: it sends only what a
// selected rule reads, and its walk follows the page tokens in order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiClient, CallResult, CallSpec } from '../../contracts/api.js';
import { Checks, CouldNotTest, type Judgement } from '../../contracts/checks.js';
import { NFT } from '../../contracts/nft.js';
import { sendNft, type NftAnswers, type RarityAnswers, type Read } from '../../contracts/nft-send.js';
import type { PlanEnv, Senders } from '../../contracts/plan.js';
import { RarityPages } from '../../contracts/rarity-walk.js';
import { Samples } from '../../contracts/samples.js';
import { Redactor } from '../../src/record/redact.js';
import type { ResolvedNft, ResolvedTarget } from '../../src/target-file/types.js';

let seq = 0;
function answer(status: number, body: unknown, purpose = 'x'): CallResult {
  const text = JSON.stringify(body);
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: text,
    bytes: text.length,
    json: body,
    ok: status >= 200 && status < 300,
    exchange: {
      seq: ++seq,
      method: 'GET',
      url: `http://svc.example/${purpose}`,
      requestHeaders: {},
      responseHeaders: {},
      sentAt: 0,
      status,
      purpose,
    },
  };
}
const got = (status: number, body: unknown, purpose?: string): Read => ({ res: answer(status, body, purpose) });
const lost = (cause = 'budget: the run reached limits.maxRequests (40)'): Read => ({
  lost: { cause, exchanges: [] },
});

// ---- Records as the description shows them (the schemas' own test has the same).

const E1 = '0f8fad5b-d9cb-469f-a165-70867728950e';
const E2 = '1f8fad5b-d9cb-469f-a165-70867728950e';
const C1 = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const ADDRESS = '0xc0ffee';
const payment = { from: '0xf00', to: '0xba4', price: 1.25, currency: 'ETH' };
const event = (o: Record<string, unknown> = {}) => ({
  id: E1,
  contract_address: ADDRESS,
  token_id: '42',
  event_type: 'sale',
  timestamp: '1700000000',
  from: '0xaaa',
  to: '0xbbb',
  quantity: '1',
  transaction: { block_hash: '0xbbb', block_number: 17_000_000, transaction_hash: '0xttt' },
  payments: [payment],
  ...o,
});
const collection = (o: Record<string, unknown> = {}) => ({
  id: C1,
  name: 'Apes',
  description: 'A collection',
  logo: '/media/logo.png',
  banner: '/media/banner.png',
  verified: true,
  contracts: [
    { address: ADDRESS, name: 'Apes', symbol: 'APE', description: 'd', image_url: '/media/c.png', type: 'ERC721' },
  ],
  meta: { discord_url: 'https://discord.example/apes', external_url: 'https://apes.example', twitter_username: 'apes' },
  sub_collection: [],
  ...o,
});
const rarity = (rank: number, model = 'open_rarity') => [{ model, score: 3.25, rank: String(rank) }];
const asset = (o: Record<string, unknown> = {}) => ({
  token_id: '42',
  token_type: 'ERC721',
  media: { image_url: '/media/42.png', source: 'ipfs://QmHash/42.png' },
  name: 'Ape #42',
  mint_date: '1650000000',
  token_uri: 'ipfs://QmHash/42.json',
  description: 'An ape',
  contract_address: ADDRESS,
  wallets: [],
  attributes: [{ trait_type: 'Eyes', value: 'Blue' }],
  burned: false,
  rarity: rarity(1),
  ...o,
});
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const listItem = (n: number, rank = n) => ({
  id: uuid(n),
  token_id: String(n),
  image_url: `/media/${n}.png`,
  name: `#${n}`,
  contract_address: ADDRESS,
  rarity: rarity(rank),
});

/**
 * A walk fed these pages (item n has rank n); with `cross`, NFT-11's reads of the page edges: assets
 * that agree, assets whose rarity differs, or a collection that could not be read.
 */
function walk(
  pages: number[][],
  opts: { cross?: 'agree' | 'differ' | 'collection-lost'; extras?: boolean } = {},
): RarityAnswers {
  const walked = new RarityPages(10, opts.extras ?? true, { sample: 0, edges: true });
  pages.forEach((ranks, i) => {
    const next = i < pages.length - 1 ? { next_page_token: `t${i + 2}` } : {};
    walked.add(answer(200, { data: ranks.map((r) => listItem(r)), meta: { paging: next } }, `page${i + 1}`));
  });
  const out: RarityAnswers = { collectionId: C1, pageTokenParam: 'page_token', pages: walked };
  if (!opts.cross) return out;
  const items = walked.walk.edges.map((item) => ({
    item,
    why: { edge: item.index === 0 ? ('first' as const) : ('last' as const) },
  }));
  out.crossCheck = {
    items,
    collection: opts.cross === 'collection-lost' ? lost() : got(200, { collection: collection() }),
    assets: items.map(({ item }) =>
      got(200, {
        asset: asset({
          token_id: item.token_id,
          rarity: opts.cross === 'differ' ? rarity(999) : item.rarity,
        }),
      }),
    ),
  };
  return out;
}

const env: PlanEnv = {
  target: {} as ResolvedTarget,
  seed: 1,
  startedAt: Date.UTC(2024, 0, 1),
  wants: () => true,
};

const judge = (rule: string, a: NftAnswers): Judgement[] => NFT.judges[rule]!(a, env);
const verdicts = (rule: string, a: NftAnswers) => judge(rule, a).map((j) => `${j.verdict} ${j.id}`);

const ev1 = `nft.event[${E1}]`;
const col = `nft.collection[${C1}]`;
const rar = `nft.rarity[${C1}]`;
const agree = `nft.agree[${C1}]`;
const REF = { contract_address: ADDRESS, token_id: '42' };

describe('NFT judges', () => {
  const rows: { name: string; rule: string; a: NftAnswers; want: string[]; says?: RegExp }[] = [
    // NFT-01: the event's fields and types, its timestamp in seconds.
    {
      name: 'a documented event',
      rule: 'NFT-01',
      a: { events: [{ eventId: E1, read: got(200, { data: event() }) }] },
      want: [`pass ${ev1}`, `pass ${ev1}.unix-time`],
    },
    {
      name: 'a timestamp in milliseconds',
      rule: 'NFT-01',
      a: { events: [{ eventId: E1, read: got(200, { data: event({ timestamp: '1700000000000' }) }) }] },
      want: [`pass ${ev1}`, `fail ${ev1}.unix-time`],
      says: /timestamp 1700000000000 is 2023-11-14T22:13:20Z if read as milliseconds/,
    },
    {
      name: 'an event answered 500',
      rule: 'NFT-01',
      a: { events: [{ eventId: E1, read: got(500, { error: 'x' }) }] },
      want: [`fail ${ev1}`],
      says: /answered 500$/,
    },
    {
      name: 'an event that could not be read',
      rule: 'NFT-01',
      a: { events: [{ eventId: E1, read: lost() }] },
      want: [`error ${ev1}`],
      says: /^budget: the run reached/,
    },
    // NFT-02: the id asked for.
    {
      name: 'the event asked for',
      rule: 'NFT-02',
      a: { events: [{ eventId: E1, read: got(200, { data: event() }) }] },
      want: [`pass ${ev1}`],
    },
    {
      name: 'its neighbour',
      rule: 'NFT-02',
      a: { events: [{ eventId: E1, read: got(200, { data: event({ id: E2 }) }) }] },
      want: [`fail ${ev1}`],
      says: new RegExp(`asked for event ${E1}, got "${E2}"`),
    },
    // NFT-03: the event types, observed; nothing read is an error with the cause.
    {
      name: 'a mint among the events',
      rule: 'NFT-03',
      a: {
        events: [
          { eventId: E1, read: got(200, { data: event() }) },
          { eventId: E2, read: got(200, { data: event({ id: E2, event_type: 'mint', payments: [] }) }) },
        ],
      },
      want: ['observed nft.event.types'],
      says: /^event types beyond sale and transfer: mint$/,
    },
    {
      name: 'no event read',
      rule: 'NFT-03',
      a: { events: [{ eventId: E1, read: lost('connect ECONNREFUSED') }] },
      want: ['error nft.event.nft-03'],
      says: /^connect ECONNREFUSED$/,
    },
    // NFT-04: payments' fields and types, and which event types carry them.
    {
      name: 'documented payments',
      rule: 'NFT-04',
      a: { events: [{ eventId: E1, read: got(200, { data: event() }) }] },
      want: [`pass ${ev1}`, 'observed nft.event.payments-by-type'],
    },
    {
      name: 'a price as a string',
      rule: 'NFT-04',
      a: { events: [{ eventId: E1, read: got(200, { data: event({ payments: [{ ...payment, price: '0.85' }] }) }) }] },
      want: [`fail ${ev1}`, 'observed nft.event.payments-by-type'],
    },
    // NFT-05: the collection.
    {
      name: 'the collection asked for',
      rule: 'NFT-05',
      a: { collection: { collectionId: C1, read: got(200, { collection: collection() }) } },
      want: [`pass ${col}`, `pass ${col}.id`],
    },
    {
      name: 'verified as a string',
      rule: 'NFT-05',
      a: { collection: { collectionId: C1, read: got(200, { collection: collection({ verified: 'true' }) }) } },
      want: [`fail ${col}`, `pass ${col}.id`],
    },
    {
      name: 'no {collection} in the body',
      rule: 'NFT-05',
      a: { collection: { collectionId: C1, read: got(200, { data: collection() }) } },
      want: [`fail ${col}`],
      says: /the body has no `collection`$/,
    },
    // NFT-06: the asset asked for, its mint_date in seconds.
    {
      name: 'the asset asked for',
      rule: 'NFT-06',
      a: { asset: { ref: REF, res: answer(200, { asset: asset() }) } },
      want: ['pass nft.asset', 'pass nft.asset.unix-time', 'pass nft.asset.echo'],
    },
    {
      name: 'another token answered',
      rule: 'NFT-06',
      a: { asset: { ref: REF, res: answer(200, { asset: asset({ token_id: '7' }) }) } },
      want: ['pass nft.asset', 'pass nft.asset.unix-time', 'fail nft.asset.echo'],
    },
    {
      name: 'no asset to ask for',
      rule: 'NFT-06',
      a: { asset: { lost: { cause: 'no asset to ask for: x', exchanges: [] } } },
      want: ['error nft.asset'],
    },
    // NFT-07: rarity entries, on the walk and the asset; other models observed.
    {
      name: 'open_rarity everywhere',
      rule: 'NFT-07',
      a: { rarity: walk([[1, 2]]), asset: { ref: REF, res: answer(200, { asset: asset() }) } },
      want: [`pass ${rar}.schema`, `observed ${rar}.models`, 'pass nft.asset', 'observed nft.asset.models'],
    },
    {
      name: 'a rank as a number on the asset, another model',
      rule: 'NFT-07',
      a: {
        asset: {
          ref: REF,
          res: answer(200, { asset: asset({ rarity: [{ model: 'rarity_sniper', score: 1, rank: 1 }] }) }),
        },
      },
      want: ['fail nft.asset', 'observed nft.asset.models'],
    },
    // NFT-08..10: the walk.
    {
      name: 'a walk of two pages',
      rule: 'NFT-10',
      a: { rarity: walk([[1, 2], [3]]) },
      want: [`pass ${rar}.walk`],
    },
    {
      name: 'an item met twice',
      rule: 'NFT-10',
      a: {
        rarity: walk([
          [1, 2],
          [2, 3],
        ]),
      },
      want: [`fail ${rar}.walk`],
    },
    { name: 'ranks in order', rule: 'NFT-09', a: { rarity: walk([[1, 2], [3]]) }, want: [`pass ${rar}.order`] },
    { name: 'a step down', rule: 'NFT-09', a: { rarity: walk([[1, 3], [2]]) }, want: [`fail ${rar}.order`] },
    { name: 'documented pages', rule: 'NFT-08', a: { rarity: walk([[1, 2]]) }, want: [`pass ${rar}.schema`] },
    // NFT-11: the page edges against the asset endpoint and the collection.
    {
      name: 'edges that agree',
      rule: 'NFT-11',
      a: { rarity: walk([[1, 2], [3]], { cross: 'agree' }) },
      want: [`pass ${agree}[p1-first]`, `pass ${agree}[p1-last]`, `pass ${agree}[p2-first]`],
    },
    {
      name: 'rarity that differs',
      rule: 'NFT-11',
      a: { rarity: walk([[1, 2]], { cross: 'differ' }) },
      want: [`fail ${agree}[p1-first]`, `fail ${agree}[p1-last]`],
      says: /^the first item of page 1, 0xc0ffee\/1: rarity differs/,
    },
    {
      name: 'the collection could not be read',
      rule: 'NFT-11',
      a: { rarity: walk([[1, 2]], { cross: 'collection-lost' }) },
      want: [`error ${agree}.collection`, `pass ${agree}[p1-first]`, `pass ${agree}[p1-last]`],
    },
    {
      name: 'no item to compare',
      rule: 'NFT-11',
      a: { rarity: { ...walk([[1]]), crossCheck: { items: [], assets: [] } } },
      want: [`error ${agree}`],
    },
    // NFT-12: unknown ids get no data.
    {
      name: '404s',
      rule: 'NFT-12',
      a: {
        unknown: {
          event: got(404, { error: {} }),
          collection: got(404, { error: {} }),
          token: got(404, { error: {} }),
        },
      },
      want: ['pass nft.unknown.event', 'pass nft.unknown.collection', 'pass nft.unknown.token'],
    },
    {
      name: 'an unknown token answered with a record, no asset to ask for',
      rule: 'NFT-12',
      a: {
        unknown: { event: got(404, {}), collection: lost(), token: got(200, { asset: asset() }) },
      },
      want: ['pass nft.unknown.event', 'error nft.unknown.collection', 'fail nft.unknown.token'],
    },
    // NFT-13: malformed ids, observed.
    {
      name: 'malformed ids refused',
      rule: 'NFT-13',
      a: { malformed: { event: got(400, {}), collection: got(400, {}) } },
      want: ['observed nft.malformed.event', 'observed nft.malformed.collection'],
      says: /^a malformed event id: 400$/,
    },
    // RES-01: every record read, in the plan's order of parts.
    {
      name: 'every record documented',
      rule: 'RES-01',
      a: {
        events: [{ eventId: E1, read: got(200, { data: event() }) }],
        collection: { collectionId: C1, read: got(200, { collection: collection() }) },
        rarity: walk([[1]]),
        asset: { ref: REF, res: answer(200, { asset: asset() }) },
      },
      want: [`pass ${ev1}`, `pass ${col}`, `pass ${rar}.schema`, 'pass nft.asset'],
    },
    {
      name: 'a mistyped collection',
      rule: 'RES-01',
      a: { collection: { collectionId: C1, read: got(200, { collection: collection({ name: 7 }) }) } },
      want: [`fail ${col}`],
    },
    // RES-02: fields beyond the documented ones, observed.
    {
      name: 'an extra field on the event',
      rule: 'RES-02',
      a: {
        events: [{ eventId: E1, read: got(200, { data: event({ marketplace: 'x' }) }) }],
        rarity: walk([[1]]),
      },
      want: [`observed ${ev1}`, `observed ${rar}.extras`],
      says: /^event: 1 field\(s\) beyond the documented ones: .*marketplace$/,
    },
  ];
  for (const r of rows)
    it(`${r.rule}: ${r.name}`, () => {
      const js = judge(r.rule, r.a);
      assert.deepEqual(
        js.map((j) => `${j.verdict} ${j.id}`),
        r.want,
      );
      if (r.says)
        assert.ok(
          js.some((j) => r.says!.test(j.message)),
          `no check says ${r.says}: ${js.map((j) => j.message).join(' | ')}`,
        );
    });

  it('a judge states only its own rule', () => {
    const a: NftAnswers = {
      events: [{ eventId: E1, read: got(200, { data: event() }) }],
      collection: { collectionId: C1, read: got(200, { collection: collection() }) },
      rarity: walk([[1, 2]], { cross: 'agree' }),
      asset: { ref: REF, res: answer(200, { asset: asset() }) },
      unknown: { event: got(404, {}), collection: got(404, {}), token: got(404, {}) },
      malformed: { event: got(400, {}), collection: got(400, {}) },
    };
    for (const rule of Object.keys(NFT.judges)) {
      const js = judge(rule, a);
      assert.ok(js.length > 0, `${rule} judged nothing`);
      assert.deepEqual([...new Set(js.map((j) => j.rule))], [rule]);
    }
  });

  it('states verdicts the way the checks report them', () => {
    const checks = new Checks(new Redactor([], 1), () => true);
    checks.apply(judge('NFT-01', { events: [{ eventId: E1, read: lost() }] }));
    checks.apply(judge('NFT-03', { events: [{ eventId: E2, read: got(200, { data: event({ id: E2 }) }) }] }));
    assert.deepEqual(
      checks.results.map((c) => [c.verdict, c.message]),
      [
        ['error', 'could not check: budget: the run reached limits.maxRequests (40)'],
        ['observed', 'event types seen: sale'],
      ],
    );
  });
});

// ---- The plan against a fake client.

const NFT_TARGET: ResolvedNft = {
  protocol: 'ethereum',
  network: 'mainnet',
  eventIds: [E1, E2],
  collectionId: C1,
  pageTokenParam: 'page_token',
  maxPages: 10,
  crossCheck: 1,
};
const TARGET = {
  api: { baseUrl: 'http://svc.example', apiKey: 'k', universal: [], nft: NFT_TARGET },
  nodes: {},
} as unknown as ResolvedTarget;

/** A client answering like a small service: two rarity pages, every record; `fail` purposes cannot be sent. */
function fakeApi(fail: (purpose: string) => boolean = () => false) {
  const sent: string[] = [];
  const call = async (spec: CallSpec): Promise<CallResult> => {
    sent.push(spec.purpose);
    if (fail(spec.purpose)) throw new CouldNotTest('connect ECONNREFUSED', []);
    const url = new URL(spec.url);
    if (url.pathname.includes('/rarity') || spec.purpose.startsWith('sample.')) {
      const page = url.searchParams.get('page_token') === 't2' ? 2 : 1;
      const data = page === 1 ? [listItem(1), listItem(2)] : [listItem(3)];
      return answer(200, { data, meta: { paging: page === 1 ? { next_page_token: 't2' } : {} } }, spec.purpose);
    }
    if (spec.purpose.includes('unknown') || spec.purpose.includes('malformed')) return answer(404, {}, spec.purpose);
    if (url.pathname.includes('/event/'))
      return answer(200, { data: event({ id: url.pathname.split('/').at(-1) }) }, spec.purpose);
    if (url.pathname.includes('/collection/')) return answer(200, { collection: collection() }, spec.purpose);
    const tokenId = url.searchParams.get('token_id')!;
    return answer(200, { asset: asset({ token_id: tokenId, rarity: rarity(Number(tokenId)) }) }, spec.purpose);
  };
  return { sent, api: { call } as unknown as ApiClient };
}

function sendersOf(api: ApiClient): Senders {
  return {
    api,
    recorder: undefined as never,
    samples: new Samples(TARGET),
    client: () => api,
    rateLimitedNode: async () => [],
  };
}

const planEnv = (...rules: string[]): PlanEnv => ({
  target: TARGET,
  seed: 1,
  startedAt: Date.UTC(2024, 0, 1),
  wants: (...rs) => rs.some((r) => rules.length === 0 || rules.includes(r)),
});

describe('NFT plan', () => {
  it('sends only what the selected rules read', async () => {
    const { sent, api } = fakeApi();
    const a = await sendNft(sendersOf(api), planEnv('NFT-13'));
    assert.deepEqual(Object.keys(a), ['malformed']);
    assert.deepEqual(sent.sort(), ['nft.malformed.collection', 'nft.malformed.event']);
  });

  it('walks the pages in order, then cross-checks (NFT-11)', async () => {
    const { sent, api } = fakeApi();
    const a = await sendNft(sendersOf(api), planEnv('NFT-10', 'NFT-11'));
    assert.deepEqual(Object.keys(a), ['rarity']);
    assert.deepEqual(sent.slice(0, 2), [`${rar}#page1`, `${rar}#page2`]);
    assert.deepEqual(sent.slice(2).sort(), [
      `${agree}.collection`,
      `${agree}[p1-first]`,
      `${agree}[p1-last]`,
      `${agree}[p2-first]`,
    ]);
    assert.deepEqual(verdicts('NFT-10', a), [`pass ${rar}.walk`]);
    assert.deepEqual(verdicts('NFT-11', a), [
      `pass ${agree}[p1-first]`,
      `pass ${agree}[p1-last]`,
      `pass ${agree}[p2-first]`,
    ]);
  });

  it('keeps a read that could not be made as its cause', async () => {
    const { api } = fakeApi((p) => p === ev1 || p.startsWith('sample.'));
    const a = await sendNft(sendersOf(api), planEnv());
    assert.deepEqual(Object.keys(a), ['events', 'collection', 'rarity', 'asset', 'unknown', 'malformed']);
    assert.deepEqual(verdicts('NFT-02', a), [`error ${ev1}`, `pass nft.event[${E2}]`]);
    assert.deepEqual(verdicts('NFT-06', a), ['error nft.asset']);
    assert.equal(verdicts('NFT-12', a).at(-1), 'error nft.unknown.token');
    assert.deepEqual(verdicts('NFT-13', a), ['observed nft.malformed.event', 'observed nft.malformed.collection']);
  });
});

describe('NFT untestable', () => {
  const withNft = (nft: Partial<ResolvedNft> | undefined) =>
    ({
      ...TARGET,
      api: { ...TARGET.api, nft: nft && { ...NFT_TARGET, ...nft } },
    }) as ResolvedTarget;
  const rows: [string, ResolvedTarget, string, string | undefined][] = [
    ['everything', TARGET, 'NFT-11', undefined],
    ['no event ids', withNft({ eventIds: [] }), 'NFT-02', 'target has no api.nft.eventIds'],
    ['no event ids, the asset', withNft({ eventIds: [] }), 'NFT-06', undefined],
    [
      'no collection',
      withNft({ collectionId: undefined }),
      'NFT-09',
      'target has neither api.nft.collectionId nor api.nft.eventIds',
    ],
    ['no collection, the asset', withNft({ collectionId: undefined }), 'RES-01', undefined],
    ['no nft section', withNft(undefined), 'NFT-13', 'target has no api.nft section'],
  ];
  for (const [name, t, rule, want] of rows) it(`${rule}: ${name}`, () => assert.equal(NFT.untestable(rule, t), want));
  it('sends to the data base', () => assert.deepEqual(NFT.hosts(TARGET), ['svc.example']));
});
