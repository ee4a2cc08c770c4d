// Authentication of the reference API servers through real HTTP: every documented key usage
// works on every endpoint family, the open usages answer as documented in reference/api/auth.ts,
// refusals carry a JSON error and no data, and each variant changes exactly its observation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { API_KEY_USAGES, applyForm, type KeyUsage } from '../../src/auth/forms.js';
import { API_VARIANTS } from '../../reference/api/index.js';
import { call, startFixture, type Answer, type Fixture } from './api-http.js';
import { familyRequests } from './api-probes.js';

const UNKNOWN_KEY = 'not-a-real-key-5f0c1d2e3b4a';

/** Default answers for the open usages (AUTH-09..11), as reference/api/auth.ts documents them. */
const OPEN_DEFAULT: Record<string, 'accept' | 'refuse'> = {
  'AUTH-09': 'accept',
  'AUTH-10': 'refuse',
  'AUTH-11': 'refuse',
};

async function sendUsage(
  f: Fixture,
  u: KeyUsage,
  key = u.key === 'newKey' ? f.opts.credentials.apiKey : f.opts.credentials.legacyApiKey,
): Promise<{ name: string; answer: Answer }[]> {
  const root = u.base === 'base' ? f.s.baseUrl : f.s.legacyBaseUrl;
  return Promise.all(
    (await familyRequests(f)).map(async (r) => {
      const a = applyForm(u.form, key, root + r.path, r.init.headers ?? {});
      return { name: r.name, answer: await call(a.url, { ...r.init, headers: a.headers }) };
    }),
  );
}

function assertRefusal(a: Answer, status: number, where: string, secrets: string[]): void {
  assert.equal(a.status, status, `${where}: ${a.text}`);
  assert.match(String(a.headers['content-type']), /^application\/json/, where);
  assert.equal(typeof a.json?.error?.code, 'string', `${where}: error body ${a.text}`);
  assert.equal(typeof a.json.error.message, 'string', where);
  for (const s of secrets) assert.ok(!a.text.includes(s), `${where}: the answer echoes a key`);
}

