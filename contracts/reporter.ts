// The chainprobe reporter. It is listed FIRST in the config because reporters receive the same
// TestStep/TestResult objects in order: whatever it redacts in place here, the HTML reporter after
// it never sees (step titles and subtitles carry URLs, errors carry messages and snippets).
// It also collects each test's checks, non-2xx summaries and (for a HAR) recorded exchanges into
// CHAINPROBE_CHECKS_FILE, turns a
// test that timed out or threw into `error` checks for the rules it declared, and prints progress.
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
  TestStep,
} from '@playwright/test/reporter';
import { CREDENTIAL_QUERY_PARAMS } from '../src/auth/forms.js';
import { maskSecret, Redactor, REDACTED_SUFFIX } from '../src/record/redact.js';
import { secretsOf } from '../src/target-file/load.js';
import type { CheckResult } from '../src/verdict.js';
import { suiteEnv } from './env.js';
import { verdictErrors } from './steps.js';
import {
  CHECKS_ATTACHMENT,
  PROGRESS_PREFIX,
  rulesOfTags,
  VERDICT_FAILURES_ANNOTATION,
  type ChecksLine,
  type ProgressLine,
  type TestAttachment,
} from './protocol.js';

const MAX_TEXT_ATTACHMENT_BYTES = 16 * 1024 * 1024;
const TEXTUAL = /^(text\/|application\/(json|xml|javascript)|.*\+json)/i;

