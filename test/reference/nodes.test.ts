// The reference's dedicated nodes (block-by-height REST and chain B) driven through real clients:
// every documented endpoint in every token form answers, refusals carry no data, and the
// simulated heads move with the injected clock.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { applyForm, NODE_TOKEN_USAGES, type NodePath } from '../../src/auth/forms.js';
import { GrpcCallError, isReflectionService, listServicesByReflection } from '../../src/clients/grpc-reflection.js';
import { probeWebSocket } from '../../src/clients/websocket.js';
import { defaultOptions, type ReferenceOptions } from '../../reference/options.js';
import {
  BLOCK_REST_BLOCK_MS,
  BLOCK_REST_CHAIN,
  blockRestChain,
  startBlockRestNode,
} from '../../reference/nodes/block-rest.js';
import { CHAIN_B_ID, chainBChain, startChainBNode } from '../../reference/nodes/chain-b.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';

interface Answer {
  status: number;
  type: string;
  body: unknown;
  text: string;
}

async function http(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let body: unknown;
  if (type.startsWith('application/json')) body = JSON.parse(text);
  return { status: res.status, type, body, text };
}

const CLOCK_START = Date.UTC(2025, 0, 1, 12, 0, 0);
const JSON_HEADERS = { 'Content-Type': 'application/json' };

let clock = CLOCK_START;
const opts: ReferenceOptions = defaultOptions({ now: () => clock });
const tokens = opts.credentials;
const blockRestHead = () => blockRestChain(opts.seed, opts.now).headOf(BLOCK_REST_CHAIN);
const chainBHead = () => chainBChain(opts.seed, opts.now).headOf(CHAIN_B_ID);
let blockRest: Awaited<ReturnType<typeof startBlockRestNode>>;
let chainB: Awaited<ReturnType<typeof startChainBNode>>;

before(async () => {
  blockRest = await startBlockRestNode(opts);
  chainB = await startChainBNode(opts);
});
after(async () => {
  await blockRest.close();
  await chainB.close();
});

/** One documented request per chain B REST path, with the token applied in a given form. */
function chainBRequest(
  path: NodePath,
  form: Parameters<typeof applyForm>[0],
  token: string,
  id = 7,
): [string, RequestInit] {
  const spec: Record<string, { path: string; init: RequestInit }> = {
    appRest: { path: '/app_rest/node_info', init: { headers: JSON_HEADERS } },
    consensusRpc: {
      path: '/consensus_rpc',
      init: { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ method: 'status', params: [], id }) },
    },
    consensusRest: { path: '/consensus_rest/status', init: { method: 'POST', headers: JSON_HEADERS } },
  };
  const s = spec[path];
  assert.ok(s, `no request for ${path}`);
  const { url, headers } = applyForm(
    form,
    token,
    `${chainB.endpoint}${s.path}`,
    s.init.headers as Record<string, string>,
  );
  return [url, { ...s.init, headers }];
}

