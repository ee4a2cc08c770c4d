// gRPC without reflection, against servers other than the reference's: NODE-06 is a `fail` (the
// services are not listed), and NAUTH-06 is judged from whatever call can show the token, or
// `error` when none can. The rest of the reference stays as it is; only chain B's gRPC address
// points at the server under test.
import assert from 'node:assert/strict';
import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { defaultOptions } from '../../reference/options.js';
import { judgeInStage } from './harness.js';

/** A grpc-js server with no service at all: every method ends UNIMPLEMENTED, token or not. */
async function bareServer(): Promise<{ address: string; close(): void }> {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

/**
 * An auth proxy in front of a server without reflection, as Envoy or nginx would be: the token is
 * checked first (UNAUTHENTICATED without it), then the backend has no such method (UNIMPLEMENTED).
 * Trailers-only answers over plain HTTP/2, as gRPC allows.
 */
async function authProxyServer(token: string): Promise<{ address: string; close(): void }> {
  const server: Http2Server = createServer();
  server.on('stream', (stream, headers) => {
    const ok = headers['x-auth-token'] === token;
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': String(ok ? grpc.status.UNIMPLEMENTED : grpc.status.UNAUTHENTICATED),
        'grpc-message': ok ? 'unknown service' : 'token required',
      },
      { endStream: true },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

async function grpcVerdicts(address: string): Promise<Record<string, string[]>> {
  // Judged in the contract stage without Playwright (harness.ts judgeInStage): the verdicts are the judges'.
  const checks = await judgeInStage({
    only: 'NAUTH-06,NODE-06',
    edit: (t) => ({
      ...t,
      nodes: { ...t.nodes, chainB: { ...t.nodes.chainB!, grpcAddress: address } },
    }),
  });
  const out: Record<string, string[]> = {};
  for (const c of checks) (out[c.rule] ??= []).push(`${c.verdict}: ${c.message}`);
  return out;
}

describe('gRPC without reflection', () => {
  let bare: Awaited<ReturnType<typeof bareServer>>;
  let proxy: Awaited<ReturnType<typeof authProxyServer>>;
  before(async () => {
    bare = await bareServer();
  });
  after(() => {
    bare.close();
    proxy?.close();
  });

  it('a server with no reflection and no health check: NODE-06 fail, NAUTH-06 error (nothing shows the token)', async () => {
    const v = await grpcVerdicts(bare.address);
    assert.equal(v['NODE-06']?.length, 1);
    assert.match(v['NODE-06']![0]!, /^fail: services not listed: .*UNIMPLEMENTED for v1 and v1alpha/);
    assert.equal(v['NAUTH-06']?.length, 1);
    assert.match(v['NAUTH-06']![0]!, /^error: could not check: no call could show whether the token was accepted/);
  });

  it('an auth proxy in front of a server without reflection: NODE-06 fail, NAUTH-06 pass (refused without the token)', async () => {
    // The reference's token is the one the target file carries.
    proxy = await authProxyServer(defaultOptions().credentials.chainBToken);
    const v = await grpcVerdicts(proxy.address);
    assert.match(v['NODE-06']![0]!, /^fail: services not listed/);
    assert.deepEqual(v['NAUTH-06'], [
      'pass: x-auth-token metadata accepted: reflection ends UNIMPLEMENTED with it and UNAUTHENTICATED without it',
    ]);
  });
});
