// Universal block number and native JSON-RPC 2.0 of the reference, through real HTTP, with an
// injected clock so the chain head is exact: one head per network for both families, moving one
// block per 12 s; every JSON-RPC edge case the spec defines.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CHAIN_EPOCH_MS, createChain, DEFAULT_BLOCK_TIME_MS, startHeightOf } from '../../reference/chain.js';
import { NATIVE_NETWORKS, UNIVERSAL_NETWORKS, chainKey } from '../../reference/api/networks.js';
import { call, rpcBody, startFixture, type Fixture } from './api-http.js';

let clock = Date.UTC(2025, 5, 1, 12, 0, 0);
let f: Fixture;
const head = (protocol: string, network: string) =>
  createChain({ seed: f.opts.seed, now: () => clock }).headOf(chainKey(protocol, network));

before(async () => {
  f = await startFixture({ now: () => clock });
});
after(() => f.close());

describe('simulated chain', () => {
  test('head = seeded start height + whole blocks since the epoch; per network; same for equal seeds', () => {
    const chain = createChain({ seed: 7, now: () => CHAIN_EPOCH_MS + 5 * DEFAULT_BLOCK_TIME_MS + 1 });
    assert.equal(chain.headOf('chain-a/mainnet'), startHeightOf(7, 'chain-a/mainnet') + 5);
    assert.equal(
      createChain({ seed: 7, now: () => CHAIN_EPOCH_MS + 5 * DEFAULT_BLOCK_TIME_MS + 1 }).headOf('chain-a/mainnet'),
      chain.headOf('chain-a/mainnet'),
    );
    assert.notEqual(chain.headOf('chain-a/mainnet'), chain.headOf('chain-a/sepolia'));
    assert.notEqual(startHeightOf(7, 'chain-a/mainnet'), startHeightOf(8, 'chain-a/mainnet'));
    assert.equal(
      createChain({ seed: 7, now: () => 0 }).headOf('x'),
      startHeightOf(7, 'x'),
      'a clock before the epoch does not go below the start',
    );
  });
});

describe('universal block number', () => {
  test('every universal network answers {block_number: head}', async () => {
    for (const { protocol, network } of UNIVERSAL_NETWORKS) {
      const a = await f.base(`/universal/v1/${protocol}/${network}/sync/block_number`);
      assert.equal(a.status, 200);
      assert.deepEqual(a.json, { block_number: head(protocol, network) });
    }
  });

  test('advances with the clock, one block per 12 s, and agrees with the native head', async () => {
    const url = '/universal/v1/chain-a/mainnet/sync/block_number';
    const h0 = (await f.base(url)).json.block_number;
    clock += 3 * DEFAULT_BLOCK_TIME_MS;
    assert.equal((await f.base(url)).json.block_number, h0 + 3);
    const native = (await f.rpc('mainnet', rpcBody('eth_blockNumber'))).json.result;
    assert.equal(parseInt(native, 16), h0 + 3);
  });

  test('the optional apiKey query works on both servers with their keys', async () => {
    const path = '/universal/v1/chain-a/sepolia/sync/block_number';
    assert.equal((await call(`${f.s.legacyBaseUrl}${path}?apiKey=${f.opts.credentials.legacyApiKey}`)).status, 200);
    assert.equal((await call(`${f.s.baseUrl}${path}?apiKey=${f.opts.credentials.apiKey}`)).status, 200);
  });

  test('unknown protocol or network -> 404 JSON', async () => {
    for (const p of [
      '/universal/v1/chain-z/mainnet/sync/block_number',
      '/universal/v1/chain-a/goerli/sync/block_number',
    ]) {
      const a = await f.base(p);
      assert.equal(a.status, 404);
      assert.equal(a.json.error.code, 'unknown_network');
    }
  });
});