describe('block-by-height REST node', () => {
  const byHeight = (h: string | number) => `${blockRest.endpoint}/v1/blocks/by_height/${h}`;

  for (const usage of NODE_TOKEN_USAGES.filter((u) => u.path === 'blockRest')) {
    test(`${usage.rule}: token as ${usage.form} gets a JSON block`, async () => {
      const { url, headers } = applyForm(usage.form, tokens.blockRestToken, byHeight(1), JSON_HEADERS);
      const a = await http(url, { headers });
      assert.equal(a.status, 200);
      assert.match(a.type, /^application\/json/);
      const block = a.body as Record<string, string>;
      assert.equal(block.block_height, '1');
      assert.match(block.block_hash ?? '', /^0x[0-9a-f]{64}$/);
      assert.match(block.block_timestamp ?? '', /^\d+$/);
    });
  }

  test('heights 0..head exist, head+1 does not until the clock moves on', async () => {
    const head = blockRestHead();
    const auth = { 'X-Auth-Token': tokens.blockRestToken };
    assert.equal((await http(byHeight(0), { headers: auth })).status, 200);
    const atHead = await http(byHeight(head), { headers: auth });
    assert.equal((atHead.body as { block_height: string }).block_height, String(head));
    const ahead = await http(byHeight(head + 1), { headers: auth });
    assert.equal(ahead.status, 404);
    assert.equal((ahead.body as { error_code: string }).error_code, 'block_not_found');
    clock += BLOCK_REST_BLOCK_MS * 2;
    try {
      assert.equal((await http(byHeight(head + 1), { headers: auth })).status, 200);
    } finally {
      clock = CLOCK_START;
    }
  });

  test('the same height always gives the same block; consecutive blocks chain their versions', async () => {
    const auth = { 'X-Auth-Token': tokens.blockRestToken };
    const [a, b, c] = await Promise.all([10, 10, 11].map((h) => http(byHeight(h), { headers: auth })));
    assert.equal(a?.text, b?.text);
    const [x, y] = [a?.body, c?.body] as { first_version: string; last_version: string }[];
    assert.equal(Number(y?.first_version), Number(x?.last_version) + 1);
  });

  for (const bad of ['abc', '-1', '1.5', '99999999999999999999', '%zz']) {
    test(`bad height ${bad} -> 400 JSON`, async () => {
      const a = await http(byHeight(bad), { headers: { 'X-Auth-Token': tokens.blockRestToken } });
      assert.equal(a.status, 400);
      assert.match(a.type, /^application\/json/);
    });
  }

  const refusals: [string, Record<string, string>, string, number][] = [
    ['no token', {}, '', 401],
    ['wrong token', { 'X-Auth-Token': 'not-the-token' }, '', 403],
    ['wrong Bearer', { Authorization: 'Bearer not-the-token' }, '', 403],
    ['wrong auth query', {}, '?auth=not-the-token', 403],
    ['token in an unknown header', { 'X-API-Key': 'ref-node-a-token-5c1e9b7d3f2a' }, '', 401],
  ];
  for (const [name, headers, query, status] of refusals) {
    test(`NAUTH-07: ${name} -> ${status} JSON and no block`, async () => {
      const a = await http(`${byHeight(1)}${query}`, { headers });
      assert.equal(a.status, status);
      assert.match(a.type, /^application\/json/);
      assert.ok(!a.text.includes('block_hash'));
    });
  }

  test('requests are counted and latency applies', async () => {
    const slowOpts = defaultOptions({ latency: { baseMs: 60, jitterMs: 0 } });
    const slow = await startBlockRestNode(slowOpts);
    try {
      const t0 = performance.now();
      const a = await http(`${slow.endpoint}/v1/blocks/by_height/1?auth=${slowOpts.credentials.blockRestToken}`);
      assert.equal(a.status, 200);
      assert.ok(performance.now() - t0 >= 55, 'latency applied');
      assert.equal(slowOpts.counters.of('blockRest'), 1);
    } finally {
      await slow.close();
    }
  });
});

