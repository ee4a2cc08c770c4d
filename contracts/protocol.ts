// What flows from the Playwright processes back to the parent run: attachments a test adds, the
// JSON lines the reporter appends to CHAINPROBE_CHECKS_FILE, and the progress lines it prints.
import type { Exchange } from '../src/record/recorder.js';
import { isRuleId } from '../src/rules/catalogue.js';
import type { CheckResult } from '../src/verdict.js';
import type { TestTrace } from '../src/stages.js';

/** The one attachment a test adds: a TestAttachment as JSON. */
export const CHECKS_ATTACHMENT = 'chainprobe-checks';
/** A rule's Playwright tag: `--grep @NFT-01` selects the tests of NFT-01, and the reporter reads them back. */
export const ruleTag = (rule: string): string => `@${rule}`;
/** The rules a test checks: its tags that name a rule (Playwright also makes tags of @-words in titles). */
export const rulesOfTags = (tags: readonly string[]): string[] =>
  tags.filter((t) => t.startsWith('@') && isRuleId(t.slice(1))).map((t) => t.slice(1));
/** Annotation a test adds when it ran to its end and failed only on its checks' verdicts. */
export const VERDICT_FAILURES_ANNOTATION = 'chainprobe: failing checks';
/**
 * Title words of the one test per spec file that reports the rules its target cannot test
 * (`Spec.coverRest`): it sends nothing, so a run whose target cannot be reached still runs it.
 */
export const NOT_TESTABLE_TITLE = 'not testable with this target';
/** Prefix of the reporter's progress lines on stdout. */
export const PROGRESS_PREFIX = '@@chainprobe-progress ';

/** One non-2xx answer (or refused upgrade / failed gRPC call) the suite met. */
export interface Non2xx {
  /** Why the suite expected (or did not expect) a refusal: the ERR-01 group. */
  cause: string;
  purpose?: string;
  method: string;
  /** HTTP status, or `grpc <CODE>` for gRPC. */
  status: number | string;
  contentType?: string;
  bodyShape: unknown;
  exchange: Exchange;
}

/** What the worker measured around one test (src/stages.ts TestTrace). */
export type TestTiming = Required<Pick<TestTrace, 'bodyMs' | 'cpuMs' | 'networkMs' | 'requests'>> &
  Pick<TestTrace, 'workerCpuAtStartMs' | 'workerAgeAtStartMs'>;

/** What a test hands the reporter: its checks, the non-2xx answers it met (ERR-01's material), and its timing. */
export interface TestAttachment {
  checks: CheckResult[];
  non2xx: Non2xx[];
  /** Every exchange the test recorded (already redacted), when the run writes a HAR. */
  exchanges?: Exchange[];
  timing?: TestTiming;
}

export type ChecksLine =
  | { kind: 'check'; check: CheckResult }
  | { kind: 'non2xx'; item: Non2xx }
  | { kind: 'exchange'; exchange: Exchange }
  | { kind: 'fatal'; message: string }
  | { kind: 'test'; test: TestTrace }
  /** The runner finished (its exit status is then only whether some test failed). */
  | { kind: 'end'; status: string; runnerCpuMs?: number };

/** A family's progress, counted in rules: a rule is done when every test that checks it has ended. */
export interface ProgressLine {
  family: string;
  done: number;
  total: number;
}

const MAX_MESSAGE = 400;

/** Check messages are one line a person can act on. */
export function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}
