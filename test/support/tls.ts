// TLS the way production is reached, for tests: a throwaway CA and a server certificate for
// 127.0.0.1 made with Debian's openssl, and Debian's nginx terminating TLS in front of every
// address of a (reference) target: each HTTP node and the WebSocket upgrade by proxy_pass, gRPC
// by `http2` + grpc_pass. The target is rewritten to the https://, wss:// and TLS gRPC addresses.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetFile } from '../../src/types/generated/target.js';
import { freePort, startNginx, type Nginx } from './nginx.js';
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
 * nginx in front of every address of `plain`: one TLS server per upstream. `mtls` asks every
 * client for a certificate signed by the CA.
 */
export async function startTlsFront(
  plain: ReferenceTarget,
  pki: Pki,
  opts: { mtls?: boolean } = {},
): Promise<TlsFront> {
  const target = structuredClone(plain);
  const upstreams = new Map<string, number>();
  const portFor = async (hostPort: string) => {
    let port = upstreams.get(hostPort);
    if (port === undefined) upstreams.set(hostPort, (port = await freePort()));
    return port;
  };
  const rewrite = async (url: string | undefined, scheme: string) => {
    if (!url) return url;
    const u = new URL(url);
    const port = await portFor(u.host);
    return `${scheme}://127.0.0.1:${port}${u.pathname === '/' ? '' : u.pathname}${u.search}`;
  };
  if (target.api) {
    target.api.baseUrl = await rewrite(target.api.baseUrl, 'https');
    target.api.legacyBaseUrl = await rewrite(target.api.legacyBaseUrl, 'https');
  }
  const n: Partial<ReferenceTarget['nodes']> = target.nodes ?? {};
  if (n.blockRest) n.blockRest.endpoint = (await rewrite(n.blockRest.endpoint, 'https'))!;
  if (n.horizon) n.horizon.endpoint = (await rewrite(n.horizon.endpoint, 'https'))!;
  let grpc: { port: number; upstream: string } | undefined;
  if (n.chainB) {
    n.chainB.endpoint = (await rewrite(n.chainB.endpoint, 'https'))!;
    n.chainB.websocketUrl = await rewrite(n.chainB.websocketUrl, 'wss');
    if (n.chainB.grpcAddress) {
      grpc = { port: await freePort(), upstream: n.chainB.grpcAddress };
      n.chainB.grpcAddress = `127.0.0.1:${grpc.port}`;
      n.chainB.grpcTls = true;
    }
  }
  const clientCert = opts.mtls ? ` ssl_client_certificate ${pki.caCert}; ssl_verify_client on;` : '';
  const ssl = `ssl_certificate ${pki.serverCert}; ssl_certificate_key ${pki.serverKey};${clientCert}`;
  // HTTP/1.1 with the Upgrade headers passed on, so WebSocket connections go through too.
  const proxyOptions =
    'proxy_http_version 1.1; proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection $connection_upgrade; ' +
    'proxy_read_timeout 30s; proxy_buffering off;';
  const servers = [...upstreams.entries()].map(
    ([up, port]) => `server { listen 127.0.0.1:${port} ssl; ${ssl}
    location / { proxy_pass http://${up}; ${proxyOptions} } }`,
  );
  if (grpc)
    servers.push(
      `server { listen 127.0.0.1:${grpc.port} ssl http2; ${ssl} location / { grpc_pass grpc://${grpc.upstream}; } }`,
    );
  const ports: Record<number, string> = Object.fromEntries([...upstreams.entries()].map(([up, port]) => [port, up]));
  if (grpc) ports[grpc.port] = grpc.upstream;
  const nginx = await startNginx({
    ports: Object.keys(ports).map(Number),
    http: `map $http_upgrade $connection_upgrade { default upgrade; '' ''; }\n${servers.join('\n')}`,
  });
  return { nginx, target, ports };
}
