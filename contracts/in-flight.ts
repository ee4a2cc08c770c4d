// A few requests in flight at once, answers kept in plan order: the wrong-credential checks and
// NFT-11's cross-check send dozens of small requests whose round trips, not their work, set the pace. Judging happens after,
// in plan order, so reports list the checks the same way every run.

/** Wrong-credential requests in flight at once (on a rate-limited node each also waits its paced turn). */
export const AUTH_CONCURRENCY = 4;

/**
 * NFT-11's asset reads in flight at once: independent reads, few enough not to strain a target (the
 * host's own bound, limits.concurrency, still holds). At 4, the 26 reads of a 7-page walk took 7
 * round trips in a row after it, the last work of a run 80 ms away to end.
 */
export const CROSS_CHECK_CONCURRENCY = 8;

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `tasks` with at most `concurrency` at a time; each one's value or error, in task order. */
export async function settleAll<T>(tasks: readonly (() => Promise<T>)[], concurrency: number): Promise<Settled<T>[]> {
  const out: Settled<T>[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      try {
        out[i] = { ok: true, value: await tasks[i]!() };
      } catch (error) {
        out[i] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, lane));
  return out;
}

/** A promise's value or error, as settleAll gives them. */
export function settled<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/**
 * Runs tasks as they are added, at most `concurrency` at once, in the order added; each call gives
 * its task's value or error (settleAll for work that arrives over time).
 */
export function taskQueue(concurrency: number): <T>(task: () => Promise<T>) => Promise<Settled<T>> {
  let free = Math.max(1, concurrency);
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<Settled<T>> => {
    if (free > 0) free--;
    else await new Promise<void>((r) => waiting.push(r));
    try {
      return { ok: true, value: await task() };
    } catch (error) {
      return { ok: false, error };
    } finally {
      // The slot passes to the next task waiting, if any.
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/** The value, or the task's error thrown again (inside a check's guard, where it becomes `error`). */
export function valueOf<T>(s: Settled<T>): T {
  if (!s.ok) throw s.error;
  return s.value;
}
