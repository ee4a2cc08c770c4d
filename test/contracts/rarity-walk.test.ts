// The rarity-list walk judged on synthetic pages: what NFT-07..10, RES-01 and RES-02 say about a
// clean walk, duplicates, a step down in rank, a loop, a refused page, a missing asset, a maxPages
// cut, an empty collection, items missing fields, and a walk cut short by a could-not-test cause.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Checks, type Judgement } from '../../contracts/checks.js';
import { judgeRarityWalk, RarityPages, type RarityPage } from '../../contracts/rarity-walk.js';
import { Redactor } from '../../src/record/redact.js';
import type { Exchange } from '../../src/record/recorder.js';

const ID = 'nft.rarity[c1]';
const TOKEN_PARAM = 'page_token';

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const item = (n: number, rank: number, extra: Record<string, unknown> = {}) => ({
  id: uuid(n),
  token_id: String(n),
  image_url: `https://img.example/${n}.png`,
  name: `#${n}`,
  contract_address: '0xabc',
  rarity: [{ model: 'open_rarity', score: 1.5, rank: String(rank) }],
  ...extra,
});
/** Items numbered after their ranks (item n has rank n unless a rank repeats). */
const items = (ranks: number[], first = ranks[0] ?? 1) => ranks.map((r, i) => item(first + i, r));

let seq = 0;
const exchange = (status: number): Exchange => ({
  seq: ++seq,
  method: 'GET',
  url: `https://svc.example/rarity#${seq}`,
  requestHeaders: {},
  responseHeaders: {},
  status,
  sentAt: 0,
});

/** A 200 page; `next` undefined: the last page (no token). */
function page(
  data: unknown[],
  next?: string,
  meta: unknown = { paging: next === undefined ? {} : { next_page_token: next } },
): RarityPage {
  return { ok: true, status: 200, json: { data, meta }, exchange: exchange(200) };
}
const refused = (status: number): RarityPage => ({
  ok: false,
  status,
  json: { error: 'nope' },
  exchange: exchange(status),
});

interface Walked {
  pages: RarityPages;
  /** The page token each request carried. */
  tokens: (string | undefined)[];
}

/** The spec's loop over synthetic answers; `cutAt`: the request that fails with a could-not-test cause. */
function walk(answers: RarityPage[], opts: { maxPages?: number; extras?: boolean; cutAt?: number } = {}): Walked {
  const pages = new RarityPages(opts.maxPages ?? 10, opts.extras ?? true);
  const tokens: (string | undefined)[] = [];
  while (pages.wantsMore()) {
    const n = tokens.length;
    tokens.push(pages.nextToken);
    if (n === opts.cutAt) {
      pages.cutShort('budget: maxRequests (40) reached', [exchange(0)]);
      break;
    }
    const answer = answers[n];
    assert.ok(answer, `the walk asked for page ${n + 1}, which the row does not have`);
    pages.add(answer);
  }
  return { pages, tokens };
}

const judge = (w: Walked) => judgeRarityWalk(w.pages, { id: ID, pageTokenParam: TOKEN_PARAM });
const verdicts = (js: Judgement[]) =>
  Object.fromEntries(js.map((j) => [`${j.rule} ${j.id}`, `${j.verdict}: ${j.message}`]));

