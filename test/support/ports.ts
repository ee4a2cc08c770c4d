// Ports for tests, always taken by the OS and held for as long as the test needs them: a port
// number that was free a moment ago may belong to another process (another test file, another
// `npm test`) by the time it is used.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

function listening(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.destroy());
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const closeServer = (s: Server) => new Promise<void>((r) => s.close(() => r()));

/** Listening sockets on 127.0.0.1 that another process (nginx) takes over: see startNginx. */
export interface ReservedPorts {
  readonly ports: readonly number[];
  /** The listening file descriptors, in the order of `ports`. */
  readonly fds: readonly number[];
  /** Closes this process's copies (the child that inherited them keeps listening). */
  close(): Promise<void>;
}

/** `n` distinct ports, each held by a listening socket from the moment the OS picks it. */
export async function reservePorts(n: number): Promise<ReservedPorts> {
  const servers = await Promise.all(Array.from({ length: n }, listening));
  return {
    ports: servers.map((s) => (s.address() as AddressInfo).port),
    fds: servers.map((s) => (s as unknown as { _handle: { fd: number } })._handle.fd),
    close: async () => void (await Promise.all(servers.map(closeServer))),
  };
}

export interface ClosedPort {
  /** A port on 127.0.0.1 where nothing listens: connections to it are refused. */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A port nothing listens on that no one can start listening on while it is held: the local port
 * of a connection this process keeps open. The port is below the OS's range of ephemeral ports
 * (32768 and up by default): a connection to a closed ephemeral port may be given that same port
 * as its own source and connect to itself (TCP's simultaneous open), and a port that should refuse
 * then answers. Seen once in a loaded npm test.
 */
export async function closedPort(): Promise<ClosedPort> {
  const peers = new Set<Socket>();
  const server = createServer((s) => void peers.add(s.on('error', () => undefined)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const to = (server.address() as AddressInfo).port;
  for (let tries = 0; ; tries++) {
    const localPort = 20_000 + Math.floor(Math.random() * 12_000);
    const client = connect({ host: '127.0.0.1', port: to, localAddress: '127.0.0.1', localPort });
    const err = await new Promise<Error | undefined>((resolve) =>
      client.once('connect', () => resolve(undefined)).once('error', resolve),
    );
    if (err) {
      client.destroy();
      // Taken by another process: another port (bounded: a handful of tries is plenty).
      if (tries < 20 && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
      await closeServer(server);
      throw err;
    }
    client.on('error', () => undefined);
    return {
      port: localPort,
      close: async () => {
        client.destroy();
        for (const s of peers) s.destroy();
        await closeServer(server);
      },
    };
  }
}
