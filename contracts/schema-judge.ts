// A record judged against its JSON Schema, as pure functions returning Judgements (contracts/plan.ts):
// each rule the schema's fields serve (their x-rules) passes or fails on its own problems, and RES-02
// observes the fields beyond the documented ones. The same checks as Checks.schema and Checks.extras,
// for judges that never hold a Checks.
import type { Exchange } from '../src/record/recorder.js';
import { validate, type SchemaName } from '../src/schemas/validate.js';
import { ev, ExtraFieldsByResource, type Judgement } from './checks.js';

/** Problems kept in a failing check's evidence (the message names the first). */
const MAX_PROBLEMS = 10;

/**
 * One check per rule of `rules` on a record: it fails on the problems of the fields that serve the
 * rule (the schemas' x-rules), naming the first, and passes otherwise. The record is validated once.
 */
export function judgeSchema(
  rules: readonly string[],
  id: string,
  name: SchemaName,
  value: unknown,
  exchange?: Exchange,
  what: string = name,
): Judgement[] {
  const problems = validate(name, value);
  return rules.map((rule): Judgement => {
    const mine = problems.filter((p) => p.rules.includes(rule));
    if (mine.length === 0)
      return {
        rule,
        id,
        verdict: 'pass',
        message: `${what}: every documented field present with its documented type`,
        evidence: ev(exchange),
      };
    const first = mine[0]!;
    const more = mine.length > 1 ? ` (+${mine.length - 1} more)` : '';
    return {
      rule,
      id,
      verdict: 'fail',
      message: `${what}: ${first.message}${more}`,
      evidence: ev(exchange, {
        path: first.path,
        expected: first.expected,
        actual: first.actual,
        problems: mine.slice(0, MAX_PROBLEMS).map((p) => p.message),
      }),
    };
  });
}

/** RES-02 on a record: the fields it carries beyond the documented ones, by resource, observed. */
export function judgeExtras(
  id: string,
  name: SchemaName,
  value: unknown,
  exchange?: Exchange,
  what: string = name,
): Judgement {
  const { byResource, names } = new ExtraFieldsByResource().add(name, value, what).rollUp();
  return {
    rule: 'RES-02',
    id,
    verdict: 'observed',
    message: names.length
      ? `${what}: ${names.length} field(s) beyond the documented ones: ${names.join(', ')}`
      : `${what}: no fields beyond the documented ones`,
    observation: { extraFields: byResource },
    exchanges: exchange,
  };
}