describe('rarity walk judged on synthetic pages', () => {
  const rows: {
    name: string;
    answers: RarityPage[];
    maxPages?: number;
    cutAt?: number;
    tokens?: (string | undefined)[];
    expect: Record<string, string>;
  }[] = [
    {
      name: 'a clean walk over three pages, ties included',
      answers: [page(items([1, 2, 2]), 't1'), page(items([4, 5], 4), 't2'), page(items([6], 6))],
      tokens: [undefined, 't1', 't2'],
      expect: {
        [`NFT-07 ${ID}.schema`]:
          'pass: rarity list: 3 page(s), 6 item(s), every documented field present with its type',
        [`NFT-08 ${ID}.schema`]:
          'pass: rarity list: 3 page(s), 6 item(s), every documented field present with its type',
        [`RES-01 ${ID}.schema`]:
          'pass: rarity list: 3 page(s), 6 item(s), every documented field present with its type',
        [`NFT-07 ${ID}.models`]: 'observed: rarity models: open_rarity only',
        [`RES-02 ${ID}.extras`]: 'observed: rarity list: no fields beyond the documented ones',
        [`NFT-09 ${ID}.order`]: 'pass: ranks never decrease over 3 page(s), 6 item(s)',
        [`NFT-10 ${ID}.walk`]:
          'pass: walk ended after 3 page(s), 6 item(s), 6 distinct assets, each once, ranks without gaps',
      },
    },
    {
      name: 'an item met twice',
      answers: [page(items([1, 2]), 't1'), page([item(2, 2), item(3, 3)])],
      expect: {
        [`NFT-10 ${ID}.walk`]: `fail: 1 item(s) met twice (first: ${uuid(2)} on page 2) (2 page(s), 4 item(s))`,
        [`NFT-09 ${ID}.order`]: 'pass: ranks never decrease over 2 page(s), 4 item(s)',
      },
    },
    {
      name: 'a step down in rank across pages',
      answers: [page(items([1, 2, 3]), 't1'), page([item(4, 2), item(5, 4), item(6, 5)])],
      expect: {
        [`NFT-09 ${ID}.order`]:
          'fail: rank 2 comes after rank 3 (page 2, item 0); 1 step(s) down over 2 page(s), 6 item(s)',
      },
    },
    {
      name: 'an asset missing where the last page ends the walk early',
      answers: [page(items([1, 2]), 't1'), page([item(3, 3), item(5, 5)])],
      expect: {
        [`NFT-10 ${ID}.walk`]:
          'fail: 1 rank(s) missing with no tie to explain them (first: rank 4): assets the walk never met (2 page(s), 4 item(s))',
      },
    },
    {
      name: 'a page token handed back twice (the walk loops)',
      answers: [page(items([1]), 't1'), page(items([2], 2), 't1')],
      expect: {
        [`NFT-10 ${ID}.walk`]:
          'fail: the walk does not end: page 2 hands back a page token already followed (2 page(s), 2 item(s))',
      },
    },
    {
      name: 'empty pages that keep a token',
      answers: [page(items([1, 2]), 't1'), page([], 't2'), page([], 't3')],
      expect: {
        [`NFT-10 ${ID}.walk`]:
          'fail: the walk does not end: 2 empty pages in a row still carry a page token (3 page(s), 2 item(s))',
      },
    },
    {
      name: 'page 2 repeats page 1 (the token parameter is not the one the service reads)',
      answers: [page(items([1, 2]), 't1'), page(items([1, 2]))],
      expect: {
        [`NFT-10 ${ID}.walk`]:
          `fail: 2 item(s) met twice (first: ${uuid(1)} on page 2); page 2 repeats page 1: ` +
          'is api.nft.pageTokenParam ("page_token") the parameter the service reads? (2 page(s), 4 item(s))',
      },
    },
    {
      name: 'a later page refused',
      answers: [page(items([1, 2]), 't1'), refused(500)],
      expect: {
        [`NFT-10 ${ID}.walk`]: 'fail: page 2 answered 500 (following page_token) (1 page(s), 2 item(s))',
        [`NFT-09 ${ID}.order`]: 'pass: ranks never decrease over 1 page(s), 2 item(s)',
      },
    },
    {
      name: 'maxPages reached with a token still in hand',
      answers: [page(items([1, 2]), 't1'), page(items([3, 4], 3), 't2')],
      maxPages: 2,
      expect: {
        [`NFT-10 ${ID}.walk`]:
          'error: walk stopped at maxPages (2) while the service still gave a page token; raise api.nft.maxPages',
        [`NFT-09 ${ID}.order`]: 'pass: ranks never decrease over 2 page(s), 4 item(s)',
      },
    },
    {
      name: 'an empty collection (one page, no items)',
      answers: [page([])],
      expect: {
        [`NFT-09 ${ID}.order`]: 'error: fewer than two ranked items over 1 page(s), 0 item(s)',
        [`NFT-10 ${ID}.walk`]:
          'pass: walk ended after 1 page(s), 0 item(s), 0 distinct assets, each once, ranks without gaps',
      },
    },
    {
      name: 'items missing fields, over two pages',
      answers: [page([item(1, 1, { name: undefined })], 't1'), page([{ ...item(2, 2), image_url: 7 }])],
      expect: {
        [`NFT-08 ${ID}.schema`]:
          'fail: rarity list page 1: data[0].name: required field is missing (+1 more over the walk)',
        [`RES-01 ${ID}.schema`]:
          'fail: rarity list page 1: data[0].name: required field is missing (+1 more over the walk)',
        [`NFT-07 ${ID}.schema`]:
          'pass: rarity list: 2 page(s), 2 item(s), every documented field present with its type',
      },
    },
    {
      name: 'a rarity entry without its rank, other models and extra fields',
      answers: [
        page([
          { ...item(1, 1), rarity: [{ model: 'open_rarity', score: 1 }] },
          item(2, 2, { colour: 'red', rarity: [{ model: 'trait_count', score: 2, rank: '2' }] }),
        ]),
      ],
      expect: {
        [`NFT-07 ${ID}.models`]: 'observed: rarity models beyond open_rarity: trait_count',
        [`RES-02 ${ID}.extras`]: 'observed: rarity list: fields beyond the documented ones: AssetListItem.colour',
        [`NFT-09 ${ID}.order`]: 'error: fewer than two ranked items over 1 page(s), 2 item(s)',
      },
    },
    {
      name: 'the first page refused: nothing to walk',
      answers: [refused(403)],
      expect: {
        [`NFT-08 ${ID}`]: 'fail: rarity list: the first page answered 403 without a data array',
        [`RES-01 ${ID}`]: 'fail: rarity list: the first page answered 403 without a data array',
        [`NFT-07 ${ID}`]: 'error: no page to check: the first page answered 403 without a data array',
        [`NFT-09 ${ID}`]: 'error: no page to check: the first page answered 403 without a data array',
        [`NFT-10 ${ID}`]: 'error: no page to check: the first page answered 403 without a data array',
        [`NFT-11 ${ID}`]: 'error: no page to check: the first page answered 403 without a data array',
      },
    },
    {
      name: 'cut short before the first page',
      answers: [],
      cutAt: 0,
      expect: Object.fromEntries(
        ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'NFT-11', 'RES-01'].map((r) => [
          `${r} ${ID}`,
          'error: budget: maxRequests (40) reached',
        ]),
      ),
    },
    {
      name: 'cut short after a page',
      answers: [page(items([1, 2]), 't1')],
      cutAt: 1,
      expect: {
        [`NFT-09 ${ID}.order`]:
          'pass: ranks never decrease over 1 page(s), 2 item(s) (walk cut short: budget: maxRequests (40) reached)',
        [`NFT-10 ${ID}.walk`]: 'error: walk cut short after 1 page(s), 2 item(s): budget: maxRequests (40) reached',
      },
    },
  ];

  for (const row of rows) {
    it(row.name, () => {
      const w = walk(row.answers, { maxPages: row.maxPages, cutAt: row.cutAt });
      if (row.tokens) assert.deepEqual(w.tokens, row.tokens);
      const got = verdicts(judge(w));
      for (const [key, want] of Object.entries(row.expect)) assert.equal(got[key], want, key);
    });
  }

  it('states the verdicts in a fixed order, RES-02 only when extra fields were collected', () => {
    const answers = [page(items([1, 2]))];
    const order = (extras: boolean) => judge(walk(answers, { extras })).map((j) => `${j.rule} ${j.verdict}`);
    assert.deepEqual(order(true), [
      'NFT-07 pass',
      'NFT-08 pass',
      'RES-01 pass',
      'NFT-07 observed',
      'RES-02 observed',
      'NFT-09 pass',
      'NFT-10 pass',
    ]);
    assert.deepEqual(order(false), [
      'NFT-07 pass',
      'NFT-08 pass',
      'RES-01 pass',
      'NFT-07 observed',
      'NFT-09 pass',
      'NFT-10 pass',
    ]);
  });

  it('keeps the first two answers as evidence, and the refused answer on an NFT-10 fail', () => {
    const answers = [page(items([1]), 't1'), page(items([2], 2), 't2'), refused(502)];
    const js = judge(walk(answers));
    const nft10 = js.find((j) => j.rule === 'NFT-10')!;
    assert.equal(nft10.verdict, 'fail');
    const evidence = 'evidence' in nft10 ? nft10.evidence : undefined;
    assert.deepEqual(
      evidence?.exchanges?.map((x) => x.status),
      [200, 200, 502],
    );
    assert.deepEqual(evidence?.observation, { pageTokenParam: TOKEN_PARAM, advanced: true });
  });

  it('is stated through Checks.apply as the check methods state it (an error names its cause)', () => {
    const check = new Checks(new Redactor(), (rule) => rule !== 'NFT-11');
    check.apply(judge(walk([], { cutAt: 0 })));
    assert.deepEqual(
      check.results.map((c) => [c.rule, c.verdict, c.message, c.evidence?.cause]),
      ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'RES-01'].map((r) => [
        r,
        'error',
        'could not check: budget: maxRequests (40) reached',
        'budget: maxRequests (40) reached',
      ]),
    );
  });
});
