// The `check` fixture: how a contract test states its verdicts, so the test reads like the rule.
// Every message is one redacted line; every evidence value is redacted; checks of rules that
// --only did not select are dropped here, so a test may check several rules without caring.
import { BudgetExceeded } from '../src/budget.js';
import { HttpFailure } from '../src/http/client.js';
import type { Exchange } from '../src/record/recorder.js';
import type { Redactor } from '../src/record/redact.js';
import { extraFields, validate, type SchemaName, type SchemaProblem } from '../src/schemas/validate.js';
import type { CheckResult, Evidence, Verdict } from '../src/verdict.js';
import { oneLine } from './protocol.js';

export { oneLine };

/** Problems kept in a failing check's evidence (the message names the first). */
const MAX_PROBLEMS = 10;

/** A failure that means "could not test" (budget, timeout, network), not "the target is wrong". */
export function isCouldNotTest(e: unknown): e is Error {
  return e instanceof HttpFailure || e instanceof BudgetExceeded || e instanceof CouldNotTest;
}

/** Thrown by a test when a precondition it needs could not be obtained (e.g. no asset to ask for). */
export class CouldNotTest extends Error {
  constructor(
    message: string,
    readonly exchanges: Exchange[] = [],
  ) {
    super(message);
    this.name = 'CouldNotTest';
  }
}

/** Evidence helper: the exchanges, with anything else alongside. */
export function ev(exchanges: (Exchange | undefined)[] | Exchange | undefined, extra: Evidence = {}): Evidence {
  const list = (Array.isArray(exchanges) ? exchanges : [exchanges]).filter((x): x is Exchange => x !== undefined);
  return list.length ? { exchanges: list, ...extra } : { ...extra };
}

/**
 * A verdict decided by a pure judging function (contracts/rarity-walk.ts), stated with
 * `Checks.apply`. An `error`'s message is its cause; an observation names the answers it rests on.
 */
export type Judgement = { rule: string; id: string; message: string } & (
  | { verdict: 'pass' | 'fail' | 'error'; evidence?: Evidence }
  | { verdict: 'observed'; observation: Record<string, unknown>; exchanges?: (Exchange | undefined)[] | Exchange }
);

/**
 * A verdict stated by a judging function over recorded answers (contracts/auth-judge.ts), as it
 * goes into the report: for an `error`, `message` is the cause (Checks.state words it).
 */
export interface Stated {
  rule: string;
  id: string;
  verdict: Verdict;
  message: string;
  evidence: Evidence;
}

/**
 * RES-02's roll-up: the fields records carry beyond the documented ones, by resource (a record's
 * own fields under `fallback`), each list sorted; fed one record or every page of a walk.
 */
export class ExtraFieldsByResource {
  private readonly found = new Map<string, Set<string>>();

  add(name: SchemaName, value: unknown, fallback: string = name): this {
    for (const x of extraFields(name, value)) {
      const resource = x.resource || fallback;
      if (!this.found.has(resource)) this.found.set(resource, new Set());
      this.found.get(resource)!.add(x.field);
    }
    return this;
  }

  /** The fields by resource, and as `resource.field` names, for the observation. */
  rollUp(): { byResource: Record<string, string[]>; names: string[] } {
    const byResource = Object.fromEntries([...this.found].map(([r, fs]) => [r, [...fs].sort()]));
    return { byResource, names: Object.entries(byResource).flatMap(([r, fs]) => fs.map((f) => `${r}.${f}`)) };
  }
}

export class Checks {
  readonly results: CheckResult[] = [];
  /** The last could-not-test cause, of any rule (selected or not): what an empty observation reports. */
  private lastCause?: string;
  /** Start of the work that leads to the next verdicts: the test's start, then the previous verdicts. */
  private workStart = performance.now();
  /** While checks are stated in one synchronous run (one response judged for several rules): its time. */
  private batchAt: number | undefined;

  constructor(
    private readonly redactor: Redactor,
    private readonly selected: (rule: string) => boolean,
  ) {}

  /** Whether any of these rules is selected (tests skip work nobody asked for). */
  wants(...rules: string[]): boolean {
    return rules.some((r) => this.selected(r));
  }

  add(rule: string, id: string, verdict: Verdict, message: string, evidence: Evidence = {}): void {
    if (!this.selected(rule)) return;
    const { exchanges, ...rest } = evidence;
    // Exchanges came through the Recorder (redacted on entry); the rest is redacted here.
    const safe: Evidence = this.redactor.value(rest);
    if (exchanges?.length) safe.exchanges = exchanges;
    this.results.push({
      id,
      rule,
      verdict,
      message: oneLine(this.redactor.text(message)),
      evidence: safe,
      durationMs: this.elapsed(),
    });
  }

  /**
   * A check's duration: the time the test spent since its previous verdicts (requests, waits,
   * validation). Checks stated together, with no await between them, share that time.
   */
  private elapsed(): number {
    if (this.batchAt === undefined) {
      const at = (this.batchAt = performance.now());
      queueMicrotask(() => {
        this.workStart = at;
        this.batchAt = undefined;
      });
    }
    return Math.round((this.batchAt - this.workStart) * 10) / 10;
  }

