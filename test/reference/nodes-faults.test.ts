// Each node fault, switched on, visibly changes what its rule describes, and nothing next to it:
// one table row per fault with the same observation taken on a conformant and a faulty reference.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyForm, type FormId } from '../../src/auth/forms.js';
import { checkHealth } from '../../src/clients/grpc-health.js';
import { GrpcCallError, isReflectionService, listServicesByReflection } from '../../src/clients/grpc-reflection.js';
import { probeWebSocket } from '../../src/clients/websocket.js';
import { ruleById } from '../../src/rules/catalogue.js';
import { NODE_FAULTS } from '../../reference/faults/nodes.js';
import { startBlockRestNode } from '../../reference/nodes/block-rest.js';
import { startChainBNode } from '../../reference/nodes/chain-b.js';
import { defaultOptions, type ReferenceOptions } from '../../reference/options.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';

interface Env {
  opts: ReferenceOptions;
  blockRest: Awaited<ReturnType<typeof startBlockRestNode>>;
  chainB: Awaited<ReturnType<typeof startChainBNode>>;
  close(): Promise<void>;
}

async function startEnv(faults: string[]): Promise<Env> {
  const opts = defaultOptions({ faults: new Set(faults) });
  const blockRest = await startBlockRestNode(opts);
  const chainB = await startChainBNode(opts);
  return { opts, blockRest, chainB, close: async () => void (await Promise.all([blockRest.close(), chainB.close()])) };
}

interface Seen {
  status: number;
  json: boolean;
  body: unknown;
}

async function see(url: string, init: RequestInit = {}): Promise<Seen> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  try {
    return {
      status: res.status,
      json: (res.headers.get('content-type') ?? '').startsWith('application/json'),
      body: JSON.parse(text),
    };
  } catch {
    return { status: res.status, json: false, body: undefined };
  }
}

const blockIn = (env: Env, form: FormId, token = env.opts.credentials.blockRestToken) => {
  const { url, headers } = applyForm(form, token, `${env.blockRest.endpoint}/v1/blocks/by_height/1`, {
    'Content-Type': 'application/json',
  });
  return see(url, { headers });
};
const chainBQuery = (env: Env, path: string, init: RequestInit = {}) =>
  see(`${env.chainB.endpoint}${path}?auth=${env.opts.credentials.chainBToken}`, init);
const rpcBody = (id: number) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ method: 'status', params: [], id }),
});
/** Far beyond an upgrade and a ping on a loaded machine; the fault without a pong waits it out. */
const WS_TIMEOUT_MS = 10_000;
const ws = (env: Env, headers: Record<string, string>, url = env.chainB.websocketUrl) =>
  probeWebSocket({ url, headers, timeoutMs: WS_TIMEOUT_MS });
const reflect = async (env: Env, metadata: Record<string, string>): Promise<string[] | string> => {
  try {
    return await listServicesByReflection({
      address: env.chainB.grpcAddress,
      tls: false,
      metadata,
      deadlineMs: SLOW_MACHINE_MS,
    });
  } catch (e) {
    return e instanceof GrpcCallError ? e.codeName : String(e);
  }
};

const health = async (env: Env, metadata: Record<string, string>): Promise<string> => {
  try {
    return await checkHealth({ address: env.chainB.grpcAddress, tls: false, metadata, deadlineMs: SLOW_MACHINE_MS });
  } catch (e) {
    return e instanceof GrpcCallError ? e.codeName : String(e);
  }
};

interface FaultCase {
  fault: string;
  /** The behaviour the rule describes, reduced to a small value. */
  observe(env: Env): Promise<unknown>;
  conformant: unknown;
  faulty: unknown;
}

const statusAndJson = (s: Seen) => [s.status, s.json];
const blockForms = async (env: Env) =>
  Promise.all((['bearer', 'x-auth-token', 'auth-query'] as const).map(async (f) => (await blockIn(env, f)).status));

