// Before the first request: one connection (and TLS handshake, where the address speaks TLS) to
// each address the target names, in parallel, bounded by the request timeout. No HTTP request is
// sent, so no quota is spent. An address that cannot be reached is known from then on (the
// clients fail at once with its line); a target none of whose addresses can be reached is not
// tested at all: every selected rule that would have talked to one gets `error` with the cause, in
// seconds, not after 60 tries (the rules of absent sections keep their `skipped`, run/pipeline.ts).
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ResolvedTarget } from '../target-file/types.js';
import { tlsConnectOptions } from '../tls/trust.js';
import { classify, noteCause, whereOf, type ConnectionCause } from './causes.js';

export interface Address {
  where: string;
  host: string;
  port: number;
  tls: boolean;
}

function fromUrl(url: string | undefined): Address | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    const tls = u.protocol === 'https:' || u.protocol === 'wss:';
    const where = whereOf(url);
    return {
      where,
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: Number(where.slice(where.lastIndexOf(':') + 1)),
      tls,
    };
  } catch {
    return undefined;
  }
}

/** Every distinct address a run of this target may connect to. */
export function addressesOf(t: ResolvedTarget): Address[] {
  const list: (Address | undefined)[] = [
    fromUrl(t.api?.baseUrl),
    fromUrl(t.api?.legacyBaseUrl),
    fromUrl(t.nodes.blockRest?.endpoint),
    fromUrl(t.nodes.chainB?.endpoint),
    fromUrl(t.nodes.chainB?.websocketUrl),
    fromUrl(t.nodes.horizon?.endpoint),
  ];
  const g = t.nodes.chainB?.grpcAddress;
  if (g) {
    const i = g.lastIndexOf(':');
    list.push({
      where: g,
      host: g.slice(0, i).replace(/^\[|\]$/g, ''),
      port: Number(g.slice(i + 1)),
      tls: t.nodes.chainB!.grpcTls,
    });
  }
  const seen = new Map<string, Address>();
  for (const a of list) if (a && !seen.has(`${a.where}|${a.tls}`)) seen.set(`${a.where}|${a.tls}`, a);
  return [...seen.values()];
}

function tryAddress(a: Address, timeoutMs: number): Promise<ConnectionCause | undefined> {
  return new Promise((resolve) => {
    let socket: Socket;
    const done = (cause: ConnectionCause | undefined) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(cause);
    };
    const timer = setTimeout(
      () => done(classify({ code: 'ETIMEDOUT', message: 'connect ETIMEDOUT' }, a.where)),
      timeoutMs,
    );
    const servername = /^[\d.]+$|:/.test(a.host) ? undefined : a.host;
    socket = a.tls
      ? tlsConnect(
          {
            host: a.host,
            port: a.port,
            ...(servername && { servername }),
            ALPNProtocols: ['h2', 'http/1.1'],
            ...tlsConnectOptions(),
          },
          () => done(undefined),
        )
      : netConnect({ host: a.host, port: a.port }, () => done(undefined));
    // An error that is not a connection cause (a reset after the handshake...) is left to the checks.
    socket.on('error', (e) => done(classify(e, a.where)));
  });
}

/** The causes found, by address (`where`); each is also noted for this process's clients. */
export async function preflight(
  t: ResolvedTarget,
  timeoutMs: number,
): Promise<{ addresses: Address[]; causes: ConnectionCause[] }> {
  const addresses = addressesOf(t);
  const found = await Promise.all(addresses.map((a) => tryAddress(a, timeoutMs)));
  const causes = found.filter((c): c is ConnectionCause => c !== undefined);
  for (const c of causes) noteCause(c);
  return { addresses, causes };
}
