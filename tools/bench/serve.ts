// Bench child: a server in its own process.
//   serve.ts trivial            - the ceiling: a minimal Node HTTP server; it can record arrival times
//   serve.ts reference '<json>' - the reference service with the given options (faults as an array)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent, toParent } from './child.js';

const now = () => performance.timeOrigin + performance.now();

async function trivial(): Promise<void> {
  let recording = false;
  let arrivals: number[] = [];
  const server = createServer((req, res) => {
    if (recording) arrivals.push(now());
    // Drain the (empty) body before answering so keep-alive stays clean.
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '3' });
    res.end(req.method === 'HEAD' ? undefined : 'ok\n');
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  serveParent(
    {
      record: () => {
        arrivals = [];
        recording = true;
        return {};
      },
      arrivals: () => {
        recording = false;
        const times = arrivals;
        arrivals = [];
        return { times };
      },
    },
    () => new Promise((r) => server.close(() => r())),
  );
  toParent({ type: 'ready', url: `http://127.0.0.1:${port}` });
}

export interface ReferenceChildOptions {
  customer?: 'dedicated' | 'shared';
  hourlyLimit?: number;
  burst?: number;
  perSecondCap?: number;
  bigCollectionSize?: number;
  faults?: string[];
  variants?: string[];
  /** Added delay on every answer (`npm run reference -- --latency-ms 80:20`). */
  latency?: { baseMs: number; jitterMs: number };
}

async function reference(json: string): Promise<void> {
  const { startReference } = await import('../../reference/start.js');
  const o = JSON.parse(json) as ReferenceChildOptions;
  const { faults, variants, ...rest } = o;
  const ref = await startReference({
    ...rest,
    ...(faults && { faults: new Set(faults) }),
    ...(variants && { variants: new Set(variants) }),
  });
  // The target file names only the main collection; the scale collection's id comes beside it.
  const bigCollectionId = ref.dataset.bigCollectionId;
  serveParent(
    {
      counters: () => ({ counters: ref.options.counters.snapshot() }),
    },
    () => ref.close(),
  );
  toParent({
    type: 'ready',
    target: ref.target as unknown as Record<string, unknown>,
    ...(bigCollectionId && { bigCollectionId }),
  });
}

const [mode, arg] = process.argv.slice(2);
const started =
  mode === 'trivial'
    ? trivial()
    : mode === 'reference'
      ? reference(arg ?? '{}')
      : Promise.reject(new Error(`unknown mode ${mode}`));
started.catch((e: unknown) =>
  toParent({ type: 'ready', error: e instanceof Error ? e.message.split('\n')[0] : String(e) }).then(() =>
    process.exit(1),
  ),
);
