// A contract test's checks as steps of Playwright's own report: one step per check, titled with
// its verdict, rule, id and message, located at the test's line in its spec file. A fail or error
// check is a failed step. The test itself does not throw for them: Playwright ends a worker after
// every failed test and starts another (about a second of CPU each), so a deployment failing many
// rules would cost as many workers. It is marked failed instead, with one error per failing check,
// by the chainprobe reporter (failOnVerdicts), which every other reporter runs after: Playwright's
// reports agree with chainprobe's verdicts. Steps are written when the test body ends: a check is
// a synchronous statement, and its evidence is already complete by then.
import type { Location, TestInfo } from '@playwright/test';
import type { TestError } from '@playwright/test/reporter';
import { failureText } from '../src/check-text.js';
import type { CheckResult, Verdict } from '../src/verdict.js';
import { VERDICT_FAILURES_ANNOTATION } from './protocol.js';

/** The verdicts that fail a test in Playwright's report (chainprobe exits 1 on them too). */
const FAILING: ReadonlySet<Verdict> = new Set(['fail', 'error']);

type StepFn = (
  title: string,
  body: () => Promise<void>,
  options: { box: boolean; location: Location },
) => Promise<void>;

/** An error whose stack is the spec file's line, so Playwright shows that line, not this module. */
function errorAt(at: Location, message: string): Error {
  const e = new Error(message);
  e.name = 'ChainprobeCheck';
  e.stack = stackAt(at, e.name, message);
  return e;
}

const stackAt = (at: Location, name: string, message: string) =>
  `${name}: ${message}\n    at ${at.file}:${at.line}:${at.column}`;

/** Failing checks named one by one in a test's errors; the rest are counted in the last. */
const MAX_ERRORS = 20;

/**
 * The errors a test that ran to its end gets for its failing checks (the reporter sets them, see
 * the head of this file): one per check, located at the test's line.
 */
export function verdictErrors(at: Location, checks: readonly CheckResult[]): TestError[] {
  const failing = checks.filter((c) => FAILING.has(c.verdict));
  const errors = failing.slice(0, MAX_ERRORS).map((c): TestError => {
    const message = `${c.verdict} ${c.rule} ${c.id}: ${failureText(c)}`;
    return { message, stack: stackAt(at, 'ChainprobeCheck', message), location: at };
  });
  const more = failing.length - MAX_ERRORS;
  if (more > 0) {
    const message = `(+${more} more failing check${more > 1 ? 's' : ''}: see the steps)`;
    errors.push({ message, stack: stackAt(at, 'ChainprobeCheck', message), location: at });
  }
  return errors;
}

export const stepTitle = (c: CheckResult) => `${c.verdict.toUpperCase()} ${c.rule} ${c.id}: ${c.message}`;

/**
 * Writes the steps. When the body itself threw (`bodyThrew`), the steps only show what was
 * checked before: the body's error is the test's error. Otherwise failing checks are annotated
 * (the reporter fails the test on them); a test whose every check was skipped is skipped.
 */
export async function reportChecks(
  step: StepFn,
  info: TestInfo,
  checks: readonly CheckResult[],
  bodyThrew: boolean,
): Promise<void> {
  const at: Location = { file: info.file, line: info.line, column: info.column };
  const failing: CheckResult[] = [];
  for (const c of checks) {
    const fails = FAILING.has(c.verdict);
    if (fails) failing.push(c);
    await step(
      stepTitle(c),
      async () => {
        if (fails) throw errorAt(at, failureText(c));
      },
      // Not boxed: a boxed step captures a stack trace through source maps (about a millisecond
      // a step, seconds a run); the location is given, and the error's stack is the spec line.
      { box: false, location: at },
    ).catch(() => {
      // The step shows the error; the reporter fails the test on it.
    });
  }
  if (bodyThrew) return;
  if (failing.length) {
    // The reporter reads this: the test ran to its end, its verdicts are in its checks, and it fails on them.
    info.annotations.push({
      type: VERDICT_FAILURES_ANNOTATION,
      description: `${failing.length} of ${checks.length} checks`,
    });
    return;
  }
  if (checks.length && checks.every((c) => c.verdict === 'skipped')) info.skip(true, checks[0]!.message);
}
