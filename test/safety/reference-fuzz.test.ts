// The reference service under bad input: 10,000 generated malformed requests (fast-check) to its
// five HTTP servers over keep-alive connections. Every answer must be an error status with a JSON
// body or a documented success, never a 5xx the reference does not document, never a hang; the
// process must not crash; afterwards every server still answers a valid request correctly.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { Pool } from 'undici';
import { startReference, type RunningReference } from '../../reference/start.js';
import { isReflectionService, listServicesByReflection } from '../../src/clients/grpc-reflection.js';
import { probeWebSocket } from '../../src/clients/websocket.js';
import { Redactor } from '../../src/record/redact.js';
import { resolveTarget, secretsOf } from '../../src/target-file/load.js';
import {
  describeRequest,
  FUZZ_SERVERS,
  fuzzRequest,
  worldOf,
  type FuzzRequest,
  type FuzzServer,
  type FuzzWorld,
} from './support/fuzz-requests.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';

const BATCH = 50;
const RUNS = 200; // BATCH x RUNS = 10,000 requests
const ANSWER_TIMEOUT_MS = 5_000;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const seed = Number(process.env.CHAINPROBE_FUZZ_SEED ?? Date.now() % 2 ** 31);

let ref: RunningReference;
let world: FuzzWorld;
let origins: Record<FuzzServer, string>;
let pools: Record<FuzzServer, Pool>;
/** The failing requests are printed: the reference's keys and tokens in them are masked as in any output. */
let redactor: Redactor;

before(async () => {
  // Limits high enough that the horizon node's valid requests are not all 429 (those would be a
  // documented answer too, but the closing liveness check wants a 200).
  ref = await startReference({ hourlyLimit: 36_000_000, burst: 1_000_000, perSecondCap: 1_000_000 });
  world = worldOf(ref.target);
  redactor = new Redactor(secretsOf(resolveTarget(ref.target, {})));
  const t = ref.target;
  origins = {
    base: t.api!.baseUrl!,
    legacy: t.api!.legacyBaseUrl!,
    blockRest: t.nodes!.blockRest!.endpoint,
    chainB: t.nodes!.chainB!.endpoint,
    horizon: t.nodes!.horizon!.endpoint,
  };
  pools = Object.fromEntries(
    FUZZ_SERVERS.map((s) => [
      s,
      new Pool(origins[s], {
        connections: 8,
        pipelining: 1,
        headersTimeout: ANSWER_TIMEOUT_MS,
        bodyTimeout: ANSWER_TIMEOUT_MS,
      }),
    ]),
  ) as Record<FuzzServer, Pool>;
});

