// The embedded reference of `chainprobe` without a target, in a worker thread of its own: its
// servers answer on the second core while the run's thread sends and judges, as a deployment
// does on its own machine, and neither waits behind the other's work on one event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { moduleWorker } from '../src/package.js';
import type { ReferenceTarget } from './start.js';

/** What the thread is started with: the switches a command line sets (the rest are the defaults). */
export interface EmbeddedOptions {
  customer?: 'dedicated' | 'shared';
  hourlyLimit?: number;
  faults?: string[];
  variants?: string[];
}

interface ThreadInput {
  embeddedReference: EmbeddedOptions;
}

type FromThread = { type: 'ready'; target: ReferenceTarget } | { type: 'failed'; message: string } | { type: 'closed' };

export interface ThreadReference {
  /** A target file for this instance, credentials written in. */
  target: ReferenceTarget;
  /** Closes every server and ends the thread. */
  close(): Promise<void>;
}

/** Starts the reference in a worker thread; rejects with the start's own one-line reason. */
export function startReferenceThread(options: EmbeddedOptions): Promise<ThreadReference> {
  const worker = moduleWorker(new URL(import.meta.url), {
    workerData: { embeddedReference: options } satisfies ThreadInput,
  });
  let closed: (() => void) | undefined;
  const close = () =>
    new Promise<void>((resolve) => {
      closed = resolve;
      worker.postMessage({ type: 'close' });
    }).finally(() => void worker.terminate());
  return new Promise((resolve, reject) => {
    worker.on('message', (m: FromThread) => {
      if (m.type === 'ready') resolve({ target: m.target, close });
      else if (m.type === 'failed') reject(new Error(m.message));
      else closed?.();
    });
    worker.on('error', (e) => reject(e));
    worker.on('exit', (code) => {
      reject(new Error(`the reference's thread stopped (exit ${code}) before it served`));
      closed?.();
    });
  });
}

async function threadMain(input: EmbeddedOptions): Promise<void> {
  const port = parentPort!;
  const { startReference } = await import('./start.js');
  let running: Awaited<ReturnType<typeof startReference>>;
  try {
    running = await startReference({
      ...(input.customer && { customer: input.customer }),
      ...(input.hourlyLimit !== undefined && { hourlyLimit: input.hourlyLimit }),
      ...(input.faults?.length && { faults: new Set(input.faults) }),
      ...(input.variants?.length && { variants: new Set(input.variants) }),
    });
  } catch (e) {
    port.postMessage({ type: 'failed', message: (e as Error).message.split('\n')[0]! } satisfies FromThread);
    port.close();
    return;
  }
  port.on('message', (m: { type?: string }) => {
    if (m?.type !== 'close') return;
    void running.close().finally(() => {
      port.postMessage({ type: 'closed' } satisfies FromThread);
      port.close();
    });
  });
  port.postMessage({ type: 'ready', target: running.target } satisfies FromThread);
}

const input = workerData as Partial<ThreadInput> | undefined;
if (parentPort && input?.embeddedReference) void threadMain(input.embeddedReference);
