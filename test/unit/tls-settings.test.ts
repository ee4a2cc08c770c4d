// The tls section and --ca/--insecure: paths resolved where a person expects (the target file's
// folder, the directory npm ran from), every file checked before any request with one line that
// never quotes a file's contents, and the roots: system + NODE_EXTRA_CA_CERTS + the CA files.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { after, before, test } from 'node:test';
import { loadTargetFile, resolveTarget, TargetError } from '../../src/target-file/load.js';
import { withTlsFlags } from '../../src/target-file/tls-flags.js';
import { tlsConnectOptions, tlsRecord, trustedRoots, useTls } from '../../src/tls/trust.js';
import { makePki, opensslSkip, type Pki } from '../support/tls.js';

const skip = opensslSkip();
let pki: Pki;
let dir: string;

before(() => {
  if (skip) return;
  pki = makePki();
  dir = mkdtempSync(join(tmpdir(), 'chainprobe-tls-settings-'));
});
after(() => {
  pki?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  useTls(undefined);
});

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof TargetError) return e.problems;
    throw e;
  }
  return [];
}

test('tls.ca, tls.cert and tls.key are read relative to the target file and checked at load', { skip }, () => {
  writeFileSync(
    join(pki.dir, 'target.json'),
    JSON.stringify({ tls: { ca: 'ca.pem', cert: 'client.pem', key: 'client.key' } }),
  );
  const t = loadTargetFile(join(pki.dir, 'target.json'));
  assert.deepEqual(t.tls, { ca: [pki.caCert], cert: pki.clientCert, key: pki.clientKey, insecure: false });
  assert.deepEqual(tlsRecord(t.tls), { insecure: false, ca: ['ca.pem'], clientCertificate: true });
});

test('a wrong tls file is one line naming the field and the path, never its contents', { skip }, () => {
  const key = readFileSync(pki.clientKey, 'utf8');
  writeFileSync(join(dir, 'not-a-cert.pem'), key);
  const lines = [
    ...problems(() => resolveTarget({ tls: { ca: ['missing.pem'] } }, {}, 't', dir)),
    ...problems(() => resolveTarget({ tls: { ca: 'not-a-cert.pem' } }, {}, 't', dir)),
    ...problems(() => resolveTarget({ tls: { cert: pki.clientCert, key: pki.serverKey } }, {}, 't', dir)),
    ...problems(() => resolveTarget({ tls: { cert: pki.clientCert, key: pki.caCert } }, {}, 't', dir)),
    ...problems(() => resolveTarget({ tls: { cert: pki.clientCert } }, {}, 't', dir)),
  ];
  assert.match(lines[0]!, /^tls\.ca .*missing\.pem: cannot read \(ENOENT\)$/);
  assert.match(lines[1]!, /^tls\.ca .*not-a-cert\.pem: holds no PEM certificate/);
  assert.match(lines[2]!, /^tls\.key .*server\.key: does not belong to the certificate/);
  assert.match(lines[3]!, /^tls\.key .*ca\.pem: not a readable private key/);
  assert.match(lines[4]!, /^tls: .*key/);
  for (const l of lines) {
    assert.ok(!l.includes('\n'));
    for (const keyLine of key.split('\n').filter((x) => x.length > 16 && !x.startsWith('---')))
      assert.ok(!l.includes(keyLine), 'key material in a message');
  }
});

test(
  "--ca adds to the file's CAs (relative to where npm ran), --insecure turns verification off; a bad --ca names the flag",
  { skip },
  () => {
    const base = resolveTarget({ tls: { ca: pki.caCert } });
    const t = withTlsFlags(base, ['server.pem'], true, pki.dir);
    assert.deepEqual(t.tls, { ca: [pki.caCert, join(pki.dir, 'server.pem')], insecure: true });
    assert.equal(withTlsFlags(base, [], false), base);
    assert.match(
      problems(() => withTlsFlags(base, ['nope.pem'], false, dir))[0]!,
      /^--ca .*nope\.pem: cannot read \(ENOENT\)$/,
    );
  },
);

test(
  "roots: the system's, NODE_EXTRA_CA_CERTS and the CA files; nothing configured leaves node's defaults alone",
  { skip },
  () => {
    useTls(undefined);
    assert.deepEqual(tlsConnectOptions(), {}, "no options: node's own defaults (NODE_EXTRA_CA_CERTS included) apply");
    const ca = readFileSync(pki.caCert, 'utf8');
    assert.ok(trustedRoots({ NODE_EXTRA_CA_CERTS: pki.caCert }).includes(ca));
    assert.ok(!trustedRoots({}).includes(ca));
    useTls({ ca: [pki.caCert], insecure: false });
    const roots = trustedRoots({});
    assert.ok(roots.includes(ca));
    assert.ok(roots.length > tls.rootCertificates.length, 'added to the system roots, not replacing them');
    assert.equal(tlsConnectOptions().rejectUnauthorized, true);
    useTls({ ca: [], insecure: true });
    assert.equal(tlsConnectOptions().rejectUnauthorized, false);
    useTls(undefined);
  },
);
