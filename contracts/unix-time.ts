// Unix times in seconds (NFT-01 event `timestamp`, NFT-06 asset `mint_date`): a value of the right
// type can still be in the wrong unit. A service that writes milliseconds sends 13 digits that the
// schema's digit pattern accepts, so the plausible range is judged here, beside the schema: not
// before 2009-01-03 (no chain the service serves has a block before it), not after the run's
// start plus one day (clock skew, time zones). The message says what date the value would mean.
// Which fields hold such times is the schemas' to say (`x-unix-seconds: true`), not a list here.
import type { Exchange } from '../src/record/recorder.js';
import { annotatedValues, type SchemaName } from '../src/schemas/validate.js';
import { ev, type Judgement } from './checks.js';

/** 2009-01-03T00:00:00Z in Unix seconds. */
export const EARLIEST_UNIX_SECONDS = Date.UTC(2009, 0, 3) / 1000;
/** How far past the run's start a time may lie. */
export const FUTURE_SLACK_SECONDS = 86_400;

/** Readings tried when a value is out of range as seconds, finest last. */
const UNITS: readonly [unit: string, perSecond: number][] = [
  ['milliseconds', 1e3],
  ['microseconds', 1e6],
  ['nanoseconds', 1e9],
];

/** Largest time a Date holds (ms since the epoch). */
const MAX_DATE_MS = 8.64e15;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');

/** A time in seconds as a date, or its year where the date would not read as one. */
function dateOf(seconds: number): string {
  if (!(seconds * 1000 <= MAX_DATE_MS)) return 'beyond year 275760';
  const year = new Date(seconds * 1000).getUTCFullYear();
  return year > 9999 ? `year ${year}` : iso(seconds);
}

/**
 * What is wrong with `value` as a Unix time in seconds for a run that started at `runStartMs`,
 * in one line that names the field, the value and the date it would mean; undefined when it is
 * plausible, or when it is not a string of digits (the schema's finding, not this one's).
 */
export function unixSecondsProblem(field: string, value: unknown, runStartMs: number): string | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  const latest = Math.floor(runStartMs / 1000) + FUTURE_SLACK_SECONDS;
  const plausible = (s: number) => s >= EARLIEST_UNIX_SECONDS && s <= latest;
  if (plausible(n)) return undefined;
  const shown = value.length > 24 ? `${value.slice(0, 21)}… (${value.length} digits)` : value;
  const reading = n > latest ? UNITS.find(([, per]) => plausible(n / per)) : undefined;
  if (reading)
    return `${field} ${shown} is ${iso(Math.floor(n / reading[1]))} if read as ${reading[0]}; as seconds it is ${dateOf(n)}`;
  const bound = n < EARLIEST_UNIX_SECONDS ? 'before 2009-01-03' : `after the run's start plus one day (${iso(latest)})`;
  return `${field} ${shown} as seconds is ${dateOf(n)}, ${bound}`;
}

const leafOf = (path: string) => path.replace(/^.*[.\]]/, '');

/**
 * The fields of one answer that its schema marks `x-unix-seconds`, judged on `rule` as one check
 * (`<id>.unix-time`): a fail names the first implausible value, a pass the dates read. No check
 * when the answer has no such field with a string of digits (missing or mistyped: the schema's).
 */
export function judgeUnixTimes(
  rule: string,
  id: string,
  name: SchemaName,
  value: unknown,
  runStartMs: number,
  exchange: Exchange | undefined,
  what: string,
): Judgement[] {
  const times = annotatedValues(name, 'x-unix-seconds', value).filter(
    (t): t is { path: string; value: string } => typeof t.value === 'string' && /^\d+$/.test(t.value),
  );
  if (times.length === 0) return [];
  const checkId = `${id}.unix-time`;
  const latest = Math.floor(runStartMs / 1000) + FUTURE_SLACK_SECONDS;
  const expected = `Unix time in seconds, ${iso(EARLIEST_UNIX_SECONDS)} .. ${iso(latest)}`;
  const bad = times
    .map((t) => ({ ...t, problem: unixSecondsProblem(leafOf(t.path), t.value, runStartMs) }))
    .filter((t) => t.problem !== undefined);
  const first = bad[0];
  if (first) {
    const more = bad.length > 1 ? ` (+${bad.length - 1} more)` : '';
    const evidence = ev(exchange, { path: first.path, expected, actual: first.value });
    return [{ verdict: 'fail', rule, id: checkId, message: `${what}: ${first.problem}${more}`, evidence }];
  }
  const read = times.map((t) => `${leafOf(t.path)} ${t.value} is ${iso(Number(t.value))}`).join(', ');
  return [
    {
      verdict: 'pass',
      rule,
      id: checkId,
      message: `${what}: ${read}, a plausible Unix time in seconds`,
      evidence: ev(exchange),
    },
  ];
}
