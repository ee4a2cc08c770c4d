// TLS the way production is reached, for tests: a throwaway CA and a server certificate for
// 127.0.0.1 made with Debian's openssl, and Debian's nginx terminating TLS in front of every
// address of a (reference) target: each HTTP node and the WebSocket upgrade by proxy_pass, gRPC
// by `http2` + grpc_pass. The target is rewritten to the https://, wss:// and TLS gRPC addresses.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetFile } from '../../src/types/generated/target.js';
import { startNginx, type Nginx } from './nginx.js';
import type { ReferenceTarget } from '../../reference/start.js';

export const OPENSSL = process.env['OPENSSL_PATH'] ?? '/usr/bin/openssl';

export interface Pki {
  dir: string;
  /** The CA certificate (PEM) a client must be given. */
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** A client certificate signed by the same CA, and its key (mutual TLS). */
  clientCert: string;
  clientKey: string;
  close(): void;
}

/** For node:test's `skip`: a reason when openssl is absent. */
export function opensslSkip(): string | false {
  if (existsSync(OPENSSL)) return false;
  const reason = `openssl not found at ${OPENSSL}: apt-get install openssl, or set OPENSSL_PATH`;
  console.log(`# skipped: ${reason}`);
  return reason;
}

function openssl(args: string[], cwd: string): void {
  execFileSync(OPENSSL, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a server certificate naming 127.0.0.1 and localhost, and a client certificate: all throwaway. */
export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-pki-'));
  const p = (f: string) => join(dir, f);
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=chainprobe test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  writeFileSync(p('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    ],
    dir,
  );
  writeFileSync(p('client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'client.key',
      '-out',
      'client.csr',
      '-subj',
      '/CN=chainprobe client',
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'client.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'client.pem',
      '-days',
      '2',
      '-extfile',
      'client.ext',
    ],
    dir,
  );
  return {
    dir,
    caCert: p('ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsFront {
  nginx: Nginx;
  /** The target rewritten to reach everything through nginx over TLS. */
  target: ReferenceTarget;
  /** TLS port -> plain upstream address. */
  ports: Record<number, string>;
}

/**
 * nginx in front of every address of `plain`: one TLS server per upstream, each on its own port
 * (the OS picks them, nginx.ts). `mtls` asks every client for a certificate signed by the CA.
 */
export async function startTlsFront(
  plain: ReferenceTarget,
  pki: Pki,
  opts: { mtls?: boolean } = {},
): Promise<TlsFront> {
  const target = structuredClone(plain);
  const n: Partial<ReferenceTarget['nodes']> = target.nodes ?? {};
  // Every address fronted, with the scheme it gets behind nginx: one TLS port per host:port (two
  // URLs of one upstream share its port), gRPC on a port of its own (http2 + grpc_pass).
  const urls: { url: string; scheme: string; set(url: string): void }[] = [];
  const front = (url: string | undefined, scheme: string, set: (url: string) => void) => {
    if (url) urls.push({ url, scheme, set });
  };
  if (target.api) {
    const api = target.api;
    front(api.baseUrl, 'https', (u) => (api.baseUrl = u));
    front(api.legacyBaseUrl, 'https', (u) => (api.legacyBaseUrl = u));
  }
  if (n.blockRest) front(n.blockRest.endpoint, 'https', (u) => (n.blockRest!.endpoint = u));
  if (n.horizon) front(n.horizon.endpoint, 'https', (u) => (n.horizon!.endpoint = u));
  if (n.chainB) {
    front(n.chainB.endpoint, 'https', (u) => (n.chainB!.endpoint = u));
    front(n.chainB.websocketUrl, 'wss', (u) => (n.chainB!.websocketUrl = u));
  }
  const upstreams = [...new Set(urls.map(({ url }) => new URL(url).host))];
  const grpcUpstream = n.chainB?.grpcAddress;

  const clientCert = opts.mtls ? ` ssl_client_certificate ${pki.caCert}; ssl_verify_client on;` : '';
  const ssl = `ssl_certificate ${pki.serverCert}; ssl_certificate_key ${pki.serverKey};${clientCert}`;
  // HTTP/1.1 with the Upgrade headers passed on, so WebSocket connections go through too.
  const proxyOptions =
    'proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection $connection_upgrade; ' +
    'proxy_read_timeout 30s; proxy_buffering off;';
  const nginx = await startNginx({
    listeners: upstreams.length + (grpcUpstream ? 1 : 0),
    http: (ports) => {
      const servers = upstreams.map(
        (up, i) => `server { listen 127.0.0.1:${ports[i]} ssl; ${ssl}
    location / { proxy_pass http://${up}; ${proxyOptions} } }`,
      );
      if (grpcUpstream)
        servers.push(
          `server { listen 127.0.0.1:${ports[upstreams.length]} ssl http2; ${ssl} location / { grpc_pass grpc://${grpcUpstream}; } }`,
        );
      return `map $http_upgrade $connection_upgrade { default upgrade; '' ''; }\n${servers.join('\n')}`;
    },
  });
  const ports: Record<number, string> = {};
  upstreams.forEach((up, i) => (ports[nginx.ports[i]!] = up));
  for (const { url, scheme, set } of urls) {
    const u = new URL(url);
    const port = nginx.ports[upstreams.indexOf(u.host)];
    set(`${scheme}://127.0.0.1:${port}${u.pathname === '/' ? '' : u.pathname}${u.search}`);
  }
  if (grpcUpstream) {
    const port = nginx.ports[upstreams.length]!;
    ports[port] = grpcUpstream;
    n.chainB!.grpcAddress = `127.0.0.1:${port}`;
    n.chainB!.grpcTls = true;
  }
  return { nginx, target, ports };
}
