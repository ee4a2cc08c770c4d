// A wait between requests (a paced turn, a 429's Retry-After, a bucket filling) that an interrupt
// cuts short: an interrupted run waits for no one's turn. Node's timers: the k6 scripts, which share
// src/pacing.ts, keep their own.

/** Resolves after `ms`, or at once when the signal aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
