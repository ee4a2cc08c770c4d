// Known failures that expire (--waivers <file.json>, schemas/waivers.schema.json). A waiver names a
// rule (optionally a deployment and a node), a reason and the last day it waives. A failing or
// erroring check it covers keeps its verdict and shows the waiver in every report, but does not
// make the exit status 1 (exitCodeOf, src/results.ts); an expired waiver says so and covers
// nothing; a waiver that covered nothing in a run is stale, so the file does not rot.
import { readFileSync } from 'node:fs';
import { createAjv, type ValidateFunction } from '../schemas/ajv.js';
import { dottedPath, pointerSegments } from '../schemas/paths.js';
import { packagePath } from '../package.js';
import { RULES, isRuleId } from '../rules/catalogue.js';
import { didYouMean } from '../suggest.js';
import { COMPARISON_RULES, isComparisonRuleId } from '../compare/rules.js';
import type { Comparison } from '../compare/types.js';
import type { ResultsFile } from '../results.js';
import type { CheckResult, Verdict } from '../verdict.js';
import type { ResultsCheckWaiver, ResultsWaiverOutcome, ResultsWaivers } from '../types/generated/results.js';
import type { Waiver } from '../types/generated/waivers.js';

// A waiver of the file: schemas/waivers.schema.json's.
export type { Waiver };

/** A check's `waiver`: the waiver that matched it, and whether it had expired (then it waives nothing). */
export type CheckWaiver = ResultsCheckWaiver;

export type WaiverStatus = ResultsWaiverOutcome['status'];

/** results.json `waivers.entries`: each waiver with what became of it in this run. */
export type WaiverOutcome = ResultsWaiverOutcome;

/** results.json `waivers`. */
export type WaiversRecord = ResultsWaivers;

export class WaiverError extends Error {}

let validator: ValidateFunction | undefined;

const isDay = (s: string): boolean => {
  const m = /^(\d{4})-(\d\d)-(\d\d)$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
};

function valueAt(data: unknown, path: readonly string[]): unknown {
  let v = data;
  for (const seg of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[seg] : undefined;
  return v;
}

/** The day of a moment, UTC (`2026-12-04`). */
export const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * The waivers of a parsed waivers file, or a WaiverError with one line naming the first problem:
 * the schema's, an unknown rule id, a date that is not one.
 */
export function parseWaivers(data: unknown): Waiver[] {
  const validate = (validator ??= createAjv().compile(
    JSON.parse(readFileSync(packagePath('schemas', 'waivers.schema.json'), 'utf8')) as object,
  ));
  const problems: string[] = [];
  if (!validate(data)) {
    for (const e of validate.errors ?? []) {
      const where = dottedPath(pointerSegments(e.instancePath)) || '(root)';
      if (e.keyword === 'additionalProperties')
        problems.push(`${where}: unknown field "${String(e.params.additionalProperty)}"`);
      else if (e.keyword === 'required') problems.push(`${where}: needs "${String(e.params.missingProperty)}"`);
      else if (e.instancePath.endsWith('/expires') && (e.keyword === 'pattern' || e.keyword === 'format'))
        problems.push(
          `${where}: ${JSON.stringify(valueAt(data, pointerSegments(e.instancePath)))} is not a date (YYYY-MM-DD)`,
        );
      else problems.push(`${where}: ${e.message ?? 'invalid'}`);
    }
  } else {
    const waivers = (data as { waivers: Waiver[] }).waivers;
    const known = [...RULES.map((r) => r.id), ...COMPARISON_RULES.map((r) => r.id)];
    waivers.forEach((w, i) => {
      if (!isRuleId(w.rule) && !isComparisonRuleId(w.rule))
        problems.push(
          `waivers[${i}].rule: unknown rule id "${w.rule}"${didYouMean(w.rule, known)} (docs/rules.md, docs/compare.md)`,
        );
      if (!isDay(w.expires)) problems.push(`waivers[${i}].expires: "${w.expires}" is not a date (YYYY-MM-DD)`);
    });
  }
  const unique = [...new Set(problems)];
  if (unique.length)
    throw new WaiverError(`${unique[0]}${unique.length > 1 ? ` (and ${unique.length - 1} more)` : ''}`);
  return (data as { waivers: Waiver[] }).waivers.map((w) => ({ ...w }));
}

/** Reads and checks a waivers file; a WaiverError names the file and the first problem in one line. */
export function loadWaivers(path: string): Waiver[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'file not found'
        : code
          ? `cannot read it (${code})`
          : `not valid JSON (${(e as Error).message.split('\n')[0]!.replace(/,\s*".*$/s, '')})`;
    throw new WaiverError(`${path}: ${why}`);
  }
  try {
    return parseWaivers(data);
  } catch (e) {
    throw new WaiverError(`${path}: ${(e as Error).message}`);
  }
}

const FAILING: ReadonlySet<Verdict> = new Set(['fail', 'error']);

/** Whether a waiver names this check: its rule, and its deployment and node where the waiver says. */
function covers(w: Waiver, c: CheckResult, runTarget: string): boolean {
  if (w.rule !== c.rule) return false;
  if (w.target !== undefined && w.target !== (c.target ?? runTarget)) return false;
  if (w.node !== undefined && w.node !== c.node) return false;
  return true;
}

const expired = (w: Waiver, today: string) => w.expires < today;

