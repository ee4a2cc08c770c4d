// The reusable WebSocket and gRPC-reflection clients never hang and never leak the token:
// dead ports, silent servers, servers without reflection, and what the recorder keeps; in the
// refusal mode, messages apart from control frames.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { GrpcCallError, listServicesByReflection } from '../../src/clients/grpc-reflection.js';
import { checkHealth } from '../../src/clients/grpc-health.js';
import { probeWebSocket } from '../../src/clients/websocket.js';
import { Recorder } from '../../src/record/recorder.js';
import { Redactor } from '../../src/record/redact.js';
import { startChainBNode } from '../../reference/nodes/chain-b.js';
import { WS_CLOSE_AFTER_UPGRADE_VARIANT } from '../../reference/nodes/websocket.js';
import { wsRefusal } from '../../contracts/ws-refusal.js';
import { defaultOptions } from '../../reference/options.js';
import { closedPort, type ClosedPort } from '../support/ports.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';

const opts = defaultOptions();
const token = opts.credentials.chainBToken;
let chainB: Awaited<ReturnType<typeof startChainBNode>>;
/** Accepts TCP connections and never says a word: the worst case for a client. */
let silent: TcpServer;
const silentSockets = new Set<Socket>();
let silentPort = 0;
let deadPort = 0;
let dead: ClosedPort | undefined;

const listenTcp = (s: TcpServer) =>
  new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

before(async () => {
  chainB = await startChainBNode(opts);
  silent = createTcpServer((sock) => {
    silentSockets.add(sock);
    sock.on('error', () => undefined);
  });
  silentPort = await listenTcp(silent);
  dead = await closedPort();
  deadPort = dead.port;
});
after(async () => {
  for (const s of silentSockets) s.destroy();
  await new Promise((r) => silent.close(r));
  await chainB.close();
  await dead?.close();
});

const recorder = () => new Recorder(new Redactor([token]));

describe('probeWebSocket', () => {
  // The cause says the refusal ended it, not the timeout (which is far beyond any stall).
  test('a dead port resolves at once with a one-line error', async () => {
    const r = await probeWebSocket({ url: `ws://127.0.0.1:${deadPort}/websocket`, timeoutMs: SLOW_MACHINE_MS });
    assert.equal(r.upgraded, false);
    assert.match(r.error ?? '', /cannot reach 127\.0\.0\.1:\d+ \(connection refused\)/);
    assert.ok(!r.error?.includes('\n'));
  });

  test('a silent server resolves at the timeout, saying what was missing', async () => {
    const t0 = performance.now();
    const r = await probeWebSocket({ url: `ws://127.0.0.1:${silentPort}/websocket`, timeoutMs: 300 });
    const took = performance.now() - t0;
    assert.equal(r.upgraded, false);
    // A busy machine that held the process up gets that time waited again, and named (src/net/held-up.ts).
    assert.match(
      r.error ?? '',
      /^timeout: no upgrade answer within 300 ms(, not counting \d+ ms this machine held chainprobe up)?$/,
    );
    assert.ok(took >= 290 && took < 300 + SLOW_MACHINE_MS, `took ${took}`);
  });

  test('held up well past the handshake timeout: the cause is ours, and says so', async () => {
    const before = silentSockets.size;
    const probe = probeWebSocket({ url: `ws://127.0.0.1:${silentPort}/websocket`, timeoutMs: 200 });
    // The upgrade is on its way (the silent server holds the connection), then this process runs
    // nothing else for four times the timeout: no other timer may end the handshake in other words.
    while (silentSockets.size === before) await new Promise((r) => setTimeout(r, 5));
    const until = performance.now() + 2 * 200 + 400;
    while (performance.now() < until);
    const r = await probe;
    assert.equal(r.upgraded, false);
    assert.match(
      r.error ?? '',
      /^timeout: no upgrade answer within 200 ms, not counting \d+ ms this machine held chainprobe up$/,
    );
  });

  test('a malformed URL resolves with an error instead of throwing', async () => {
    const r = await probeWebSocket({ url: 'not a url', timeoutMs: 300 });
    assert.equal(r.upgraded, false);
    assert.match(r.error ?? '', /^invalid WebSocket URL/);
  });

  test('the recorded upgrade shows the exchange with the token redacted, in header and query', async () => {
    const rec = recorder();
    await probeWebSocket({
      url: chainB.websocketUrl,
      headers: { 'X-Auth-Token': token },
      timeoutMs: SLOW_MACHINE_MS,
      recorder: rec,
      purpose: 'ws[header]',
    });
    const refused = await probeWebSocket({
      url: `${chainB.websocketUrl}?auth=${token}x`,
      timeoutMs: SLOW_MACHINE_MS,
      recorder: rec,
    });
    assert.equal(refused.status, 403);
    assert.equal(rec.exchanges.length, 2);
    const [ok, bad] = rec.exchanges;
    assert.equal(ok?.status, 101);
    assert.equal(ok?.purpose, 'ws[header]');
    assert.match(bad?.responseBody ?? '', /invalid auth token/);
    assert.ok(!JSON.stringify(rec.exchanges).includes(token));
  });
});