describe('chain B REST paths', () => {
  for (const usage of NODE_TOKEN_USAGES.filter((u) => ['appRest', 'consensusRpc', 'consensusRest'].includes(u.path))) {
    test(`${usage.rule}: ${usage.path} with ${usage.form} (${usage.expect}) answers 2xx JSON`, async () => {
      const a = await http(...chainBRequest(usage.path, usage.form, tokens.chainBToken));
      assert.equal(a.status, 200, a.text);
      assert.match(a.type, /^application\/json/);
      if (usage.path === 'consensusRpc') assert.equal((a.body as { id: number }).id, 7);
    });
  }

  test('variant chainb-query-only: headers are refused there, the auth query still works', async () => {
    const variantOpts = defaultOptions({ variants: new Set(['chainb-query-only']) });
    const node = await startChainBNode(variantOpts);
    try {
      const token = variantOpts.credentials.chainBToken;
      const base = `${node.endpoint}/app_rest/node_info`;
      assert.equal((await http(`${base}?auth=${token}`)).status, 200);
      assert.equal((await http(base, { headers: { Authorization: `Bearer ${token}` } })).status, 401);
      assert.equal((await http(base, { headers: { 'X-Auth-Token': token } })).status, 401);
    } finally {
      await node.close();
    }
  });

  test('node_info describes the node', async () => {
    const a = await http(...chainBRequest('appRest', 'auth-query', tokens.chainBToken));
    const info = a.body as { default_node_info: { network: string }; application_version: { version: string } };
    assert.equal(info.default_node_info.network, 'chain-b-1');
    assert.ok(info.application_version.version);
  });

  const rpc = (body: string) =>
    http(`${chainB.endpoint}/consensus_rpc?auth=${tokens.chainBToken}`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body,
    });

  test('NODE-04: consensus RPC echoes number and string ids; status carries the head', async () => {
    for (const id of [7, 0, 'abc-1']) {
      const a = await rpc(JSON.stringify({ method: 'status', params: [], id }));
      const reply = a.body as { jsonrpc: string; id: unknown; result: { sync_info: { latest_block_height: string } } };
      assert.equal(reply.jsonrpc, '2.0');
      assert.equal(reply.id, id);
      assert.equal(reply.result.sync_info.latest_block_height, String(chainBHead()));
    }
  });

  test('consensus RPC: other methods, errors keep the id, parse errors get id null', async () => {
    const block = (await rpc(JSON.stringify({ method: 'block', params: ['3'], id: 1 }))).body as {
      result: { block: { header: { height: string } } };
    };
    assert.equal(block.result.block.header.height, '3');
    const health = (await rpc(JSON.stringify({ method: 'health', params: [], id: 2 }))).body as { result: unknown };
    assert.deepEqual(health.result, {});
    const unknown = (await rpc(JSON.stringify({ method: 'no_such', params: [], id: 3 }))).body as {
      id: number;
      error: { code: number };
    };
    assert.deepEqual([unknown.id, unknown.error.code], [3, -32601]);
    const future = (await rpc(JSON.stringify({ method: 'block', params: [String(chainBHead() + 5)], id: 4 }))).body as {
      error: { code: number };
    };
    assert.equal(future.error.code, -32603);
    const parse = await rpc('{"method":');
    assert.equal(parse.status, 400);
    assert.deepEqual((parse.body as { id: null; error: { code: number } }).id, null);
    const batch = (
      await rpc(
        JSON.stringify([
          { method: 'health', id: 1 },
          { method: 'status', id: 2 },
        ]),
      )
    ).body as { id: number }[];
    assert.deepEqual(
      batch.map((r) => r.id),
      [1, 2],
    );
  });

  test('consensus REST answers GET too, and block by query height', async () => {
    const a = await http(`${chainB.endpoint}/consensus_rest/block?height=2&auth=${tokens.chainBToken}`);
    assert.equal((a.body as { result: { block: { header: { height: string } } } }).result.block.header.height, '2');
    const s = await http(`${chainB.endpoint}/consensus_rest/status?auth=${tokens.chainBToken}`);
    assert.equal(s.status, 200);
  });

  for (const path of ['appRest', 'consensusRpc', 'consensusRest'] as const) {
    for (const [name, token, status] of [
      ['missing', '', 401],
      ['wrong', 'not-the-token', 403],
    ] as const) {
      test(`NAUTH-07: ${path} with a ${name} token -> ${status} JSON, no data`, async () => {
        const [url, init] = chainBRequest(path, 'auth-query', token);
        const a = await http(token ? url : url.replace(/[?&]auth=$/, ''), init);
        assert.equal(a.status, status);
        assert.match(a.type, /^application\/json/);
        assert.ok(!('result' in (a.body as object)) && !a.text.includes('node_info'));
      });
    }
  }
});

describe('chain B WebSocket', () => {
  test('NAUTH-05/NODE-02: X-Auth-Token upgrades, ping gets pong, JSON-RPC message gets a reply', async () => {
    const r = await probeWebSocket({
      url: chainB.websocketUrl,
      headers: { 'X-Auth-Token': tokens.chainBToken },
      timeoutMs: SLOW_MACHINE_MS,
      message: JSON.stringify({ jsonrpc: '2.0', method: 'status', params: [], id: 11 }),
    });
    assert.equal(r.error, undefined);
    assert.equal(r.upgraded, true);
    assert.equal(r.status, 101);
    assert.ok(r.pongMs !== undefined && r.pongMs >= 0);
    const reply = JSON.parse(r.reply ?? '{}') as { id: number; result: { node_info: unknown } };
    assert.equal(reply.id, 11);
    assert.ok(reply.result.node_info);
  });

  for (const [name, headers, status] of [
    ['no token', {}, 401],
    ['wrong token', { 'X-Auth-Token': 'not-the-token' }, 403],
  ] as const) {
    test(`NAUTH-07: upgrade with ${name} is refused with ${status}, nothing received`, async () => {
      const r = await probeWebSocket({ url: chainB.websocketUrl, headers, timeoutMs: SLOW_MACHINE_MS });
      assert.deepEqual([r.upgraded, r.status, r.serverMessages, r.pongMs], [false, status, 0, undefined]);
    });
  }

  test('another path is not a WebSocket', async () => {
    const r = await probeWebSocket({
      url: chainB.websocketUrl.replace('/websocket', '/ws'),
      headers: { 'X-Auth-Token': tokens.chainBToken },
      timeoutMs: SLOW_MACHINE_MS,
    });
    assert.deepEqual([r.upgraded, r.status], [false, 404]);
  });
});

