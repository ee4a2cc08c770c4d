// A Playwright reporter that gathers every rule test's checks (the CHECKS_ATTACHMENT) into one JSON
// file: how `chainprobe --runner playwright` reads the verdicts back into its own reports.
import { writeFileSync } from 'node:fs';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import type { CheckResult } from '../../src/verdict.js';

const CHECKS_ATTACHMENT = 'chainprobe-checks';

export default class ChecksReporter implements Reporter {
  private readonly checks: CheckResult[] = [];

  constructor(private readonly options: { outputFile: string }) {}

  onTestEnd(_test: TestCase, result: TestResult): void {
    for (const a of result.attachments)
      if (a.name === CHECKS_ATTACHMENT && a.body) this.checks.push(...(JSON.parse(a.body.toString()) as CheckResult[]));
  }

  onEnd(): void {
    writeFileSync(this.options.outputFile, JSON.stringify(this.checks));
  }

  printsToStdio(): boolean {
    return false;
  }
}
