// A few requests in flight at once, answers kept in plan order: the wrong-credential checks and
// NFT-11's cross-check send dozens of small requests whose round trips, not their work, set the pace. Judging happens after,
// in plan order, so reports list the checks the same way every run.

/** Wrong-credential requests in flight at once (never on a rate-limited node: see NodeRow). */
export const AUTH_CONCURRENCY = 4;

/** NFT-11's asset reads in flight at once: independent reads, few enough not to strain a target. */
export const CROSS_CHECK_CONCURRENCY = 4;

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

/** The value, or the task's error thrown again (inside a check's guard, where it becomes `error`). */
export function valueOf<T>(s: Settled<T>): T {
  if (!s.ok) throw s.error;
  return s.value;
}