const CASES: FaultCase[] = [
  { fault: 'blockrest-bearer-rejected', observe: blockForms, conformant: [200, 200, 200], faulty: [401, 200, 200] },
  { fault: 'blockrest-xauth-rejected', observe: blockForms, conformant: [200, 200, 200], faulty: [200, 401, 200] },
  { fault: 'blockrest-query-rejected', observe: blockForms, conformant: [200, 200, 200], faulty: [200, 200, 401] },
  {
    fault: 'chainb-query-rejected',
    observe: async (env) => [
      (await chainBQuery(env, '/app_rest/node_info')).status,
      (await chainBQuery(env, '/consensus_rpc', rpcBody(1))).status,
      (
        await chainBQuery(env, '/consensus_rest/status', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        })
      ).status,
    ],
    conformant: [200, 200, 200],
    faulty: [401, 200, 200],
  },
  {
    fault: 'ws-header-rejected',
    observe: async (env) => {
      const token = env.opts.credentials.chainBToken;
      const header = await ws(env, { 'X-Auth-Token': token });
      const query = await ws(env, {}, `${env.chainB.websocketUrl}?auth=${token}`);
      return { header: [header.upgraded, header.status], query: query.upgraded };
    },
    conformant: { header: [true, 101], query: true },
    faulty: { header: [false, 401], query: true },
  },
  {
    fault: 'grpc-metadata-rejected',
    observe: async (env) => {
      const token = env.opts.credentials.chainBToken;
      const listed = (r: string[] | string) => (Array.isArray(r) ? 'OK' : r);
      return [
        listed(await reflect(env, { 'x-auth-token': token })),
        listed(await reflect(env, { authorization: `Bearer ${token}` })),
      ];
    },
    conformant: ['OK', 'OK'],
    faulty: ['UNAUTHENTICATED', 'OK'],
  },
  {
    fault: 'node-missing-token-accepted',
    observe: async (env) => ({
      blockRest: (await see(`${env.blockRest.endpoint}/v1/blocks/by_height/1`)).status,
      appRest: (await see(`${env.chainB.endpoint}/app_rest/node_info`)).status,
      ws: (await ws(env, {})).upgraded,
      grpc: Array.isArray(await reflect(env, {})),
      wrongTokenStillRefused: (await blockIn(env, 'x-auth-token', 'not-the-token')).status,
    }),
    conformant: { blockRest: 401, appRest: 401, ws: false, grpc: false, wrongTokenStillRefused: 403 },
    faulty: { blockRest: 200, appRest: 200, ws: true, grpc: true, wrongTokenStillRefused: 403 },
  },
  {
    fault: 'node-token-case-insensitive',
    observe: async (env) => {
      const upper = (t: string) => t.toUpperCase();
      const b = upper(env.opts.credentials.chainBToken);
      return {
        blockRest: (await blockIn(env, 'x-auth-token', upper(env.opts.credentials.blockRestToken))).status,
        appRest: (await see(`${env.chainB.endpoint}/app_rest/node_info?auth=${b}`)).status,
        ws: (await ws(env, { 'X-Auth-Token': b })).upgraded,
        grpc: Array.isArray(await reflect(env, { 'x-auth-token': b })),
        otherTokenStillRefused: (await blockIn(env, 'x-auth-token', 'not-the-token')).status,
      };
    },
    conformant: { blockRest: 403, appRest: 403, ws: false, grpc: false, otherTokenStillRefused: 403 },
    faulty: { blockRest: 200, appRest: 200, ws: true, grpc: true, otherTokenStillRefused: 403 },
  },
  {
    fault: 'node-token-prefix-compare',
    observe: async (env) => {
      const cut = (t: string) => t.slice(0, -1);
      const b = cut(env.opts.credentials.chainBToken);
      const block = env.opts.credentials.blockRestToken;
      return {
        blockRest: (await blockIn(env, 'x-auth-token', cut(block))).status,
        appRest: (await see(`${env.chainB.endpoint}/app_rest/node_info?auth=${b}`)).status,
        ws: (await ws(env, { 'X-Auth-Token': b })).upgraded,
        grpc: Array.isArray(await reflect(env, { 'x-auth-token': b })),
        longerStillRefused: (await blockIn(env, 'x-auth-token', `${block}0`)).status,
      };
    },
    conformant: { blockRest: 403, appRest: 403, ws: false, grpc: false, longerStillRefused: 403 },
    faulty: { blockRest: 200, appRest: 200, ws: true, grpc: true, longerStillRefused: 403 },
  },
  {
    fault: 'blockrest-empty-token-accepted',
    observe: async (env) =>
      Promise.all(
        (['bearer', 'auth-query', 'x-auth-token'] as const).map(async (f) => (await blockIn(env, f, '')).status),
      ),
    conformant: [401, 401, 401],
    faulty: [200, 200, 401],
  },
  {
    fault: 'chainb-bearer-any-value',
    observe: async (env) => {
      const wrong = { Authorization: 'Bearer not-the-token' };
      return [
        (await see(`${env.chainB.endpoint}/app_rest/node_info`, { headers: wrong })).status,
        (await see(`${env.chainB.endpoint}/app_rest/node_info`, { headers: { 'X-Auth-Token': 'not-the-token' } }))
          .status,
        (
          await see(`${env.chainB.endpoint}/consensus_rest/status`, {
            method: 'POST',
            headers: { ...wrong, 'Content-Type': 'application/json' },
          })
        ).status,
      ];
    },
    conformant: [403, 403, 403],
    faulty: [200, 403, 403],
  },
  {
    fault: 'block-by-height-text',
    observe: async (env) => statusAndJson(await blockIn(env, 'x-auth-token')),
    conformant: [200, true],
    faulty: [200, false],
  },
  {
    fault: 'ws-no-pong',
    observe: async (env) => {
      const r = await ws(env, { 'X-Auth-Token': env.opts.credentials.chainBToken });
      return { upgraded: r.upgraded, pong: r.pongMs !== undefined };
    },
    conformant: { upgraded: true, pong: true },
    faulty: { upgraded: true, pong: false },
  },
  {
    fault: 'app-rest-not-json',
    observe: async (env) => statusAndJson(await chainBQuery(env, '/app_rest/node_info')),
    conformant: [200, true],
    faulty: [200, false],
  },
  {
    fault: 'consensus-rpc-wrong-id',
    observe: async (env) => {
      const s = await chainBQuery(env, '/consensus_rpc', rpcBody(42));
      return [s.status, (s.body as { id: unknown }).id === 42];
    },
    conformant: [200, true],
    faulty: [200, false],
  },
  {
    fault: 'consensus-rest-500',
    observe: async (env) =>
      (
        await chainBQuery(env, '/consensus_rest/status', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        })
      ).status,
    conformant: 200,
    faulty: 500,
  },
  {
    fault: 'grpc-no-reflection',
    observe: async (env) => {
      const names = await reflect(env, { 'x-auth-token': env.opts.credentials.chainBToken });
      return Array.isArray(names)
        ? { reflection: names.some(isReflectionService), others: names.filter((n) => !isReflectionService(n)) }
        : names;
    },
    conformant: { reflection: true, others: ['chainb.node.v1.NodeService', 'grpc.health.v1.Health'] },
    faulty: { reflection: true, others: [] },
  },
  {
    fault: 'grpc-reflection-unimplemented',
    observe: async (env) => {
      const token = { 'x-auth-token': env.opts.credentials.chainBToken };
      const listed = await reflect(env, token);
      return {
        reflection: Array.isArray(listed) ? 'listed' : listed,
        health: await health(env, token),
        healthWithoutToken: await health(env, {}),
      };
    },
    conformant: { reflection: 'listed', health: 'SERVING', healthWithoutToken: 'UNAUTHENTICATED' },
    faulty: { reflection: 'UNIMPLEMENTED', health: 'SERVING', healthWithoutToken: 'UNAUTHENTICATED' },
  },
];

