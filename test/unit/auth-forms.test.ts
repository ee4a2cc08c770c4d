import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACCEPTED_KEY_FORMS,
  API_KEY_USAGES,
  AUTH_FORMS,
  CREDENTIAL_HEADERS,
  CREDENTIAL_QUERY_PARAMS,
  NODE_TOKEN_USAGES,
  applyForm,
  withQueryParam,
  type FormId,
} from '../../src/auth/forms.js';
import { isRuleId, ruleById } from '../../src/rules/catalogue.js';

const KEY = 'k3y-V4lue_0123456789';

// Methods 1 of the description: `?` when the URL has no query string, `&` when it has one.
const JOINS: { url: string; name: string; value: string; want: string; why: string }[] = [
  {
    url: 'https://api.example.invalid/nft/v1/p/n/event/e1',
    name: 'apiKey',
    value: KEY,
    want: `https://api.example.invalid/nft/v1/p/n/event/e1?apiKey=${KEY}`,
    why: 'no query: ?',
  },
  {
    url: 'https://api.example.invalid/nft/v1/p/n/asset?contract_address=0xc&token_id=1',
    name: 'apiKey',
    value: KEY,
    want: `https://api.example.invalid/nft/v1/p/n/asset?contract_address=0xc&token_id=1&apiKey=${KEY}`,
    why: 'existing query: &',
  },
  {
    url: 'https://api.example.invalid/x?',
    name: 'apiKey',
    value: KEY,
    want: `https://api.example.invalid/x?apiKey=${KEY}`,
    why: 'trailing ?: nothing added',
  },
  {
    url: 'https://api.example.invalid/x?a=1&',
    name: 'apiKey',
    value: KEY,
    want: `https://api.example.invalid/x?a=1&apiKey=${KEY}`,
    why: 'trailing &: nothing added',
  },
  {
    url: 'https://api.example.invalid/x#frag',
    name: 'apiKey',
    value: KEY,
    want: `https://api.example.invalid/x?apiKey=${KEY}#frag`,
    why: 'fragment stays last',
  },
  {
    url: 'https://api.example.invalid/x?a=1#frag?b',
    name: 'apiKey',
    value: KEY,
    want: `https://api.example.invalid/x?a=1&apiKey=${KEY}#frag?b`,
    why: 'a ? inside the fragment does not count',
  },
  {
    url: 'https://node.example.invalid/fee_stats',
    name: 'auth',
    value: KEY,
    want: `https://node.example.invalid/fee_stats?auth=${KEY}`,
    why: 'auth, no query: ?',
  },
  {
    url: 'https://node.example.invalid/consensus_rpc?x=1',
    name: 'auth',
    value: KEY,
    want: `https://node.example.invalid/consensus_rpc?x=1&auth=${KEY}`,
    why: 'auth, existing query: &',
  },
  {
    url: 'https://node.example.invalid/v1/blocks/by_height/1',
    name: 'auth',
    value: 'a b&c=d/+',
    want: 'https://node.example.invalid/v1/blocks/by_height/1?auth=a%20b%26c%3Dd%2F%2B',
    why: 'value is URL-encoded',
  },
];

for (const j of JOINS) {
  test(`withQueryParam: ${j.why}`, () => {
    assert.equal(withQueryParam(j.url, j.name, j.value), j.want);
  });
}

test('the joined parameter reads back as the value and the other parameters are intact (AUTH-06)', () => {
  const u = new URL(
    withQueryParam(
      'https://api.example.invalid/nft/v1/p/n/assets/rarity/c?sort_by=rarity_rank&page_token=abc%3D',
      'apiKey',
      'x&y=z',
    ),
  );
  assert.equal(u.searchParams.get('apiKey'), 'x&y=z');
  assert.equal(u.searchParams.get('sort_by'), 'rarity_rank');
  assert.equal(u.searchParams.get('page_token'), 'abc=');
});

// What each transport must do to a request, checked for every form of the table.
const BASE = 'https://api.example.invalid/universal/v1/p/n/sync/block_number';
const WITH_QUERY = `${BASE}?x=1`;

for (const form of Object.values(AUTH_FORMS)) {
  test(`applyForm(${form.id}) puts the credential where the description says (${form.source})`, () => {
    if (form.transport === 'grpc-metadata') {
      assert.throws(() => applyForm(form.id, KEY, BASE), /gRPC metadata, not an HTTP form/);
      return;
    }
    const plain = applyForm(form.id, KEY, BASE, { Accept: 'application/json' });
    const joined = applyForm(form.id, KEY, WITH_QUERY);
    if (form.transport === 'query') {
      assert.equal(plain.url, `${BASE}?${form.name}=${KEY}`);
      assert.equal(joined.url, `${WITH_QUERY}&${form.name}=${KEY}`);
      assert.deepEqual(plain.headers, { Accept: 'application/json' });
    } else {
      assert.equal(plain.url, BASE);
      assert.equal(joined.url, WITH_QUERY);
      assert.deepEqual(plain.headers, { Accept: 'application/json', [form.name]: form.value(KEY) });
      assert.ok(form.value(KEY).endsWith(KEY));
    }
  });
}

