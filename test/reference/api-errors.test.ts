// Bad input never crashes the API servers and always gets a JSON error: unknown paths, wrong
// methods, huge bodies, broken encodings, malformed ids, random junk. Latency applies to every
// answer; the error-body variant changes only the error shape.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { MAX_BODY_BYTES } from '../../reference/http/kit.js';
import { seededRandom } from '../../reference/http/kit.js';
import { call, rpcBody, startFixture, type Answer, type Fixture } from './api-http.js';

let f: Fixture;
before(async () => {
  f = await startFixture();
});
after(() => f.close());

function assertJsonError(a: Answer, status: number, where: string): void {
  assert.equal(a.status, status, `${where}: ${a.text}`);
  assert.match(String(a.headers['content-type']), /^application\/json/, where);
  assert.equal(typeof a.json?.error?.code, 'string', `${where}: ${a.text}`);
  assert.ok(!/\bat .+:\d+:\d+/.test(a.text), `${where}: stack trace in body`);
}

const nft = (rest: string) => `/nft/v1/chain-a/mainnet${rest}`;

describe('API errors', () => {
  const NOT_FOUND = [
    '/',
    '/nope',
    '/universal/v1',
    '/universal/v2/chain-a/mainnet/sync/block_number',
    '/nft/v1/chain-a/mainnet/event',
    '/nft/v1/chain-a/mainnet/event/x/y',
    nft('/collection/'),
    '/chain-a/mainnet/native/extra',
  ];
  for (const p of NOT_FOUND) {
    test(`unknown path ${p} -> 404 JSON`, async () => assertJsonError(await f.base(p), 404, p));
  }

  test('wrong methods -> 405 JSON with Allow', async () => {
    for (const [path, method, allow] of [
      ['/universal/v1/chain-a/mainnet/sync/block_number', 'POST', 'GET, HEAD'],
      [nft('/asset'), 'DELETE', 'GET, HEAD'],
      ['/chain-a/mainnet/native', 'PUT', 'POST'],
      ['/chain-a/mainnet/native', 'HEAD', 'POST'],
    ] as const) {
      const a = await f.base(path, { method });
      assert.equal(a.status, 405, `${method} ${path}`);
      assert.equal(a.headers.allow, allow);
      if (method !== 'HEAD') assertJsonError(a, 405, `${method} ${path}`);
    }
  });

  test('HEAD on a GET route answers the GET headers without a body', async () => {
    const a = await f.base('/universal/v1/chain-a/mainnet/sync/block_number', { method: 'HEAD' });
    assert.equal(a.status, 200);
    assert.equal(a.text, '');
    assert.ok(Number(a.headers['content-length']) > 0);
  });

  test('a body over the cap -> 413 JSON, and the server keeps serving', async () => {
    const a = await f.rpc('mainnet', 'x'.repeat(MAX_BODY_BYTES + 10));
    assertJsonError(a, 413, 'huge body');
    assert.equal((await f.rpc('mainnet', rpcBody('eth_chainId'))).json.result, '0x1');
  });

  test('broken percent-encoding in the path -> 400 JSON', async () => {
    assertJsonError(await f.base(nft('/event/%E0%A4%A')), 400, 'bad encoding');
  });

  test('malformed ids -> 400 JSON; unknown well-formed ids -> 404 JSON', async () => {
    const unknown = '11111111-1111-4111-8111-111111111111';
    for (const p of ['/event/', '/collection/', '/assets/rarity/']) {
      assertJsonError(await f.base(nft(`${p}not-a-uuid`)), 400, `${p} malformed`);
      assertJsonError(await f.base(nft(`${p}${unknown}`)), 404, `${p} unknown`);
    }
  });

  test('asset lookup: missing or malformed parameters -> 400; unknown token -> 404', async () => {
    const addr = `0x${'ab'.repeat(20)}`;
    for (const q of [
      '',
      `?contract_address=${addr}`,
      '?token_id=1',
      `?contract_address=xyz&token_id=1`,
      `?contract_address=${addr}&token_id=-1`,
    ]) {
      assertJsonError(await f.base(nft(`/asset${q}`)), 400, q);
    }
    assertJsonError(await f.base(nft(`/asset?contract_address=${addr}&token_id=1`)), 404, 'unknown contract');
  });

  test('NFT paths of a chain without NFT data -> 404 JSON', async () => {
    assertJsonError(await f.base(`/nft/v1/chain-b/mainnet/collection/${f.s.nft.collectionId}`), 404, 'chain-b');
  });

  test('random junk (seeded) never crashes the server: every answer is JSON with a status', async () => {
    const rnd = seededRandom(1234);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const junk = () =>
      Array.from({ length: Math.floor(rnd() * 40) }, () => String.fromCharCode(32 + Math.floor(rnd() * 95))).join('');
    const paths = [
      '/chain-a/mainnet/native',
      nft('/asset?'),
      nft('/event/'),
      nft(`/assets/rarity/${f.s.nft.collectionId}?page_token=`),
      '/universal/v1/',
    ];
    for (let i = 0; i < 150; i++) {
      const path = pick(paths) + encodeURIComponent(junk());
      const method = pick(['GET', 'POST']);
      const a = await f.base(path, { method, body: method === 'POST' ? junk() : undefined });
      assert.ok(a.status >= 200 && a.status < 600, path);
      if (a.status !== 204) assert.notEqual(a.json, undefined, `${method} ${path}: not JSON: ${a.text}`);
      assert.ok(a.status < 500, `${method} ${path}: ${a.status} ${a.text}`);
    }
  });

  test('a raw request with a garbage request line is answered or closed, and the server lives on', async () => {
    const { port } = new URL(f.s.baseUrl);
    await new Promise<void>((resolve) => {
      const sock = connect(Number(port), '127.0.0.1', () => sock.end('GARBAGE \x00\x01 HTTP/9.9\r\n\r\n'));
      sock.on('data', () => {});
      sock.on('close', () => resolve());
      sock.on('error', () => resolve());
      sock.setTimeout(2000, () => sock.destroy());
    });
    assert.equal((await f.base('/universal/v1/chain-a/mainnet/sync/block_number')).status, 200);
  });
});

describe('API answer options', () => {
  test('latency applies to every answer (base 40 ms, no jitter)', async () => {
    const g = await startFixture({ latency: { baseMs: 40, jitterMs: 0 } });
    try {
      for (const path of ['/universal/v1/chain-a/mainnet/sync/block_number', '/nope']) {
        const t0 = performance.now();
        await g.base(path);
        assert.ok(performance.now() - t0 >= 38, `${path} answered too fast`);
      }
      const t0 = performance.now();
      await call(`${g.s.baseUrl}/universal/v1/chain-a/mainnet/sync/block_number`);
      assert.ok(performance.now() - t0 >= 38, 'refusals are delayed too');
    } finally {
      await g.close();
    }
  });

  test('variant error-body-flat: errors are {code, message}; successes unchanged', async () => {
    const g = await startFixture({ variants: new Set(['error-body-flat']) });
    try {
      const a = await g.base('/nope');
      assert.equal(a.status, 404);
      assert.deepEqual(Object.keys(a.json).sort(), ['code', 'message']);
      assert.equal((await g.base('/universal/v1/chain-a/mainnet/sync/block_number')).status, 200);
    } finally {
      await g.close();
    }
  });
});
