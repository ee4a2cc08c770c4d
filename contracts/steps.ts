// A contract test's checks as steps of Playwright's own report: one step per check, titled with
// its verdict, rule, id and message, located at the test's line in its spec file. A fail or error
// check is a failed step, and the test then fails with one error naming them, so Playwright's
// report agrees with chainprobe's verdicts. Steps are written when the test body ends: a check is
// a synchronous statement, and its evidence is already complete by then.
import type { Location, TestInfo } from '@playwright/test';
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
  e.stack = `${e.name}: ${message}\n    at ${at.file}:${at.line}:${at.column}`;
  return e;
}

export const stepTitle = (c: CheckResult) => `${c.verdict.toUpperCase()} ${c.rule} ${c.id}: ${c.message}`;

/**
 * Writes the steps. When the body itself threw (`bodyThrew`), the steps only show what was
 * checked before: the body's error is the test's error. Otherwise a failing check fails the test;
 * a test whose every check was skipped is skipped.
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
      { box: true, location: at },
    ).catch(() => {
      // The step shows the error; the test fails once, below.
    });
  }
  if (bodyThrew) return;
  if (failing.length) {
    // The reporter reads this: the test ran to its end, its verdicts are in its checks.
    info.annotations.push({
      type: VERDICT_FAILURES_ANNOTATION,
      description: `${failing.length} of ${checks.length} checks`,
    });
    const first = failing[0]!;
    const more =
      failing.length > 1
        ? `\n(+${failing.length - 1} more failing check${failing.length > 2 ? 's' : ''}: ${failing
            .slice(1, 6)
            .map((c) => `${c.rule} ${c.id}`)
            .join(', ')}${failing.length > 6 ? ', …' : ''})`
        : '';
    throw errorAt(at, `${first.verdict} ${first.rule} ${first.id}: ${failureText(first)}${more}`);
  }
  if (checks.length && checks.every((c) => c.verdict === 'skipped')) info.skip(true, checks[0]!.message);
}