function firstLine(s: string | undefined): string {
  return (
    (s ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  );
}

const ANSI = /\u001b\[[0-9;]*m/g;

// A credential query parameter inside free text (messages, JSON, snippets): the value stops at the
// first character that cannot be part of a URL, so surrounding text and JSON stay intact.
const CREDENTIAL_PARAM = new RegExp(`([?&](?:${CREDENTIAL_QUERY_PARAMS.join('|')})=)([^&#\\s"'<>\\\\]*)`, 'gi');

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Known secrets anywhere, and any value of a credential query parameter. */
export function redactFreeText(redactor: Redactor, s: string): string {
  return redactor
    .text(s)
    .replace(CREDENTIAL_PARAM, (m, head: string, value: string) =>
      value === '' || value.includes(REDACTED_SUFFIX) || value.includes(encodeURIComponent(REDACTED_SUFFIX))
        ? m
        : `${head}${maskSecret(decodeSafe(value))}`,
    );
}

/** The access family of a test: its spec file, `<family>.spec.ts` (or `.js`, compiled). */
function familyOf(test: TestCase): string {
  // test.location points into fixtures.ts (where `test()` is called); the file suite is the spec.
  let suite: Suite | undefined = test.parent;
  while (suite && suite.type !== 'file') suite = suite.parent;
  return basename(suite?.location?.file ?? suite?.title ?? 'contracts').replace(/\.spec\.[jt]s$/, '');
}

/**
 * A test that passed in its worker with failing checks (steps.ts) is failed here, with one error per
 * failing check, before any reporter listed after this one reads it (Playwright's HTML report shows
 * it failed); its worker kept running.
 */
function failOnVerdicts(test: TestCase, result: TestResult, checks: readonly CheckResult[]): void {
  const errors = verdictErrors(test.location, checks);
  if (!errors.length) return;
  result.status = 'failed';
  result.errors.push(...errors);
  result.error = errors[0];
}

export default class ChainprobeReporter implements Reporter {
  private readonly redactor: Redactor;
  private readonly checksFile: string | undefined;
  /** Per family, the tests still running for each rule it checks: a rule is done when none is left. */
  private readonly open = new Map<string, Map<string, number>>();

  constructor() {
    const env = suiteEnv();
    this.redactor = new Redactor(secretsOf(env.target), env.seed);
    this.checksFile = env.checksFile;
  }

  /** It prints progress lines; saying so also keeps Playwright from adding its own line reporter. */
  printsToStdio(): boolean {
    return true;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    for (const test of suite.allTests()) {
      const rules = this.open.get(familyOf(test)) ?? this.open.set(familyOf(test), new Map()).get(familyOf(test))!;
      for (const rule of this.rulesOf(test)) rules.set(rule, (rules.get(rule) ?? 0) + 1);
    }
    for (const family of this.open.keys()) this.progress(family);
  }

  onStepBegin(_test: TestCase, _result: TestResult, step: TestStep): void {
    this.redactStep(step, false);
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    this.redactStep(step, false);
  }

  private free(s: string): string {
    return redactFreeText(this.redactor, s);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const lines: ChecksLine[] = [];
    /** Lines parsed from an attachment that was redacted as a whole: written as they are. */
    const redacted = new Set<ChecksLine>();
    const done = new Set<object>();
    const checks: CheckResult[] = [];
    let timing: TestAttachment['timing'];
    for (const a of result.attachments) {
      if (a.name !== CHECKS_ATTACHMENT || !a.body) continue;
      // Redacted once, as the text it is: the attachment (a megabyte in a run) is the bulk of
      // what the runner handles, and every line below is parsed from the redacted text.
      const text = this.free(a.body.toString('utf8'));
      const got = JSON.parse(text) as TestAttachment;
      checks.push(...got.checks);
      timing = got.timing;
      const add = (l: ChecksLine) => (lines.push(l), redacted.add(l));
      for (const item of got.non2xx) add({ kind: 'non2xx', item });
      // The exchanges go to the run's HAR; Playwright's HTML report keeps the checks only.
      for (const exchange of got.exchanges ?? []) add({ kind: 'exchange', exchange });
      a.body = Buffer.from(got.exchanges ? JSON.stringify({ ...got, exchanges: undefined }) : text);
      done.add(a);
    }
    const failedOnVerdicts = result.annotations.some((a) => a.type === VERDICT_FAILURES_ANNOTATION);
    if (failedOnVerdicts && result.status === 'passed') failOnVerdicts(test, result, checks);
    lines.push({
      kind: 'test',
      test: {
        family: familyOf(test),
        title: test.title,
        workerIndex: result.workerIndex,
        parallelIndex: result.parallelIndex,
        status: result.status,
        startTime: result.startTime.getTime(),
        durationMs: result.duration,
        ...timing,
      },
    });
    for (const check of checks) {
      const line: ChecksLine = { kind: 'check', check };
      lines.push(line);
      redacted.add(line);
    }
    // A test that failed only on its checks' verdicts (steps.ts) ran to its end: nothing to add.
    if (
      result.status !== 'passed' &&
      result.status !== 'skipped' &&
      !(result.status === 'failed' && failedOnVerdicts)
    ) {
      const cause = this.causeOf(test, result);
      for (const rule of rulesOfTags(test.tags)) {
        if (!suiteEnv().selected(rule)) continue;
        lines.push({
          kind: 'check',
          check: {
            id: `${familyOf(test)}.${test.title.replace(/\s+/g, '-')}.aborted`,
            rule,
            verdict: 'error',
            message: `the test did not finish: ${cause}`,
            evidence: { cause },
            durationMs: result.duration,
          },
        });
      }
    }
    this.redactResult(result, done);
    this.write(lines, redacted);
    const rules = this.open.get(familyOf(test));
    for (const rule of this.rulesOf(test)) rules?.set(rule, (rules.get(rule) ?? 1) - 1);
    this.progress(familyOf(test));
  }

  private rulesOf(test: TestCase): string[] {
    return rulesOfTags(test.tags).filter((rule) => suiteEnv().selected(rule));
  }

  onError(error: TestError): void {
    this.redactError(error);
    this.write([
      { kind: 'fatal', message: this.free(firstLine(error.message?.replace(ANSI, '')) || 'error outside a test') },
    ]);
  }

  onEnd(result: FullResult): void {
    const cpu = process.cpuUsage();
    this.write([{ kind: 'end', status: result.status, runnerCpuMs: Math.round((cpu.user + cpu.system) / 1000) }]);
  }

  // ---- collection

  private causeOf(test: TestCase, result: TestResult): string {
    if (result.status === 'timedOut') return `timeout: the test ran over ${test.timeout} ms`;
    if (result.status === 'interrupted') return 'interrupted';
    const msg = firstLine(result.errors[0]?.message?.replace(ANSI, '') ?? result.error?.message?.replace(ANSI, ''));
    return this.free(msg || `test ${result.status}`).slice(0, 300);
  }

  /** Appends the lines, each redacted unless it is in `redacted` (parsed from redacted text). */
  private write(lines: ChecksLine[], redacted: ReadonlySet<ChecksLine> = new Set()): void {
    if (!this.checksFile || lines.length === 0) return;
    const text = lines.map((l) => (redacted.has(l) ? JSON.stringify(l) : this.free(JSON.stringify(l))));
    appendFileSync(this.checksFile, text.join('\n') + '\n');
  }

  private progress(family: string): void {
    const open = [...(this.open.get(family)?.values() ?? [])];
    const line: ProgressLine = { family, done: open.filter((n) => n <= 0).length, total: open.length };
    process.stdout.write(`${PROGRESS_PREFIX}${JSON.stringify(line)}\n`);
  }

  // ---- redaction in place

  private redactStep(step: TestStep, deep: boolean): void {
    const s = step as TestStep & { subtitle?: string };
    s.title = this.free(s.title);
    if (typeof s.subtitle === 'string') s.subtitle = this.free(s.subtitle);
    if (s.error) this.redactError(s.error);
    for (const a of s.attachments ?? []) this.redactAttachment(a);
    for (const an of s.annotations ?? []) if (an.description) an.description = this.free(an.description);
    if (deep) for (const child of s.steps) this.redactStep(child, true);
  }

  private redactError(e: TestError): void {
    const m = e as TestError & { cause?: TestError };
    if (m.message) m.message = this.free(m.message);
    if (m.stack) m.stack = this.free(m.stack);
    if (m.snippet) m.snippet = this.free(m.snippet);
    if (m.value) m.value = this.free(m.value);
    if (m.cause) this.redactError(m.cause);
  }

  private redactAttachment(a: { name: string; contentType: string; path?: string; body?: Buffer }): void {
    a.name = this.free(a.name);
    if (a.body) {
      const text = a.body.toString('utf8');
      const red = this.free(text);
      if (red !== text) a.body = Buffer.from(red);
    } else if (a.path && TEXTUAL.test(a.contentType)) {
      try {
        if (statSync(a.path).size > MAX_TEXT_ATTACHMENT_BYTES) return;
        const text = readFileSync(a.path, 'utf8');
        const red = this.free(text);
        if (red !== text) writeFileSync(a.path, red);
      } catch {
        // A file that is gone or unreadable is not shown by the HTML report either.
      }
    }
  }

  private redactChunks(chunks: (string | Buffer)[]): void {
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      chunks[i] = typeof c === 'string' ? this.free(c) : Buffer.from(this.free(c.toString('utf8')));
    }
  }

  /** `done`: attachments already redacted (the checks attachment, in onTestEnd). */
  private redactResult(result: TestResult, done: ReadonlySet<object> = new Set()): void {
    for (const step of result.steps) this.redactStep(step, true);
    for (const e of result.errors) this.redactError(e);
    if (result.error) this.redactError(result.error);
    this.redactChunks(result.stdout);
    this.redactChunks(result.stderr);
    for (const a of result.attachments) if (!done.has(a)) this.redactAttachment(a);
    for (const an of result.annotations) if (an.description) an.description = this.free(an.description);
  }
}