describe('chain B gRPC', () => {
  const NODE_PROTO = fileURLToPath(new URL('../../reference/nodes/proto/chainb_node.proto', import.meta.url));
  type Unary = (
    req: object,
    md: grpc.Metadata,
    opts: grpc.CallOptions,
    cb: (e: grpc.ServiceError | null, r: Record<string, unknown>) => void,
  ) => void;
  let client: grpc.Client & Record<string, Unary>;

  before(() => {
    const def = protoLoader.loadSync(NODE_PROTO, { keepCase: true, longs: String, defaults: true });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      chainb: { node: { v1: { NodeService: grpc.ServiceClientConstructor } } };
    };
    client = new pkg.chainb.node.v1.NodeService(chainB.grpcAddress, grpc.credentials.createInsecure()) as typeof client;
  });
  after(() => client.close());

  const unary = (method: string, req: object, token?: string) =>
    new Promise<{ code: number; reply?: Record<string, unknown> }>((resolve) => {
      const md = new grpc.Metadata();
      if (token !== undefined) md.set('x-auth-token', token);
      client[method]!.call(client, req, md, { deadline: Date.now() + SLOW_MACHINE_MS }, (e, reply) =>
        resolve(e ? { code: e.code } : { code: grpc.status.OK, reply }),
      );
    });

  for (const version of ['v1', 'v1alpha'] as const) {
    test(`NAUTH-06/NODE-06: reflection ${version} with x-auth-token lists the node service`, async () => {
      const names = await listServicesByReflection({
        address: chainB.grpcAddress,
        tls: false,
        metadata: { 'x-auth-token': tokens.chainBToken },
        deadlineMs: SLOW_MACHINE_MS,
        versions: [version],
      });
      assert.ok(names.includes('chainb.node.v1.NodeService'), names.join(','));
      assert.ok(names.some(isReflectionService));
      assert.ok(names.filter((n) => !isReflectionService(n)).length >= 1);
    });
    for (const [name, metadata] of [
      ['no token', {}],
      ['wrong token', { 'x-auth-token': 'not-the-token' }],
    ] as const) {
      test(`NAUTH-07: reflection ${version} with ${name} ends UNAUTHENTICATED`, async () => {
        await assert.rejects(
          listServicesByReflection({
            address: chainB.grpcAddress,
            tls: false,
            metadata,
            deadlineMs: SLOW_MACHINE_MS,
            versions: [version],
          }),
          (e: unknown) =>
            e instanceof GrpcCallError &&
            e.code === grpc.status.UNAUTHENTICATED &&
            e.codeName === 'UNAUTHENTICATED' &&
            !e.message.includes('\n'),
        );
      });
    }
  }

  test('node service answers with the token and refuses without', async () => {
    const info = await unary('GetNodeInfo', {}, tokens.chainBToken);
    assert.equal(info.code, grpc.status.OK);
    assert.equal(info.reply?.network, 'chain-b-1');
    const latest = await unary('GetLatestBlock', {}, tokens.chainBToken);
    assert.equal((latest.reply?.block as { header: { height: string } }).header.height, String(chainBHead()));
    const two = await unary('GetBlockByHeight', { height: 2 }, tokens.chainBToken);
    assert.equal((two.reply?.block as { header: { height: string } }).header.height, '2');
    assert.equal(
      (await unary('GetBlockByHeight', { height: chainBHead() + 1 }, tokens.chainBToken)).code,
      grpc.status.NOT_FOUND,
    );
    assert.equal((await unary('GetNodeInfo', {})).code, grpc.status.UNAUTHENTICATED);
    assert.equal((await unary('GetNodeInfo', {}, 'not-the-token')).code, grpc.status.UNAUTHENTICATED);
  });

  test('every gRPC call and upgrade is counted', () => {
    assert.ok(opts.counters.of('grpc') >= 6);
    assert.ok(opts.counters.of('websocket') >= 3);
    assert.ok(opts.counters.of('chainB') >= 10);
  });
});