  pass(rule: string, id: string, message: string, evidence?: Evidence): void {
    this.add(rule, id, 'pass', message, evidence);
  }

  fail(rule: string, id: string, message: string, evidence?: Evidence): void {
    this.add(rule, id, 'fail', message, evidence);
  }

  /**
   * `observed`: what the target does where the description leaves it open. `exchanges`, when
   * given, are the answers the observation rests on: if none of them was answered, nothing was
   * observed, and the check is an `error` with the cause rather than an observation of nothing.
   */
  observe(
    rule: string,
    id: string,
    message: string,
    observation: Record<string, unknown>,
    exchanges?: (Exchange | undefined)[] | Exchange,
  ): void {
    const basis =
      exchanges === undefined
        ? undefined
        : (Array.isArray(exchanges) ? exchanges : [exchanges]).filter((x): x is Exchange => x !== undefined);
    if (basis && !basis.some((x) => x.status !== undefined)) {
      const cause = this.causeOfSilence(basis);
      this.add(rule, id, 'error', `could not check: nothing observed (${cause})`, ev(basis, { cause }));
      return;
    }
    this.add(rule, id, 'observed', message, ev(exchanges, { observation }));
  }

  /** Why no answer came: the requests' own error, else the last could-not-test cause recorded. */
  private causeOfSilence(basis: Exchange[]): string {
    return basis.find((x) => x.error)?.error ?? this.lastCause ?? 'no request it rests on was answered';
  }

  skip(rule: string, id: string, reason: string): void {
    this.add(rule, id, 'skipped', reason, { cause: reason });
  }

  error(rule: string, id: string, cause: string, evidence: Evidence = {}): void {
    const line = oneLine(this.redactor.text(cause));
    this.lastCause = line;
    this.add(rule, id, 'error', `could not check: ${line}`, { ...evidence, cause: line });
  }

  /** States judged verdicts, in order, as the methods above would. */
  apply(judgements: readonly Judgement[]): void {
    for (const j of judgements) {
      if (j.verdict === 'observed') this.observe(j.rule, j.id, j.message, j.observation, j.exchanges);
      else if (j.verdict === 'error') this.error(j.rule, j.id, j.message, j.evidence);
      else this.add(j.rule, j.id, j.verdict, j.message, j.evidence);
    }
  }

  /** Checks another Checks of this worker stated (work several tests share): taken as they are. */
  adopt(results: readonly CheckResult[]): void {
    this.results.push(...results);
  }

  /** States verdicts judged elsewhere, in order. */
  state(stated: readonly Stated[]): void {
    for (const s of stated) {
      if (s.verdict === 'error') this.error(s.rule, s.id, s.message, s.evidence);
      else this.add(s.rule, s.id, s.verdict, s.message, s.evidence);
    }
  }

  /** pass when `ok`, fail otherwise: the common shape of a must rule. */
  verdict(ok: boolean, rule: string, id: string, passMessage: string, failMessage: string, evidence?: Evidence): void {
    if (ok) this.pass(rule, id, passMessage, evidence);
    else this.fail(rule, id, failMessage, evidence);
  }

  /**
   * Runs one unit of checking; a could-not-test failure (budget, timeout, network) becomes an
   * `error` check for each of `rules` instead of failing the test. Other throws propagate: the
   * reporter turns them into `error` checks for every rule the test declared.
   */
  async guard(rules: string | string[], id: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (!isCouldNotTest(e)) throw e;
      const exchanges = e instanceof CouldNotTest ? e.exchanges : [];
      for (const rule of Array.isArray(rules) ? rules : [rules]) this.error(rule, id, e.message, ev(exchanges));
    }
  }

  /**
   * Validates a record against its schema once and gives each rule its verdict: a rule fails on
   * the problems of the fields that serve it (the schemas' x-rules), and passes otherwise.
   */
  schema(
    rules: string[],
    id: string,
    name: SchemaName,
    value: unknown,
    exchange?: Exchange,
    what: string = name,
  ): SchemaProblem[] {
    const problems = validate(name, value);
    for (const rule of rules) {
      const mine = problems.filter((p) => p.rules.includes(rule));
      if (mine.length === 0) {
        this.pass(rule, id, `${what}: every documented field present with its documented type`, ev(exchange));
        continue;
      }
      const first = mine[0]!;
      const more = mine.length > 1 ? ` (+${mine.length - 1} more)` : '';
      this.fail(
        rule,
        id,
        `${what}: ${first.message}${more}`,
        ev(exchange, {
          path: first.path,
          expected: first.expected,
          actual: first.actual,
          problems: mine.slice(0, MAX_PROBLEMS).map((p) => p.message),
        }),
      );
    }
    return problems;
  }

  /** RES-02: the fields a record carries beyond the documented ones, by resource. */
  extras(id: string, name: SchemaName, value: unknown, exchange?: Exchange, what: string = name): void {
    if (!this.selected('RES-02')) return;
    const { byResource, names } = new ExtraFieldsByResource().add(name, value, what).rollUp();
    this.observe(
      'RES-02',
      id,
      names.length
        ? `${what}: ${names.length} field(s) beyond the documented ones: ${names.join(', ')}`
        : `${what}: no fields beyond the documented ones`,
      { extraFields: byResource },
      exchange,
    );
  }
}
