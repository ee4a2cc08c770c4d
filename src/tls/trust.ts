// One trust setting for every client of a run: the CA files to trust besides the system roots, an
// optional client certificate for mutual TLS, and the explicit insecure mode. The target carries
// only file paths (it travels to the contract workers in their environment); the files are read
// here, once per process, into one SecureContext that node's HTTPS client, undici, ws and grpc-js
// all use.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createPrivateKey } from 'node:crypto';
import * as tls from 'node:tls';

export type { TlsSettings, TlsRecord } from './settings.js';
import type { TlsSettings, TlsRecord } from './settings.js';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

function readPem(path: string, label: string, problems: string[]): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    problems.push(`${label} ${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/**
 * Resolves paths against `baseDir` and checks every file now, so a wrong path is one clear line
 * before any request: unreadable, not a PEM certificate, a key that does not parse or does not
 * match the certificate. Messages never quote file contents.
 */
export function checkTlsSettings(
  s: TlsSettings,
  baseDir: string,
  labels: { ca: string; cert: string; key: string },
): { settings: TlsSettings; problems: string[] } {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const settings: TlsSettings = {
    ca: s.ca.map(abs),
    insecure: s.insecure,
    ...(s.cert && { cert: abs(s.cert) }),
    ...(s.key && { key: abs(s.key) }),
  };
  const problems: string[] = [];
  for (const path of settings.ca) {
    const text = readPem(path, labels.ca, problems);
    if (text !== undefined && !PEM_CERT.test(text))
      problems.push(`${labels.ca} ${path}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  if (settings.cert && settings.key) {
    const cert = readPem(settings.cert, labels.cert, problems);
    const key = readPem(settings.key, labels.key, problems);
    if (cert !== undefined && !PEM_CERT.test(cert))
      problems.push(`${labels.cert} ${settings.cert}: holds no PEM certificate`);
    if (key !== undefined) {
      let keyOk = true;
      try {
        createPrivateKey(key);
      } catch {
        keyOk = false;
        problems.push(`${labels.key} ${settings.key}: not a readable private key (PEM, unencrypted)`);
      }
      if (keyOk && cert !== undefined && PEM_CERT.test(cert)) {
        try {
          tls.createSecureContext({ cert, key });
        } catch {
          problems.push(`${labels.key} ${settings.key}: does not belong to the certificate ${settings.cert}`);
        }
      }
    }
  }
  return { settings, problems };
}

export function tlsRecord(s: TlsSettings | undefined): TlsRecord | undefined {
  if (!s) return undefined;
  return { insecure: s.insecure, ca: s.ca.map((p) => p.split(/[\\/]/).pop()!), clientCertificate: Boolean(s.cert) };
}

// ---- The process's trust: set once per process (the run, each contract worker).

let current: TlsSettings | undefined;
let context: tls.SecureContext | undefined;

export function useTls(s: TlsSettings | undefined): void {
  current = s;
  context = undefined;
}

export function currentTls(): TlsSettings | undefined {
  return current;
}

/** Whether anything differs from node's own defaults (then the clients get explicit options). */
function configured(): boolean {
  return current !== undefined && (current.ca.length > 0 || current.cert !== undefined || current.insecure);
}

/**
 * The roots every client trusts: node's bundled roots, NODE_EXTRA_CA_CERTS (node reads it for its
 * own default store; explicit roots replace that store, so it is added back here), and the CA files.
 */
export function trustedRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const roots = [...tls.rootCertificates];
  const extra = env.NODE_EXTRA_CA_CERTS;
  if (extra) {
    try {
      roots.push(readFileSync(extra, 'utf8'));
    } catch {
      // node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; so do the defaults here.
    }
  }
  for (const path of current?.ca ?? []) roots.push(readFileSync(path, 'utf8'));
  return roots;
}

/** One SecureContext per process: explicit roots, and the client certificate when given. */
export function secureContext(): tls.SecureContext {
  if (!context) {
    const cert =
      current?.cert && current.key ? { cert: readFileSync(current.cert), key: readFileSync(current.key) } : {};
    context = tls.createSecureContext({ ca: trustedRoots(), ...cert });
  }
  return context;
}

/**
 * Options for tls.connect, as node's HTTPS agent, undici's `connect` and ws take them. Nothing
 * configured: no options, so node's defaults (NODE_EXTRA_CA_CERTS included) apply exactly as before.
 */
export function tlsConnectOptions(): tls.ConnectionOptions {
  if (!configured()) return {};
  return { secureContext: secureContext(), rejectUnauthorized: !current!.insecure };
}

/** Verification is off for this process. */
export function insecure(): boolean {
  return current?.insecure === true;
}