describe('listServicesByReflection', () => {
  // UNAVAILABLE, not DEADLINE_EXCEEDED: the refusal ended the call, not the deadline.
  test('a dead port fails fast with UNAVAILABLE', async () => {
    await assert.rejects(
      listServicesByReflection({ address: `127.0.0.1:${deadPort}`, tls: false, deadlineMs: SLOW_MACHINE_MS }),
      (e: unknown) => e instanceof GrpcCallError && e.codeName === 'UNAVAILABLE',
    );
  });

  test('a silent server ends at the deadline', async () => {
    const t0 = performance.now();
    await assert.rejects(
      listServicesByReflection({ address: `127.0.0.1:${silentPort}`, tls: false, deadlineMs: 400 }),
      (e: unknown) => e instanceof GrpcCallError && e.codeName === 'DEADLINE_EXCEEDED',
    );
    const took = performance.now() - t0;
    assert.ok(took < 400 + SLOW_MACHINE_MS, `took ${took}`);
  });

  test('a server without reflection: both versions tried, UNIMPLEMENTED, both recorded', async () => {
    const bare = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      bare.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    try {
      const rec = recorder();
      await assert.rejects(
        listServicesByReflection({
          address: `127.0.0.1:${port}`,
          tls: false,
          deadlineMs: SLOW_MACHINE_MS,
          recorder: rec,
        }),
        (e: unknown) => e instanceof GrpcCallError && e.codeName === 'UNIMPLEMENTED' && /v1alpha/.test(e.message),
      );
      assert.deepEqual(
        rec.exchanges.map((x) => [x.method, x.url.replace(/^.*?\/\/[^/]+\//, ''), x.responseHeaders['grpc-status']]),
        [
          ['GRPC', 'grpc.reflection.v1.ServerReflection/ServerReflectionInfo', String(grpc.status.UNIMPLEMENTED)],
          ['GRPC', 'grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo', String(grpc.status.UNIMPLEMENTED)],
        ],
      );
    } finally {
      bare.forceShutdown();
    }
  });

  test('the recorded call keeps the service list and redacts the token metadata', async () => {
    const rec = recorder();
    const names = await listServicesByReflection({
      address: chainB.grpcAddress,
      tls: false,
      metadata: { 'X-Auth-Token': token },
      deadlineMs: SLOW_MACHINE_MS,
      recorder: rec,
    });
    assert.ok(names.includes('chainb.node.v1.NodeService'));
    assert.equal(rec.exchanges.length, 1);
    assert.match(rec.exchanges[0]?.responseBody ?? '', /chainb\.node\.v1\.NodeService/);
    assert.ok(!JSON.stringify(rec.exchanges).includes(token));
  });
});

describe('probeWebSocket, refusal mode (graceMs): what came after the upgrade, by kind', () => {
  const variantOpts = defaultOptions({ variants: new Set([WS_CLOSE_AFTER_UPGRADE_VARIANT]) });
  const faultyOpts = defaultOptions({ faults: new Set(['node-missing-token-accepted']) });
  let variant: Awaited<ReturnType<typeof startChainBNode>>;
  let faulty: Awaited<ReturnType<typeof startChainBNode>>;
  before(async () => {
    [variant, faulty] = await Promise.all([startChainBNode(variantOpts), startChainBNode(faultyOpts)]);
  });
  after(async () => {
    await Promise.all([variant.close(), faulty.close()]);
  });
  const message = JSON.stringify({ jsonrpc: '2.0', method: 'status', params: [], id: 7 });
  const refusalProbe = (url: string, headers: Record<string, string>, graceMs = 2000) =>
    probeWebSocket({ url, headers, timeoutMs: 2000, graceMs, message });

  test('a node that closes a wrong token 1008 after the upgrade: pong, close, no message, no data', async () => {
    const r = await refusalProbe(variant.websocketUrl, { 'X-Auth-Token': `${token}x` });
    assert.equal(r.error, undefined);
    assert.deepEqual([r.upgraded, r.status, r.serverMessages, r.closedByServer], [true, 101, 0, 1008]);
    assert.ok(r.closedAfterMs !== undefined && r.closedAfterMs < 2000, `closed after ${r.closedAfterMs} ms`);
    assert.equal(wsRefusal(r).data, false);
  });

  test('the same node with the right token answers the request: a text message, data', async () => {
    const r = await refusalProbe(variant.websocketUrl, { 'X-Auth-Token': token });
    assert.equal(r.firstMessage?.binary, false);
    assert.equal((JSON.parse(r.reply ?? '{}') as { id?: number }).id, 7);
    assert.equal(r.closedByServer, undefined);
    assert.equal(wsRefusal(r).data, true);
  });

  test('a node that takes no token answers the request sent at the upgrade: data', async () => {
    const r = await refusalProbe(faulty.websocketUrl, {});
    assert.equal(r.upgraded, true);
    assert.ok(r.serverMessages >= 1);
    assert.equal(wsRefusal(r).data, true);
  });

  test('an upgrade left open and silent ends at the grace without an error', async () => {
    // The right token without a message: the node has nothing to answer, the connection stays open.
    const t0 = performance.now();
    const r = await probeWebSocket({
      url: variant.websocketUrl,
      headers: { 'X-Auth-Token': token },
      timeoutMs: 2000,
      graceMs: 200,
    });
    const took = performance.now() - t0;
    assert.deepEqual([r.upgraded, r.serverMessages, r.closedByServer, r.error], [true, 0, undefined, undefined]);
    assert.ok(took >= 195, `took ${took} ms`);
    assert.match(wsRefusal(r).what, /through the 200 ms grace \(still open\)/);
  });
});

// The run's interrupt: a call it cuts short ends at once, and a call not yet made never reaches the node.
describe('an interrupt', () => {
  const aborted = () => {
    const c = new AbortController();
    c.abort();
    return c.signal;
  };

  test('before the call: neither the WebSocket upgrade nor the gRPC calls reach the node', async () => {
    const before = [opts.counters.of('websocket'), opts.counters.of('grpc')];
    const ws = await probeWebSocket({
      url: chainB.websocketUrl,
      headers: { 'X-Auth-Token': token },
      timeoutMs: SLOW_MACHINE_MS,
      signal: aborted(),
    });
    assert.equal(ws.error, 'interrupted');
    const grpcCall = { address: chainB.grpcAddress, tls: false, deadlineMs: SLOW_MACHINE_MS, signal: aborted() };
    await assert.rejects(listServicesByReflection(grpcCall), /interrupted/);
    await assert.rejects(checkHealth(grpcCall), /interrupted/);
    assert.deepEqual([opts.counters.of('websocket'), opts.counters.of('grpc')], before);
  });

  test('during the call: a node that never answers does not hold the probe or the call up', async () => {
    const c = new AbortController();
    setTimeout(() => c.abort(), 50);
    const started = performance.now();
    const [ws, list] = await Promise.all([
      probeWebSocket({ url: `ws://127.0.0.1:${silentPort}/websocket`, timeoutMs: SLOW_MACHINE_MS, signal: c.signal }),
      listServicesByReflection({
        address: `127.0.0.1:${silentPort}`,
        tls: false,
        deadlineMs: SLOW_MACHINE_MS,
        signal: c.signal,
      }).then(
        () => 'answered',
        (e: Error) => e.message,
      ),
    ]);
    assert.equal(ws.error, 'interrupted');
    assert.match(list, /interrupted/);
    // Far below the time limits of either: the interrupt ended them, not a timeout.
    assert.ok(performance.now() - started < SLOW_MACHINE_MS, `${performance.now() - started} ms`);
  });
});
