// Time bounds in tests are backstops, never budgets: a loaded machine (a second `npm test` and two
// busy loops beside this one) may make a test slower, never red. How fast something is belongs to
// `npm run bench`. A test that needs something to happen "at once" proves it by what happened (a
// cause, a count, which rules were left unfinished), with one of these only against a hang.

/**
 * For what takes well under a second on a quiet machine: the timeout of a request to a server that
 * answers at once, the bound on an await that ends at once (an abort, a refused connection, a
 * client timeout that fired), the bound on work that is quick unless an algorithm went wrong.
 */
export const SLOW_MACHINE_MS = 30_000;

/** For a whole test or a child process (a CLI run, a Playwright run): only a hang reaches it. */
export const HANG_MS = 600_000;

/**
 * A target (resolved, or a target file) against a server of the test's own that answers every request: its requests time out
 * after SLOW_MACHINE_MS instead of the target's limits.timeoutMs, so a starved machine cannot turn
 * an answer into an `error` (tests of timeouts set their own).
 */
export function withSlowMachineTimeout<T extends { limits?: { timeoutMs?: number } }>(target: T): T {
  return {
    ...target,
    limits: { ...target.limits, timeoutMs: Math.max(target.limits?.timeoutMs ?? 0, SLOW_MACHINE_MS) },
  };
}
