import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTH_FORMS, applyForm, withQueryParam } from '../../src/auth/forms.js';
import { REDACTED_SUFFIX, Redactor, maskSecret } from '../../src/record/redact.js';
import { Recorder, curlOf } from '../../src/record/recorder.js';
import { nearMisses } from '../../src/auth/near-miss.js';

const NEW_KEY = 'nk_live_9QmZ3xY7wT2vB8pL';
const LEGACY_KEY = 'legacy0123456789abcdef';
const TOKEN = 'tok/en+with=chars&more?';
const SECRETS = [NEW_KEY, LEGACY_KEY, TOKEN];

/** Every form a secret can take in output: raw, URL-encoded, base64 (padded, unpadded, url-safe). */
const encodings = (s: string) => [
  s,
  encodeURIComponent(s),
  Buffer.from(s).toString('base64'),
  Buffer.from(s).toString('base64').replace(/=+$/, ''),
  Buffer.from(s).toString('base64url'),
];

/** Fails when any 8 consecutive characters of any encoding of any secret appear in the text. */
function assertNoSecret(text: string, secrets: readonly string[] = SECRETS): void {
  for (const s of secrets) {
    for (const form of encodings(s)) {
      for (let i = 0; i + 8 <= form.length; i++) {
        const piece = form.slice(i, i + 8);
        assert.ok(!text.includes(piece), `output shows "${piece}" of a secret: ${text}`);
      }
    }
  }
}

const redactor = () => new Redactor(SECRETS);

test('maskSecret keeps at most 4 leading characters, and none of a short secret', () => {
  for (let len = 0; len <= 64; len++) {
    const secret = Array.from({ length: len }, (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789'[(i * 7) % 36]).join('');
    const masked = maskSecret(secret);
    assert.ok(masked.endsWith(REDACTED_SUFFIX));
    const kept = masked.slice(0, -REDACTED_SUFFIX.length);
    assert.ok(kept.length <= 4, `${len}: kept ${kept.length}`);
    assert.ok(secret.startsWith(kept));
    if (len < 8) assert.equal(kept, '', `a ${len}-character secret keeps nothing`);
  }
});

// Every credential header, in several letter cases, known and unknown values.
const HEADER_NAMES = [
  ...new Set(
    Object.values(AUTH_FORMS)
      .filter((f) => f.transport === 'header' || f.transport === 'ws-header')
      .map((f) => f.name),
  ),
].flatMap((n) => [n, n.toLowerCase(), n.toUpperCase()]);

test('headers: every credential header is redacted by name, in any letter case, known secret or not', () => {
  const unknown = 'zz-unknown-credential-77';
  for (const name of HEADER_NAMES) {
    for (const secret of [...SECRETS, unknown]) {
      for (const value of [secret, `Bearer ${secret}`, `bearer ${secret}`]) {
        const out = redactor().headers({ [name]: value });
        assert.deepEqual(Object.keys(out), [name]);
        assertNoSecret(out[name]!, [...SECRETS, unknown]);
        if (/^bearer /i.test(value)) assert.match(out[name]!, /^bearer /i, 'the scheme stays readable');
      }
    }
  }
});

test('headers: a known secret in any other header is redacted; arrays are joined; undefined dropped', () => {
  const out = redactor().headers({
    Location: `https://api.example.invalid/x?apiKey=${NEW_KEY}`,
    'Set-Cookie': [`s=${LEGACY_KEY}; Path=/`, 'other=1'],
    'X-Echo': Buffer.from(TOKEN).toString('base64'),
    'Content-Type': 'application/json',
    Gone: undefined,
  });
  assertNoSecret(JSON.stringify(out));
  assert.equal(out['Content-Type'], 'application/json');
  assert.ok(out['Set-Cookie']!.includes('other=1'));
  assert.ok(!('Gone' in out));
});

test('URLs: apiKey and auth parameters are redacted by name and by value, joined with ? or &', () => {
  const unknown = 'not-a-known-key-123456';
  const urls = [
    withQueryParam('https://api.example.invalid/nft/v1/p/n/event/e', 'apiKey', NEW_KEY),
    withQueryParam(
      'https://api.example.invalid/nft/v1/p/n/asset?contract_address=0xc&token_id=1',
      'apiKey',
      LEGACY_KEY,
    ),
    withQueryParam('https://node.example.invalid/fee_stats', 'auth', TOKEN),
    withQueryParam('https://node.example.invalid/consensus_rpc?x=1', 'auth', TOKEN),
    `https://api.example.invalid/x?APIKEY=${unknown}&y=2`,
    `https://api.example.invalid/x?Auth=${unknown}#frag`,
    `https://api.example.invalid/keys/${NEW_KEY}/x`,
    `https://api.example.invalid/x#${LEGACY_KEY}`,
    `https://api.example.invalid/x?apiKey=${encodeURIComponent(TOKEN)}&apiKey=${NEW_KEY}`,
  ];
  for (const u of urls) {
    const out = redactor().url(u);
    assertNoSecret(out, [...SECRETS, unknown]);
    assert.ok(out.startsWith(u.slice(0, u.indexOf('/', 8))), 'scheme and host stay');
  }
  const kept = redactor().url(
    withQueryParam('https://api.example.invalid/a?contract_address=0xc&token_id=1', 'apiKey', NEW_KEY),
  );
  assert.ok(kept.includes('contract_address=0xc&token_id=1&apiKey='), kept);
});

test('bodies: raw, URL-encoded and base64 forms of a secret are redacted', () => {
  const bodies = [
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: [NEW_KEY] }),
    `apiKey=${encodeURIComponent(TOKEN)}&other=1`,
    `token: ${Buffer.from(LEGACY_KEY).toString('base64')}`,
    `token: ${Buffer.from(TOKEN).toString('base64url')}`,
    `unpadded ${Buffer.from(NEW_KEY).toString('base64').replace(/=+$/, '')} end`,
    `twice ${NEW_KEY} and ${NEW_KEY}`,
  ];
  for (const b of bodies) assertNoSecret(redactor().text(b));
  assert.equal(redactor().text('nothing secret here'), 'nothing secret here');
});