test('applyForm does not change the headers it is given', () => {
  const headers = { Accept: 'application/json' };
  applyForm('bearer', KEY, BASE, headers);
  assert.deepEqual(headers, { Accept: 'application/json' });
});

test('the form table holds every credential form of the description', () => {
  const byName = (transport: string) =>
    Object.values(AUTH_FORMS)
      .filter((f) => f.transport === transport)
      .map((f) => f.name);
  assert.equal(AUTH_FORMS.bearer.value(KEY), `Bearer ${KEY}`);
  assert.equal(AUTH_FORMS.bearer.name, 'Authorization');
  // X-API-Key in several letter cases (AUTH-03)
  const apiKeyCases = byName('header').filter((n) => n.toLowerCase() === 'x-api-key');
  assert.ok(new Set(apiKeyCases).size >= 4, apiKeyCases.join(','));
  assert.deepEqual([...new Set(byName('query'))].sort(), ['apiKey', 'auth']);
  assert.deepEqual(byName('ws-header'), ['X-Auth-Token', 'Authorization']);
  assert.deepEqual(
    byName('grpc-metadata').map((n) => n.toLowerCase()),
    ['x-auth-token', 'authorization'],
  );
  assert.ok(byName('header').includes('X-Auth-Token'));
  for (const [id, form] of Object.entries(AUTH_FORMS)) assert.equal(form.id, id);
});

test('the redactor knows every credential header and query parameter the forms use', () => {
  for (const form of Object.values(AUTH_FORMS)) {
    if (form.transport === 'query')
      assert.ok((CREDENTIAL_QUERY_PARAMS as readonly string[]).includes(form.name), form.id);
    else assert.ok((CREDENTIAL_HEADERS as readonly string[]).includes(form.name.toLowerCase()), form.id);
  }
});

test('the usage matrices name only real rule ids and known forms; documented forms are must rules', () => {
  const usages = [...API_KEY_USAGES, ...NODE_TOKEN_USAGES];
  for (const u of usages) {
    assert.ok(isRuleId(u.rule), `${u.rule} is not in the catalogue`);
    assert.ok(u.form in AUTH_FORMS, u.form);
    if (u.expect === 'accept')
      assert.equal(ruleById(u.rule).kind, 'must', `${u.rule} (${u.form}) is documented, so a must rule`);
  }
  for (const u of API_KEY_USAGES) assert.ok(u.rule.startsWith('AUTH-'), u.rule);
  for (const u of NODE_TOKEN_USAGES) assert.ok(u.rule.startsWith('NAUTH-'), u.rule);
  // Each API-key usage appears once.
  const keys = API_KEY_USAGES.map((u) => `${u.key}/${u.base}/${u.form}`);
  assert.equal(new Set(keys).size, keys.length);
  const paths = NODE_TOKEN_USAGES.map((u) => `${u.path}/${u.form}`);
  assert.equal(new Set(paths).size, paths.length);
});

test('the accepted key forms are exactly the documented (accept) forms of each key on its own base', () => {
  for (const [key, forms] of Object.entries(ACCEPTED_KEY_FORMS) as [string, FormId[]][]) {
    const ownBase = key === 'newKey' ? 'base' : 'legacy';
    const documented = API_KEY_USAGES.filter((u) => u.key === key && u.base === ownBase && u.expect === 'accept').map(
      (u) => u.form,
    );
    for (const f of forms) assert.ok(documented.includes(f), `${key}: ${f}`);
  }
  assert.deepEqual([...ACCEPTED_KEY_FORMS.newKey].sort(), ['bearer', 'x-api-key']);
  assert.deepEqual([...ACCEPTED_KEY_FORMS.legacyKey].sort(), ['apikey-query', 'bearer']);
});

test('every node path has its documented form as accept', () => {
  const accepted = (path: string) =>
    NODE_TOKEN_USAGES.filter((u) => u.path === path && u.expect === 'accept')
      .map((u) => u.form)
      .sort();
  assert.deepEqual(accepted('blockRest'), ['auth-query', 'bearer', 'x-auth-token']);
  for (const path of ['appRest', 'consensusRpc', 'consensusRest', 'feeStats'])
    assert.deepEqual(accepted(path), ['auth-query'], path);
  assert.deepEqual(accepted('websocket'), ['ws-x-auth-token']);
  assert.deepEqual(accepted('grpc'), ['grpc-metadata']);
});