describe('API authentication (default choices)', () => {
  let f: Fixture;
  before(async () => {
    f = await startFixture();
  });
  after(() => f.close());

  for (const u of API_KEY_USAGES) {
    const expect = u.expect === 'accept' ? 'accept' : OPEN_DEFAULT[u.rule];
    test(`${u.rule}: ${u.key} as ${u.form} on ${u.base} -> ${expect} on every family`, async () => {
      for (const { name, answer } of await sendUsage(f, u)) {
        if (expect === 'accept')
          assert.ok(answer.status >= 200 && answer.status < 300, `${name}: ${answer.status} ${answer.text}`);
        else assertRefusal(answer, 403, name, [f.opts.credentials.apiKey, f.opts.credentials.legacyApiKey]);
      }
    });
  }

  test('AUTH-07: no credentials -> 401 JSON with WWW-Authenticate, on both servers and every family', async () => {
    for (const root of [f.s.baseUrl, f.s.legacyBaseUrl]) {
      for (const r of await familyRequests(f)) {
        const a = await call(root + r.path, r.init);
        assertRefusal(a, 401, `${root} ${r.name}`, []);
        assert.equal(a.headers['www-authenticate'], 'Bearer');
      }
    }
  });

  test('AUTH-08: an unknown key in every accepted form -> 403 JSON, key not echoed', async () => {
    const usages = API_KEY_USAGES.filter((u) => u.expect === 'accept');
    for (const u of usages) {
      for (const { name, answer } of await sendUsage(f, u, UNKNOWN_KEY))
        assertRefusal(answer, 403, `${u.form} on ${u.base} ${name}`, [UNKNOWN_KEY]);
    }
  });

  test('apiKey is found anywhere in the query string, and the other parameters still apply', async () => {
    const key = f.opts.credentials.legacyApiKey;
    const path = `/nft/v1/${f.s.nft.protocol}/${f.s.nft.network}/assets/rarity/${f.s.nft.collectionId}`;
    for (const q of [
      `?apiKey=${key}&sort_by=rarity_rank&limit=2`,
      `?sort_by=rarity_rank&apiKey=${key}&limit=2`,
      `?sort_by=rarity_rank&limit=2&apiKey=${key}`,
    ]) {
      const a = await call(f.s.legacyBaseUrl + path + q);
      assert.equal(a.status, 200, q);
      assert.equal(a.json.data.length, 2, q);
    }
  });

  test('a non-Bearer Authorization or an empty key is refused as invalid credentials (401)', async () => {
    const url = `${f.s.baseUrl}/universal/v1/chain-a/mainnet/sync/block_number`;
    const cases: Record<string, string>[] = [
      { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { Authorization: 'Bearer' },
      { 'X-API-Key': '' },
    ];
    for (const headers of cases) {
      assertRefusal(await call(url, { headers }), 401, JSON.stringify(Object.keys(headers)), []);
    }
    assertRefusal(await call(`${url}?apiKey=`), 401, 'empty apiKey', []);
  });

  test('the first credential present decides: a wrong Bearer is not rescued by a right X-API-Key', async () => {
    const url = `${f.s.baseUrl}/universal/v1/chain-a/mainnet/sync/block_number`;
    const a = await call(url, {
      headers: { Authorization: `Bearer ${UNKNOWN_KEY}`, 'X-API-Key': f.opts.credentials.apiKey },
    });
    assertRefusal(a, 403, 'bearer first', [UNKNOWN_KEY]);
    const b = await call(url, {
      headers: { Authorization: `Bearer ${f.opts.credentials.apiKey}`, 'X-API-Key': UNKNOWN_KEY },
    });
    assert.equal(b.status, 200);
  });

  test('every request is counted per server', async () => {
    const before = { base: f.opts.counters.of('base'), legacy: f.opts.counters.of('legacy') };
    await f.base('/universal/v1/chain-a/mainnet/sync/block_number');
    await f.base('/nope');
    await f.legacy('/universal/v1/chain-a/mainnet/sync/block_number');
    assert.equal(f.opts.counters.of('base') - before.base, 2);
    assert.equal(f.opts.counters.of('legacy') - before.legacy, 1);
  });
});

/** Each auth variant changes one observation and keeps every documented usage working. */
const AUTH_VARIANT_CASES: { variant: string; usage: KeyUsage | 'missing'; status: number }[] = [
  { variant: 'missing-credentials-403', usage: 'missing', status: 403 },
  { variant: 'new-key-query-refused', usage: API_KEY_USAGES.find((u) => u.rule === 'AUTH-09')!, status: 403 },
  {
    variant: 'cross-generation-accepted',
    usage: API_KEY_USAGES.find((u) => u.rule === 'AUTH-10' && u.base === 'legacy')!,
    status: 200,
  },
  {
    variant: 'cross-generation-accepted',
    usage: API_KEY_USAGES.find((u) => u.rule === 'AUTH-10' && u.base === 'base')!,
    status: 200,
  },
  { variant: 'legacy-xapikey-accepted', usage: API_KEY_USAGES.find((u) => u.rule === 'AUTH-11')!, status: 200 },
];

describe('API authentication variants', () => {
  for (const c of AUTH_VARIANT_CASES) {
    const label = c.usage === 'missing' ? 'no credentials' : `${c.usage.key} as ${c.usage.form} on ${c.usage.base}`;
    test(`${c.variant}: ${label} -> ${c.status}`, async () => {
      assert.ok(API_VARIANTS.some((v) => v.name === c.variant));
      const f = await startFixture({ variants: new Set([c.variant]) });
      try {
        if (c.usage === 'missing') {
          for (const r of await familyRequests(f))
            assert.equal((await call(f.s.baseUrl + r.path, r.init)).status, c.status, r.name);
        } else {
          for (const { name, answer } of await sendUsage(f, c.usage))
            assert.equal(answer.status, c.status, `${name}: ${answer.text}`);
        }
        for (const u of API_KEY_USAGES.filter((x) => x.expect === 'accept')) {
          for (const { name, answer } of await sendUsage(f, u))
            assert.ok(answer.status < 300, `${u.rule} ${name} broken by ${c.variant}`);
        }
      } finally {
        await f.close();
      }
    });
  }
});