test('value(): deep redaction of strings and credential-named keys', () => {
  const out = redactor().value({
    apiKey: 'unknown-but-named-credential',
    nested: { token: 'another-unknown-one-42', list: [`x ${NEW_KEY}`, { 'X-API-Key': LEGACY_KEY }] },
    count: 3,
    ok: true,
  });
  assertNoSecret(JSON.stringify(out), [...SECRETS, 'unknown-but-named-credential', 'another-unknown-one-42']);
  assert.equal(out.count, 3);
  assert.equal(out.ok, true);
});

test('with(): a redactor that also knows an extra value (a generated unknown key)', () => {
  const generated = 'generated-unknown-key-000111';
  const r = redactor().with([generated]);
  assertNoSecret(r.text(`${generated} ${NEW_KEY}`), [...SECRETS, generated]);
});

test('the recorder redacts every credential form in every part of an exchange, and curl shows none', () => {
  const recorder = new Recorder(redactor());
  const exchanges = Object.values(AUTH_FORMS)
    .filter((f) => f.transport !== 'grpc-metadata')
    .map((form) => {
      const secret = form.transport === 'query' && form.name === 'auth' ? TOKEN : NEW_KEY;
      const req = applyForm(
        form.id,
        secret,
        'https://api.example.invalid/nft/v1/p/n/asset?contract_address=0xc&token_id=1',
        { Accept: 'application/json' },
      );
      return recorder.record({
        purpose: `test[${form.id}]`,
        method: 'post',
        url: req.url,
        requestHeaders: req.headers,
        requestBody: JSON.stringify({ key: secret, legacy: LEGACY_KEY }),
        status: 401,
        responseHeaders: {
          'www-authenticate': `Bearer realm="${secret}"`,
          'X-Echo-Key': Buffer.from(secret).toString('base64'),
        },
        responseBody: `{"error":"bad key ${secret}"}`,
        sentAt: 1000,
        receivedAt: 1012.5,
        error: `request to ${req.url} failed`,
      });
    });
  assert.equal(exchanges.length, Object.values(AUTH_FORMS).filter((f) => f.transport !== 'grpc-metadata').length);
  for (const ex of exchanges) {
    assertNoSecret(JSON.stringify(ex));
    const curl = curlOf(ex);
    assertNoSecret(curl);
    assert.ok(curl.includes('$CHAINPROBE_CREDENTIAL'), curl);
    assert.ok(curl.includes('https://api.example.invalid/nft/v1/p/n/asset?contract_address=0xc&token_id=1'), curl);
    assert.equal(ex.method, 'POST');
    assert.equal(ex.durationMs, 12.5);
  }
  assert.deepEqual(
    exchanges.map((e) => e.seq),
    exchanges.map((_, i) => i + 1),
  );
  assertNoSecret(recorder.redact(`log line with ${TOKEN}`));
});

test('near misses of the run seed are secrets: masked in text, URLs (the parameter twice), headers, errors and curl', () => {
  const seed = 77;
  const recorder = new Recorder(new Redactor(SECRETS, seed));
  for (const secret of SECRETS) {
    for (const m of nearMisses(secret, seed, LEGACY_KEY)) {
      const req = applyForm('apikey-query', [m.value, secret], 'https://api.example.invalid/x?a=1');
      const ex = recorder.record({
        method: 'GET',
        url: req.url,
        requestHeaders: { Authorization: `Bearer ${m.value}`, 'X-Auth-Token': m.value },
        status: 403,
        responseBody: `{"error":"unknown key ${m.value}"}`,
        sentAt: 0,
        error: `request with ${m.value} failed`,
      });
      assertNoSecret(JSON.stringify(ex) + curlOf(ex), [...SECRETS, m.value.trim()]);
    }
  }
  // The seed is what makes them known: without it a near miss in free text would show.
  const caseChanged = nearMisses(NEW_KEY, seed).find((m) => m.kind === 'case-changed')!.value;
  assert.ok(new Redactor(SECRETS).text(`echo ${caseChanged}`).includes(caseChanged));
  assert.ok(!new Redactor(SECRETS, seed).text(`echo ${caseChanged}`).includes(caseChanged));
});
