// How long this process's event loop was held up while a test ran: on a loaded machine, a server in
// this process stamps an arrival that much later than the request came. Tolerances on server-side
// times are stated in it, so a busy machine widens them instead of failing the test.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface StallWatch {
  /** The longest stall seen so far, ms (at least the 10 ms resolution). */
  maxMs(): number;
  stop(): void;
}

export function watchStalls(): StallWatch {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return { maxMs: () => h.max / 1e6, stop: () => h.disable() };
}
