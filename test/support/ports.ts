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
 * of a connection this process keeps open (the OS picked it; only a listener could accept there).
 */
export async function closedPort(): Promise<ClosedPort> {
  const peers = new Set<Socket>();
  const server = createServer((s) => void peers.add(s.on('error', () => undefined)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const client = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port });
  await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
  client.on('error', () => undefined);
  return {
    port: client.localPort!,
    close: async () => {
      client.destroy();
      for (const s of peers) s.destroy();
      await closeServer(server);
    },
  };
}
