// A wait between requests (a paced turn, a 429's Retry-After, a bucket filling) that an interrupt
// cuts short: an interrupted run waits for no one's turn. Node's timers: the k6 scripts, which share
// src/pacing.ts, keep their own.
//
// A timer runs only when the event loop comes round to its timers, and a busy loop (hundreds of
// answers read in one round at the start of the contract stage) comes round late: each paced turn
// of the rate-limited node then went 5-18 ms after its time, and the stage is as long as that
// node's chain of turns. So the HTTP client also looks at the clock as each answer ends
// (endDuePauses), and a pause whose time is up ends there. Never before its time.

interface Waiting {
  /** performance.now() at which it ends. */
  due: number;
  end(): void;
}

const waiting = new Set<Waiting>();
/** The earliest `due` in `waiting` (or later: it is only lowered on add); Infinity when none. */
let nextDue = Infinity;

/** Resolves after `ms`, or at once when the signal aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const entry: Waiting = { due: performance.now() + ms, end: () => done() };
    const done = () => {
      clearTimeout(timer);
      waiting.delete(entry);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    waiting.add(entry);
    nextDue = Math.min(nextDue, entry.due);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Ends every pause whose time is up by `now`: for a caller that runs often while the loop is busy. */
export function endDuePauses(now = performance.now()): void {
  if (now < nextDue) return;
  nextDue = Infinity;
  for (const entry of [...waiting]) {
    if (entry.due <= now) entry.end();
    else nextDue = Math.min(nextDue, entry.due);
  }
}
