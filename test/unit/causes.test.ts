// The connection-cause classifier and grouping: real errors of the real clients (undici, ws,
// grpc-js, net/tls) against a closed port, an unresolvable name and an untrusted certificate
// become one line each, parse back out of a check's message, and group by line.
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { test } from 'node:test';
import { request } from 'undici';
import WebSocket from 'ws';
import {
  classify,
  coveredByCause,
  forgetCauses,
  groupCauses,
  groupLine,
  knownCause,
  noteCause,
  parseCauses,
  whereOf,
} from '../../src/net/causes.js';
import { addressesOf, preflight } from '../../src/net/preflight.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { closedPort } from '../support/ports.js';
import { makePki, opensslSkip } from '../support/tls.js';
import { readFileSync } from 'node:fs';

async function undiciError(url: string): Promise<unknown> {
  try {
    await request(url, { headersTimeout: 3000 });
  } catch (e) {
    return e;
  }
  throw new Error('no error');
}

function wsError(url: string): Promise<Error> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('error', resolve);
  });
}

test("whereOf fills the scheme's default port and keeps a gRPC address as is", () => {
  assert.equal(whereOf('https://node.example.invalid/x?y'), 'node.example.invalid:443');
  assert.equal(whereOf('ws://127.0.0.1:8080/websocket'), '127.0.0.1:8080');
  assert.equal(whereOf('http://[::1]/'), '[::1]:80');
  assert.equal(whereOf('127.0.0.1:50051'), '127.0.0.1:50051');
});

test('connection refused, from undici and ws, is one line naming host and port', async () => {
  const { port, close } = await closedPort();
  try {
    for (const e of [await undiciError(`http://127.0.0.1:${port}/`), await wsError(`ws://127.0.0.1:${port}/`)]) {
      assert.equal(classify(e, `127.0.0.1:${port}`)?.line, `cannot reach 127.0.0.1:${port} (connection refused)`);
    }
  } finally {
    await close();
  }
});

test('a name that does not resolve is a DNS cause', async () => {
  const c = classify(await undiciError('http://chainprobe-test.invalid/'), 'chainprobe-test.invalid:80');
  assert.equal(c?.kind, 'dns');
  assert.match(
    c!.line,
    /^cannot reach chainprobe-test\.invalid:80 \(host name does not resolve: (ENOTFOUND|EAI_AGAIN)\)$/,
  );
});

test('grpc-js wording (no code, only text) classifies the same way', () => {
  const refused = classify(
    'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:9 (2026-11-23T18:00:00.000Z)',
    '127.0.0.1:9',
  );
  assert.equal(refused?.kind, 'refused');
  const untrusted = classify(
    'No connection established. Last error: Error: unable to verify the first certificate (2026-11-23T18:00:00.000Z)',
    '127.0.0.1:8446',
  );
  assert.equal(
    untrusted?.line,
    'TLS: certificate of 127.0.0.1:8446 not trusted (unable to verify the first certificate); give the CA with --ca or NODE_EXTRA_CA_CERTS',
  );
  assert.equal(
    classify('timeout: no complete answer within 100 ms', 'h:1'),
    undefined,
    'a slow answer is not a connection cause',
  );
});