describe('native JSON-RPC', () => {
  test('eth_blockNumber, eth_chainId and net_version on every network', async () => {
    for (const n of NATIVE_NETWORKS) {
      const bn = (await f.rpc(n.name, rpcBody('eth_blockNumber', 1))).json;
      assert.deepEqual(bn, { jsonrpc: '2.0', id: 1, result: `0x${head('chain-a', n.name).toString(16)}` });
      assert.match(bn.result, /^0x[1-9a-f][0-9a-f]*$/);
      assert.equal((await f.rpc(n.name, rpcBody('eth_chainId', 2))).json.result, `0x${n.chainId.toString(16)}`);
      assert.equal((await f.rpc(n.name, rpcBody('net_version', 3))).json.result, String(n.chainId));
    }
  });

  test('ids are echoed exactly: 0, 1, 2^53-1, strings, null', async () => {
    for (const id of [0, 1, Number.MAX_SAFE_INTEGER, 'abc', '', '12', null]) {
      assert.deepEqual((await f.rpc('mainnet', rpcBody('eth_chainId', id))).json.id, id, JSON.stringify(id));
    }
  });

  const PARSE_ERRORS = ['', 'not json', '{"jsonrpc":"2.0",', '[1,', '{"id": 1} trailing'];
  for (const body of PARSE_ERRORS) {
    test(`not JSON ${JSON.stringify(body)} -> -32700 with id null`, async () => {
      const a = await f.rpc('mainnet', body);
      assert.equal(a.status, 200);
      assert.deepEqual(a.json, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    });
  }

  const INVALID: { name: string; req: unknown; id: unknown }[] = [
    { name: 'no method', req: { jsonrpc: '2.0', id: 4, params: [] }, id: 4 },
    { name: 'method not a string', req: { jsonrpc: '2.0', id: 5, method: 1 }, id: 5 },
    { name: 'no jsonrpc', req: { id: 6, method: 'eth_chainId' }, id: 6 },
    { name: 'jsonrpc 1.0', req: { jsonrpc: '1.0', id: 7, method: 'eth_chainId' }, id: 7 },
    { name: 'params a string', req: { jsonrpc: '2.0', id: 8, method: 'eth_chainId', params: 'x' }, id: 8 },
    { name: 'id an object', req: { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' }, id: null },
    { name: 'a number', req: 42, id: null },
    { name: 'null', req: null, id: null },
    { name: 'no method and no id', req: { jsonrpc: '2.0' }, id: null },
  ];
  for (const c of INVALID) {
    test(`invalid request (${c.name}) -> -32600`, async () => {
      const j = (await f.rpc('mainnet', JSON.stringify(c.req))).json;
      assert.equal(j.error.code, -32600);
      assert.equal(j.jsonrpc, '2.0');
      assert.deepEqual(j.id, c.id);
      assert.ok(!('result' in j));
    });
  }

  test('unknown method -> -32601 without result; extra arguments -> -32602', async () => {
    const j = (await f.rpc('mainnet', rpcBody('eth_noSuchThing', 9))).json;
    assert.deepEqual(j, { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'Method not found' } });
    assert.equal((await f.rpc('mainnet', rpcBody('eth_blockNumber', 10, ['latest']))).json.error.code, -32602);
  });

  test('batch: one answer per request that has an id, in order; notifications skipped', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      { jsonrpc: '2.0', id: 3 },
      7,
    ];
    const a = await f.rpc('sepolia', JSON.stringify(batch));
    assert.equal(a.status, 200);
    assert.deepEqual(
      a.json.map((r: { id: unknown; error?: { code: number }; result?: unknown }) => [r.id, r.error?.code ?? r.result]),
      [
        ['a', '0xaa36a7'],
        [2, -32601],
        [3, -32600],
        [null, -32600],
      ],
    );
  });

  test('empty batch -> one -32600 error, not an array', async () => {
    const j = (await f.rpc('mainnet', '[]')).json;
    assert.deepEqual(j, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request', data: 'empty batch' },
    });
  });

  test('notifications (and batches of only notifications, known or not) -> 204, empty body', async () => {
    for (const body of [
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', method: 'nope' },
      [
        { jsonrpc: '2.0', method: 'eth_chainId' },
        { jsonrpc: '2.0', method: 'x' },
      ],
    ]) {
      const a = await f.rpc('mainnet', JSON.stringify(body));
      assert.equal(a.status, 204);
      assert.equal(a.text, '');
    }
  });

  test('variant notification-200-empty: 200 with an empty body', async () => {
    const g = await startFixture({ variants: new Set(['notification-200-empty']) });
    try {
      const a = await g.rpc('mainnet', JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber' }));
      assert.equal(a.status, 200);
      assert.equal(a.headers['content-length'], '0');
    } finally {
      await g.close();
    }
  });

  test('variant batches-not-served: any non-empty batch gets one -32600 error object; [] still does', async () => {
    const g = await startFixture({ variants: new Set(['batches-not-served']) });
    try {
      for (const body of [`[${rpcBody('eth_chainId', 1)}]`, '[1,2]', '[]']) {
        const j = (await g.rpc('mainnet', body)).json;
        assert.ok(!Array.isArray(j), body);
        assert.deepEqual([j.error.code, j.id], [-32600, null], body);
      }
    } finally {
      await g.close();
    }
  });

  test('variant batch-limit-5: 5 requests are served, 6 get one -32600 error object', async () => {
    const g = await startFixture({ variants: new Set(['batch-limit-5']) });
    try {
      const batch = (n: number) => `[${Array.from({ length: n }, (_v, i) => rpcBody('eth_chainId', i)).join(',')}]`;
      assert.equal((await g.rpc('mainnet', batch(5))).json.length, 5);
      const j = (await g.rpc('mainnet', batch(6))).json;
      assert.deepEqual([Array.isArray(j), j.error?.code, j.id], [false, -32600, null]);
    } finally {
      await g.close();
    }
  });

  /** What each JSON-RPC fault changes, shown on the answer it changes. */
  const RPC_FAULT_ANSWERS: {
    fault: string;
    body: string;
    expect: (a: { status: number; text: string; json: any }) => void;
  }[] = [
    {
      fault: 'notification-answered',
      body: JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' }),
      expect: (a) => assert.deepEqual(a.json, { jsonrpc: '2.0', id: null, result: '0x1' }),
    },
    {
      fault: 'batch-notification-answered',
      body: JSON.stringify([JSON.parse(rpcBody('eth_chainId', 4)), { jsonrpc: '2.0', method: 'eth_chainId' }]),
      expect: (a) =>
        assert.deepEqual(a.json, [
          { jsonrpc: '2.0', id: 4, result: '0x1' },
          { jsonrpc: '2.0', id: null, result: '0x1' },
        ]),
    },
    {
      fault: 'batch-notification-answered',
      body: JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' }),
      expect: (a) => assert.deepEqual([a.status, a.text], [204, '']),
    },
    { fault: 'empty-batch-array', body: '[]', expect: (a) => assert.deepEqual(a.json, []) },
    {
      fault: 'batch-invalid-element-no-id',
      body: '[1,2]',
      expect: (a) => {
        assert.equal(a.json.length, 2);
        for (const r of a.json) assert.deepEqual([r.error.code, 'id' in r], [-32600, false]);
      },
    },
    {
      fault: 'error-code-string',
      body: rpcBody('eth_noSuchThing', 9),
      expect: (a) => assert.deepEqual(a.json.error, { code: '-32601', message: 'Method not found' }),
    },
  ];
  for (const c of RPC_FAULT_ANSWERS) {
    test(`fault ${c.fault}: ${c.body.slice(0, 40)}`, async () => {
      const g = await startFixture({ faults: new Set([c.fault]) });
      try {
        c.expect(await g.rpc('mainnet', c.body));
      } finally {
        await g.close();
      }
    });
  }

  test('Content-Type is not enforced (observed, not required): text/plain and none still answer', async () => {
    const cases: Record<string, string>[] = [{ 'Content-Type': 'text/plain' }, {}];
    for (const headers of cases) {
      assert.equal((await f.rpc('mainnet', rpcBody('eth_chainId'), headers)).json.result, '0x1');
    }
  });

  test('unknown network or protocol -> 404 JSON; GET -> 405 with Allow: POST', async () => {
    for (const p of ['/chain-a/goerli/native', '/chain-b/mainnet/native']) {
      const a = await f.base(p, { method: 'POST', body: rpcBody('eth_chainId') });
      assert.equal(a.status, 404);
      assert.equal(a.json.error.code, 'unknown_network');
    }
    const g = await f.base('/chain-a/mainnet/native');
    assert.equal(g.status, 405);
    assert.equal(g.headers.allow, 'POST');
  });
});
