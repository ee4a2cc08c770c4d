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
 * A verdict as a judge states it (contracts/plan.ts), the one way to state one: `Checks.apply` turns
 * it into a check (redacted, its rule selected). An `error`'s or a `skipped`'s message is its cause;
 * an observation given with `observation` names the answers it rests on (`exchanges`): when none of
 * them was answered, nothing was observed and the check is an `error` with the cause.
 */
export type Judgement = { rule: string; id: string; message: string } & (
  | { verdict: 'pass' | 'fail' | 'error' | 'skipped'; evidence?: Evidence }
  | {
      verdict: 'observed';
      observation?: Record<string, unknown>;
      exchanges?: (Exchange | undefined)[] | Exchange;
      evidence?: Evidence;
    }
);

/** The auth judges' name for a Judgement. */
export type Stated = Judgement;

/** pass when `ok`, fail otherwise: the common shape of a must rule's judgement. */
export const verdict = (
  ok: boolean,
  rule: string,
  id: string,
  pass: string,
  fail: string,
  evidence?: Evidence,
): Judgement => ({ rule, id, verdict: ok ? 'pass' : 'fail', message: ok ? pass : fail, evidence });

/** A request that could not be made (budget, time-out, network): its cause and what was recorded of it. */
export interface Lost {
  cause: string;
  exchanges: Exchange[];
}

/** A could-not-test failure as a plan's answer; anything else is a defect and is thrown again. */
export function lostOf(e: unknown): Lost {
  if (!isCouldNotTest(e)) throw e;
  return { cause: e.message, exchanges: e instanceof CouldNotTest ? e.exchanges : [] };
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
  constructor(
    readonly redactor: Redactor,
    private readonly selected: (rule: string) => boolean,
  ) {}

  private add(rule: string, id: string, verdict: Verdict, message: string, evidence: Evidence = {}): void {
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
    });
  }

  /**
   * `observed`: what the target does where the description leaves it open. `exchanges`, when
   * given, are the answers the observation rests on: if none of them was answered, nothing was
   * observed, and the check is an `error` with the cause rather than an observation of nothing.
   */
  private observe(
    rule: string,
    id: string,
    message: string,
    observation: Record<string, unknown>,
    exchanges?: (Exchange | undefined)[] | Exchange,
    extra: Evidence = {},
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
    this.add(rule, id, 'observed', message, ev(exchanges, { ...extra, observation }));
  }

  /** Why no answer came: the requests' own error, else the last could-not-test cause recorded. */
  private causeOfSilence(basis: Exchange[]): string {
    return basis.find((x) => x.error)?.error ?? this.lastCause ?? 'no request it rests on was answered';
  }

  private skip(rule: string, id: string, reason: string): void {
    this.add(rule, id, 'skipped', reason, { cause: reason });
  }

  private error(rule: string, id: string, cause: string, evidence: Evidence = {}): void {
    const line = oneLine(this.redactor.text(cause));
    this.lastCause = line;
    this.add(rule, id, 'error', `could not check: ${line}`, { ...evidence, cause: line });
  }

  /** States judged verdicts, in order. */
  apply(judgements: readonly Judgement[]): void {
    for (const j of judgements) {
      if (j.verdict === 'observed') {
        if (j.observation === undefined) this.add(j.rule, j.id, 'observed', j.message, j.evidence);
        else this.observe(j.rule, j.id, j.message, j.observation, j.exchanges, j.evidence);
      } else if (j.verdict === 'error') this.error(j.rule, j.id, j.message, j.evidence);
      else if (j.verdict === 'skipped') this.skip(j.rule, j.id, j.message);
      else this.add(j.rule, j.id, j.verdict, j.message, j.evidence);
    }
  }
}