describe('node fault catalogue', () => {
  test('every fault is well formed, names a must rule of the node sections and has a row here', () => {
    const names = NODE_FAULTS.map((f) => f.name);
    assert.equal(new Set(names).size, names.length);
    for (const f of NODE_FAULTS) {
      assert.match(f.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.equal(f.family, 'nodes');
      assert.ok(f.description.length > 10);
      const rule = ruleById(f.rule);
      assert.equal(rule.kind, 'must', f.rule);
      assert.ok(['NAUTH', 'NODE'].includes(rule.section), f.rule);
    }
    assert.deepEqual(CASES.map((c) => c.fault).sort(), [...names].sort());
  });

  test('every node rule a server can break here has a fault (NODE-07 belongs to the horizon node)', () => {
    const covered = new Set(NODE_FAULTS.map((f) => f.rule));
    const expected = [
      'NAUTH-01',
      'NAUTH-02',
      'NAUTH-03',
      'NAUTH-04',
      'NAUTH-05',
      'NAUTH-06',
      'NAUTH-07',
      'NODE-01',
      'NODE-02',
      'NODE-03',
      'NODE-04',
      'NODE-05',
      'NODE-06',
    ];
    for (const id of expected) assert.ok(covered.has(id), id);
  });
});

describe('each node fault changes exactly the behaviour of its rule', () => {
  let baseline: Env;
  before(async () => {
    baseline = await startEnv([]);
  });
  after(() => baseline.close());

  for (const c of CASES) {
    const rule = NODE_FAULTS.find((f) => f.name === c.fault)?.rule ?? '?';
    test(`${c.fault} (${rule})`, async () => {
      assert.deepEqual(await c.observe(baseline), c.conformant, 'without the fault');
      const env = await startEnv([c.fault]);
      try {
        assert.deepEqual(await c.observe(env), c.faulty, 'with the fault');
      } finally {
        await env.close();
      }
    });
  }
});