test(
  'TLS: an untrusted certificate, a certificate for another name, plain HTTP on a TLS port',
  { skip: opensslSkip() },
  async () => {
    const pki = makePki();
    const server = createServer({ cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey) }, (_q, s) =>
      s.end('ok'),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const untrusted = classify(await undiciError(`https://127.0.0.1:${port}/`), `127.0.0.1:${port}`);
      assert.equal(
        untrusted?.line,
        `TLS: certificate of 127.0.0.1:${port} not trusted (unable to verify the first certificate); give the CA with --ca or NODE_EXTRA_CA_CERTS`,
      );
      const ws = classify(await wsError(`wss://127.0.0.1:${port}/`), `127.0.0.1:${port}`);
      assert.equal(ws?.kind, 'tls-untrusted');
      const plainOnTls = classify(await undiciError(`http://127.0.0.1:${port}/`), `127.0.0.1:${port}`);
      // nginx answers 400 to plain HTTP on a TLS port; node's https server closes: either way not a TLS cause of ours.
      assert.notEqual(plainOnTls?.kind, 'tls-untrusted');
      const altname = classify(
        Object.assign(
          new Error(
            "Hostname/IP does not match certificate's altnames: IP: 127.0.0.2 is not in the cert's list: IP Address:127.0.0.1",
          ),
          { code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
        ),
        '127.0.0.2:443',
      );
      assert.equal(altname?.kind, 'tls-altname');
    } finally {
      server.close();
      pki.close();
    }
  },
);

test('cause lines parse back out of check messages and group: one line per cause, with its count', () => {
  const a = 'cannot reach 127.0.0.1:1 (connection refused)';
  const b =
    'TLS: certificate of 127.0.0.1:8446 not trusted (self-signed certificate); give the CA with --ca or NODE_EXTRA_CA_CERTS';
  const checks = [
    ...Array.from({ length: 62 }, (_, i) => ({
      rule: `R-${i % 7}`,
      verdict: 'error',
      message: `could not check: ${a}`,
      evidence: { cause: a },
    })),
    { rule: 'NODE-06', verdict: 'error', message: `could not check: no service list: ${b}` },
    { rule: 'X-1', verdict: 'error', message: `not run: ${a}; ${b}` },
    { rule: 'X-2', verdict: 'error', message: 'could not check: timeout: no complete answer within 10 ms' },
    { rule: 'X-3', verdict: 'pass', message: a },
  ];
  assert.deepEqual(
    parseCauses(`not run: ${a}; ${b}`).map((c) => c.kind),
    ['refused', 'tls-untrusted'],
  );
  const groups = groupCauses(checks);
  assert.deepEqual(groups.map(groupLine), [`${a}: 63 checks could not run`, `${b}: 2 checks could not run`]);
  assert.equal(groups[0]!.rules.length, 8);
  assert.equal(coveredByCause(checks[64]!), false);
  assert.equal(coveredByCause(checks[0]!), true);
});

test('a known cause is remembered for its address only, and briefly', (t) => {
  // The clock is the test's: a machine that stalls between two lines does not age the cause.
  t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
  forgetCauses();
  noteCause({ kind: 'refused', where: 'h:1', line: 'cannot reach h:1 (connection refused)' }, 50);
  assert.equal(knownCause('h:1')?.kind, 'refused');
  assert.equal(knownCause('h:2'), undefined);
  t.mock.timers.tick(50);
  assert.equal(knownCause('h:1')?.kind, 'refused');
  t.mock.timers.tick(1);
  assert.equal(knownCause('h:1'), undefined);
});

test('preflight: one connection per distinct address; a closed port is a cause, an open one is not', async () => {
  forgetCauses();
  const open = createServer();
  await new Promise<void>((r) => open.listen(0, '127.0.0.1', r));
  const openPort = (open.address() as { port: number }).port;
  const held = await closedPort();
  const closed = held.port;
  const t = resolveTarget({
    api: { baseUrl: `http://127.0.0.1:${openPort}`, legacyBaseUrl: `http://127.0.0.1:${openPort}/legacy` },
    nodes: { horizon: { endpoint: `http://127.0.0.1:${closed}`, token: 'abcdefgh' } },
  });
  try {
    assert.equal(addressesOf(t).length, 2);
    const { causes } = await preflight(t, 2000);
    assert.deepEqual(
      causes.map((c) => c.line),
      [`cannot reach 127.0.0.1:${closed} (connection refused)`],
    );
    assert.equal(knownCause(`127.0.0.1:${closed}`)?.kind, 'refused');
  } finally {
    open.close();
    await held.close();
    forgetCauses();
  }
});