after(async () => {
  await Promise.all(Object.values(pools ?? {}).map((p) => p.destroy()));
  await ref?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  bytes: number;
}

async function send(r: FuzzRequest): Promise<Answer> {
  const res = await pools[r.server].request({
    path: r.path,
    method: r.method,
    headers: r.headers,
    body: r.body,
    signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
  });
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const c of res.body) {
    bytes += (c as Buffer).length;
    if (bytes > MAX_ANSWER_BYTES) {
      res.body.destroy();
      break;
    }
    chunks.push(c as Buffer);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return { status: res.statusCode, headers, text: Buffer.concat(chunks).toString('utf8'), bytes };
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const pathOnly = (p: string) => p.split('?')[0]!;

/**
 * 5xx answers the reference gives on purpose because the node software it imitates does:
 * the consensus engine's URI interface answers a failed RPC with HTTP 500 and a JSON-RPC error
 * envelope, and the application REST gateway answers an unrouted path with 501 and gRPC code 12.
 */
function isDocumented5xx(r: FuzzRequest, a: Answer, body: unknown): boolean {
  if (r.server !== 'chainB') return false;
  const b = body as { jsonrpc?: unknown; error?: unknown; code?: unknown } | undefined;
  if (a.status === 500 && pathOnly(r.path).startsWith('/consensus_rest/'))
    return b?.jsonrpc === '2.0' && typeof b.error === 'object';
  if (a.status === 501 && pathOnly(r.path).startsWith('/app_rest/')) return b?.code === 12;
  return false;
}

let documented5xx = 0;

/** Why an answer breaks the rules of the fuzz, or undefined. */
function problemOf(r: FuzzRequest, a: Answer): string | undefined {
  if (a.status < 200 || (a.status >= 300 && a.status < 400)) return `answered ${a.status}`;
  // 204 is a complete answer with no body by definition (the native path's answer to a notification, RPC-09).
  if (a.status === 204) return a.bytes > 0 ? 'a 204 answer carried a body' : undefined;
  if (r.method === 'HEAD')
    return a.status >= 500 ? `answered ${a.status} to HEAD` : a.bytes > 0 ? 'a HEAD answer carried a body' : undefined;
  const type = a.headers['content-type'] ?? '';
  const parsed = parse(a.text);
  if (a.status >= 500) {
    if (parsed.ok && isDocumented5xx(r, a, parsed.value)) {
      documented5xx++;
      return undefined;
    }
    return `answered ${a.status}: ${a.text.slice(0, 200)}`;
  }
  if (!/^application\/json\b/i.test(type)) return `answered ${a.status} with content-type "${type}"`;
  if (!parsed.ok) return `answered ${a.status} with a body that is not JSON: ${a.text.slice(0, 120)}`;
  if (a.status >= 400 && (typeof parsed.value !== 'object' || parsed.value === null))
    return `answered ${a.status} with a JSON body that is not an object`;
  return undefined;
}

test(`reference answers ${BATCH * RUNS} generated malformed requests without a 5xx, a hang or a crash (seed ${seed})`, async (t) => {
  const arb = fc.array(fuzzRequest(world), { minLength: BATCH, maxLength: BATCH });
  const before = ref.options.counters.total();
  let sent = 0;
  const statuses = new Map<number, number>();
  const prop = fc.asyncProperty(arb, async (batch) => {
    const results = await Promise.all(
      batch.map(async (r) => {
        sent++;
        try {
          const a = await send(r);
          statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
          return { r, problem: problemOf(r, a) };
        } catch (e) {
          const err = e as Error & { code?: string };
          return { r, problem: `no answer: ${err.code ?? err.name}: ${err.message}` };
        }
      }),
    );
    const bad = results.filter((x) => x.problem);
    if (bad.length)
      throw new Error(
        bad
          .slice(0, 3)
          .map((x) => `${x.problem}\n    request: ${redactor.text(describeRequest(x.r))}`)
          .join('\n'),
      );
  });
  // fc.check, not fc.assert: the counterexample (50 requests, some of them megabytes) is not printed
  // whole; the failing requests are described in one line each. CHAINPROBE_FUZZ_SHRINK=1 shrinks.
  const run = await fc.check(prop, { numRuns: RUNS, seed, endOnFailure: process.env.CHAINPROBE_FUZZ_SHRINK !== '1' });
  if (run.failed) {
    const cause = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
    assert.fail(`fuzz failed (reproduce: CHAINPROBE_FUZZ_SEED=${run.seed}, path ${run.counterexamplePath}):\n${cause}`);
  }
  t.diagnostic(
    `statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; documented node 5xx: ${documented5xx}`,
  );
  assert.ok(sent >= BATCH * RUNS, `sent ${sent} requests`);
  // The server side saw them all: nothing was lost on the way (a crashed handler would not count).
  assert.ok(
    ref.options.counters.total() - before >= BATCH * RUNS,
    `the reference counted ${ref.options.counters.total() - before} requests`,
  );
  // The generators reached the handlers, not only the routers' 404: successes and several error kinds.
  for (const s of [200, 400, 401, 403, 404, 405])
    assert.ok((statuses.get(s) ?? 0) > 0, `no ${s} answer among ${JSON.stringify(Object.fromEntries(statuses))}`);
});

/** Bytes no HTTP client library would send: the servers must survive them and keep serving. */
const RAW_GARBAGE: readonly { name: string; bytes: string }[] = [
  { name: 'unknown method', bytes: 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n' },
  { name: 'binary request line', bytes: '\u0000\u0001\u0002\u00ff\r\n\r\n' },
  { name: 'header section over 16 KiB', bytes: `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n` },
  {
    name: 'content-length that lies',
    bytes: 'POST /consensus_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":',
  },
  { name: 'invalid content-length', bytes: 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n' },
  {
    name: 'bad chunked encoding',
    bytes: 'POST /consensus_rpc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
  },
  { name: 'HTTP/0.9 request', bytes: 'GET /\r\n\r\n' },
  { name: 'half a request line, then close', bytes: 'GET /fee_st' },
  // `new URL(target, base)` reads `//host...` as an authority and throws on this one.
  { name: 'target that parses as an authority', bytes: 'GET //a%zz:b@[x]/ HTTP/1.1\r\nHost: x\r\n\r\n' },
  {
    name: 'WebSocket upgrade to an authority-like target',
    bytes:
      'GET //a%zz:b@[x]/ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  },
];

test('reference servers survive raw garbage on the socket and keep serving', async () => {
  const websocket = ref.target.nodes!.chainB!.websocketUrl!.replace(/^ws/, 'http');
  const targets = [...FUZZ_SERVERS.map((s) => [s, origins[s]] as const), ['websocket', websocket] as const];
  const rawAnswer = (origin: string, bytes: string) =>
    new Promise<string>((resolve) => {
      const { hostname, port } = new URL(origin);
      const sock = connect(Number(port), hostname);
      let got = '';
      const done = () => {
        clearTimeout(timer);
        sock.destroy();
        resolve(got);
      };
      // A half-sent request may wait for the rest (keep-alive too): the client giving up must not hurt the server.
      const timer = setTimeout(done, 500);
      sock.on('data', (d) => (got += d.toString('latin1')));
      sock.on('end', done);
      sock.on('error', done);
      sock.write(bytes, 'latin1');
    });
  const answers = await Promise.all(
    targets.flatMap(([server, origin]) =>
      RAW_GARBAGE.map(async (g) => ({ server, g, answer: await rawAnswer(origin, g.bytes) })),
    ),
  );
  for (const { server, g, answer } of answers) {
    assert.ok(
      answer === '' || /^HTTP\/1\.[01] [45]\d\d /.test(answer),
      `${server}, ${g.name}: answered ${JSON.stringify(answer.slice(0, 80))}`,
    );
  }
});

test('a body over the cap is refused without blocking the next request on the same connection', async () => {
  const k = world.keys;
  const over = 'y'.repeat(1_500_000);
  const cases: [string, string, Record<string, string>][] = [
    [
      origins.base,
      `/${world.protocol}/${world.networks[0]}/native`,
      { Authorization: `Bearer ${k.apiKey}`, 'Content-Type': 'application/json' },
    ],
    [origins.chainB, `/consensus_rpc?auth=${encodeURIComponent(k.chainB)}`, { 'Content-Type': 'application/json' }],
  ];
  for (const [origin, path, headers] of cases) {
    const pool = new Pool(origin, { connections: 1, pipelining: 1 });
    try {
      const big = await pool.request({
        method: 'POST',
        path,
        headers,
        body: over,
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      await big.body.text();
      assert.equal(big.statusCode, 413, `${origin}${path}`);
      const next = await pool.request({
        method: 'HEAD',
        path: '/no-such-path',
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      await next.body.text();
      assert.equal(next.statusCode < 500, true);
    } finally {
      await pool.destroy();
    }
  }
});

test('after the fuzz every server still answers a valid request correctly', async () => {
  const k = world.keys;
  const u = world.universal[0] ?? { protocol: world.protocol, network: world.networks[0]! };
  const checks: [FuzzServer, FuzzRequest, (a: Answer, body: any) => void][] = [
    [
      'base',
      {
        server: 'base',
        method: 'GET',
        path: `/universal/v1/${u.protocol}/${u.network}/sync/block_number`,
        headers: { Authorization: `Bearer ${k.apiKey}` },
      },
      (a) => assert.equal(a.status, 200),
    ],
    [
      'legacy',
      {
        server: 'legacy',
        method: 'GET',
        path: `/universal/v1/${u.protocol}/${u.network}/sync/block_number?apiKey=${encodeURIComponent(k.legacyApiKey)}`,
        headers: {},
      },
      (a) => assert.equal(a.status, 200),
    ],
    [
      'base',
      {
        server: 'base',
        method: 'POST',
        path: `/${world.protocol}/${world.networks[0]}/native`,
        headers: { Authorization: `Bearer ${k.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'eth_blockNumber', params: [] }),
      },
      (a, b) => {
        assert.equal(a.status, 200);
        assert.equal(b.id, 41);
        assert.match(b.result, /^0x[0-9a-f]+$/);
      },
    ],
    [
      'base',
      {
        server: 'base',
        method: 'GET',
        path: `/nft/v1/${world.nftProtocol}/${world.nftNetwork}/event/${world.eventIds[0]}`,
        headers: { Authorization: `Bearer ${k.apiKey}` },
      },
      (a, b) => {
        assert.equal(a.status, 200);
        assert.equal(b.data.id, world.eventIds[0]);
      },
    ],
    [
      'blockRest',
      {
        server: 'blockRest',
        method: 'GET',
        path: '/v1/blocks/by_height/1',
        headers: { 'X-Auth-Token': k.blockRest, 'Content-Type': 'application/json' },
      },
      (a, b) => {
        assert.equal(a.status, 200);
        assert.equal(b.block_height, '1');
      },
    ],
    [
      'chainB',
      {
        server: 'chainB',
        method: 'POST',
        path: `/consensus_rpc?auth=${encodeURIComponent(k.chainB)}`,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'status', params: [], id: 7 }),
      },
      (a, b) => {
        assert.equal(a.status, 200);
        assert.equal(b.id, 7);
        assert.ok(b.result);
      },
    ],
    [
      'horizon',
      { server: 'horizon', method: 'GET', path: `/fee_stats?auth=${encodeURIComponent(k.horizon)}`, headers: {} },
      (a) => {
        assert.equal(a.status, 200);
        assert.match(a.headers['x-ratelimit-limit'] ?? '', /^\d+$/);
      },
    ],
  ];
  for (const [server, r, judge] of checks) {
    const a = await send(r);
    const parsed = parse(a.text);
    assert.ok(
      parsed.ok,
      `${server}: ${r.method} ${r.path.split('?')[0]} answered ${a.status} with a body that is not JSON`,
    );
    judge(a, parsed.value);
  }
  // The chain B process also serves WebSocket (it got raw garbage above) and gRPC.
  const chainB = ref.target.nodes!.chainB!;
  const ws = await probeWebSocket({
    url: chainB.websocketUrl!,
    headers: { 'X-Auth-Token': k.chainB },
    timeoutMs: SLOW_MACHINE_MS,
  });
  assert.ok(ws.upgraded && ws.pongMs !== undefined, `WebSocket: ${ws.error ?? `status ${ws.status}`}`);
  const services = await listServicesByReflection({
    address: chainB.grpcAddress!,
    tls: false,
    metadata: { 'x-auth-token': k.chainB },
    deadlineMs: SLOW_MACHINE_MS,
  });
  assert.ok(
    services.some((s) => !isReflectionService(s)),
    `gRPC lists ${services.join(', ')}`,
  );
});