/** Whether a check is failing or erroring under a waiver that has not expired. */
export const isWaived = (c: Pick<CheckResult, 'verdict'> & { waiver?: unknown }): boolean =>
  FAILING.has(c.verdict) && typeof c.waiver === 'object' && c.waiver !== null && !(c.waiver as CheckWaiver).expired;

const statusOf = (w: Waiver, matched: number, today: string): WaiverStatus =>
  expired(w, today) ? 'expired' : matched ? 'active' : 'stale';

/**
 * Marks the failing and erroring checks the waivers cover (`waiver`, with `expired` for an expired
 * one), counts the waived ones in `summary.waived` and records what became of each waiver in
 * `waivers`. The first waiver that names a check is its waiver. Returns new results; `results` is
 * not changed. `matched` counts, per waiver, the checks it named (for stale across two runs).
 */
export function applyWaivers(
  results: ResultsFile,
  waivers: readonly Waiver[],
  today: string,
): { results: ResultsFile; matched: number[] } {
  const matched = waivers.map(() => 0);
  let waived = 0;
  // An unexpired waiver wins over an expired one that names the same check.
  const order = waivers
    .map((_w, i) => i)
    .sort((i, j) => Number(expired(waivers[i]!, today)) - Number(expired(waivers[j]!, today)));
  const checks = (results.checks ?? []).map((c) => {
    if (!FAILING.has(c.verdict)) return c;
    const i = order.find((k) => covers(waivers[k]!, c, String(results.target ?? '')));
    if (i === undefined) return c;
    matched[i]!++;
    const w = waivers[i]!;
    const mark: CheckWaiver = { ...w, ...(expired(w, today) && { expired: true as const }) };
    if (!mark.expired) waived++;
    return { ...c, waiver: mark };
  });
  const record: WaiversRecord = {
    today,
    entries: waivers.map((w, i) => ({ ...w, status: statusOf(w, matched[i]!, today), matched: matched[i]! })),
  };
  return {
    results: { ...results, checks, summary: { ...results.summary, waived }, waivers: record },
    matched,
  };
}

/**
 * Marks the differences of a comparison an unexpired waiver covers: one naming the difference's
 * comparison rule (CMP-xx) or one of its catalogue rules, for either deployment. Returns the
 * comparison with `waiver` on those rows and `counts.waived`, and each waiver's number of rows.
 */
export function waiveDifferences(
  comparison: Comparison,
  waivers: readonly Waiver[],
  today: string,
): { comparison: Comparison; matched: number[] } {
  const matched = waivers.map(() => 0);
  const targets = [comparison.a.target, comparison.b.target];
  const differences = comparison.differences.map((d) => {
    const i = waivers.findIndex(
      (w) =>
        !expired(w, today) &&
        w.node === undefined &&
        (w.target === undefined || targets.includes(w.target)) &&
        (w.rule === d.cmp || d.rules.includes(w.rule)),
    );
    if (i < 0) return d;
    matched[i]!++;
    const { rule, reason, expires, link, target, node } = waivers[i]!;
    return {
      ...d,
      waiver: { rule, reason, expires, ...(link && { link }), ...(target && { target }), ...(node && { node }) },
    };
  });
  return {
    comparison: {
      ...comparison,
      differences,
      counts: { ...comparison.counts, waived: differences.filter((d) => d.waiver).length },
    },
    matched,
  };
}

/**
 * What became of each waiver over the two runs of a comparison (`checks`: each run's matches) and
 * its differences: stale only when it matched nothing anywhere.
 */
export function waiversRecord(
  waivers: readonly Waiver[],
  checks: readonly (readonly number[])[],
  differences: readonly number[],
  today: string,
): WaiversRecord {
  return {
    today,
    entries: waivers.map((w, i) => {
      const n = checks.reduce((sum, m) => sum + (m[i] ?? 0), 0);
      const d = differences[i] ?? 0;
      return { ...w, status: statusOf(w, n + d, today), matched: n, differences: d };
    }),
  };
}

/** The waivers record of a results file, if it has one. */
export function waiversOf(results: ResultsFile): WaiversRecord | undefined {
  const w = results.waivers as WaiversRecord | undefined;
  return w && Array.isArray(w.entries) ? w : undefined;
}

const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** `2 failing checks, 1 difference`. */
const covered = (w: WaiverOutcome) =>
  [
    w.matched || !w.differences ? count(w.matched, 'failing check') : '',
    w.differences ? count(w.differences, 'difference') : '',
  ]
    .filter(Boolean)
    .join(', ');

/** One line for a waiver's outcome: `NFT-04 (staging) waived until 2027-01-31: price is a string until v2.3 (https://…)`. */
export function waiverLine(w: WaiverOutcome): string {
  const scope = [w.target, w.node].filter(Boolean).join('/');
  const head = `${w.rule}${scope ? ` (${scope})` : ''}`;
  const link = w.link ? ` (${w.link})` : '';
  switch (w.status) {
    case 'active':
      return `${head} waived until ${w.expires}: ${w.reason}${link} (covers ${covered(w)})`;
    case 'expired':
      return `${head} waiver EXPIRED on ${w.expires} and waives nothing: ${w.reason}${link}`;
    default:
      return `${head} waiver is stale (nothing it names failed in this run): ${w.reason}${link}; remove it or let it expire on ${w.expires}`;
  }
}
