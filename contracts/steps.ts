// A contract test's checks as steps of Playwright's own report: one step per rule the test checked,
// titled with the rule's verdict and its checks' counts, and inside it one step per check that did
// not pass (fail, error, observed, skipped), titled with its verdict, rule, id and message. Passing
// checks are counted, not listed: a step costs a stack capture in the worker and two messages to
// the runner, and a run has hundreds of passing checks (every check is in the test's
// chainprobe-checks attachment). Steps are located at the test's line in its spec file. A fail or
// error check is a failed step, and so is its rule's step. The test itself does not throw for them:
// Playwright ends a worker after every failed test and starts another (about a second of CPU each),
// so a deployment failing many rules would cost as many workers. It is marked failed instead, with
// one error per failing check, by the chainprobe reporter (failOnVerdicts), which every other
// reporter runs after: Playwright's reports agree with chainprobe's verdicts. Steps are written when
// the test body ends: a check is a synchronous statement, and its evidence is already complete by then.
import type { Location, TestInfo } from '@playwright/test';
import type { TestError } from '@playwright/test/reporter';
import { failureText } from '../src/check-text.js';
import { rollUp, VERDICTS, type CheckResult, type Verdict } from '../src/verdict.js';
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

/** A rule's step: its rolled-up verdict (as in results.json), then how many checks had each verdict. */
export function ruleStepTitle(rule: string, checks: readonly CheckResult[]): string {
  const verdict = rollUp(checks.map((c) => c.verdict));
  const counts = VERDICTS.map((v) => [v, checks.filter((c) => c.verdict === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${v}`);
  return `${verdict.toUpperCase()} ${rule}: ${checks.length} check${checks.length === 1 ? '' : 's'} (${counts.join(', ')})`;
}

/** The checks of each rule, rules in the order they were first checked. */
function byRule(checks: readonly CheckResult[]): Map<string, CheckResult[]> {
  const out = new Map<string, CheckResult[]>();
  for (const c of checks) out.get(c.rule)?.push(c) ?? out.set(c.rule, [c]);
  return out;
}

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
  // Not boxed: a boxed step captures a stack trace through source maps (about a millisecond a
  // step); the location is given, and the error's stack is the spec line.
  const options = { box: false, location: at };
  const failing = checks.filter((c) => FAILING.has(c.verdict));
  for (const [rule, mine] of byRule(checks)) {
    const ruleFailing = mine.filter((c) => FAILING.has(c.verdict)).length;
    await step(
      ruleStepTitle(rule, mine),
      async () => {
        for (const c of mine) {
          if (c.verdict === 'pass') continue;
          await step(
            stepTitle(c),
            async () => {
              if (FAILING.has(c.verdict)) throw errorAt(at, failureText(c));
            },
            options,
          ).catch(() => {
            // The step shows the error; its rule's step fails below.
          });
        }
        if (ruleFailing) throw errorAt(at, `${rule}: ${ruleFailing} failing check(s)`);
      },
      options,
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
