// junit.xml for CI test reporters (Jenkins, GitLab, GitHub test-reporter actions): one testcase
// per check, one testsuite per catalogue section. `observed` passes (the description leaves the
// point open) and carries its observation in system-out.
import type { ResultsFile } from '../src/results.js';
import { RULES, SECTIONS } from '../src/rules/catalogue.js';
import { emptySummary, type CheckResult } from '../src/verdict.js';
import { checkSetOf, type CheckSet } from '../src/check-set.js';
import { flattenObservation } from './observation.js';
import { brief, esc, failureText, oneLine } from './text.js';
import { isWaived } from '../src/waivers/waivers.js';

const sectionOfRule = new Map(RULES.map((r) => [r.id, r.section]));
const sectionTitle = new Map(SECTIONS.map((s) => [s.key, s.title]));

function sectionOf(rule: string): string {
  return sectionOfRule.get(rule) ?? 'OTHER';
}

const seconds = (ms: number | undefined) =>
  typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? (ms / 1000).toFixed(3) : '0';
const finite = (ms: unknown): number | undefined =>
  typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;

/**
 * A check's time: its own (contract checks: the test's time since its previous verdicts), else,
 * for a rate-limit check, the probes' whole run, which every such verdict is drawn from.
 */
function durationOf(c: CheckResult, probesMs: number | undefined): { ms: number; shared: boolean } {
  const own = finite(c.durationMs);
  if (own !== undefined) return { ms: own, shared: false };
  if (probesMs !== undefined && sectionOf(c.rule) === 'RL') return { ms: probesMs, shared: true };
  return { ms: 0, shared: false };
}

function observationText(c: CheckResult): string {
  return flattenObservation(c.evidence?.observation ?? {})
    .map(([k, v]) => `${k} = ${brief(v, 400)}`)
    .join('\n');
}

function testcase(c: CheckResult, section: string, probesMs: number | undefined): string {
  const where = c.target === undefined ? '' : ` [${c.target}${c.node ? `/${c.node}` : ''}]`;
  const name = `${c.rule} ${c.id}${where}`;
  const time = seconds(durationOf(c, probesMs).ms);
  const open = `<testcase classname="${esc(`${section}.${c.rule}`)}" name="${esc(name)}" time="${time}"`;
  const msg = esc(oneLine(c.message));
  // A failure a waiver covers (--waivers) does not fail the build: skipped, with the waiver and what failed.
  if (isWaived(c)) {
    const w = c.waiver!;
    const why = `waived until ${w.expires}: ${w.reason}${w.link ? ` (${w.link})` : ''}; the check had ${c.verdict}: ${c.message}`;
    return `${open}><skipped message="${esc(oneLine(why))}"/></testcase>`;
  }
  switch (c.verdict) {
    case 'fail':
      return `${open}><failure message="${msg}" type="fail">${esc(failureText(c))}</failure></testcase>`;
    case 'error':
      return `${open}><error message="${msg}" type="${esc(oneLine(String(c.evidence?.cause ?? 'error'), 80))}">${esc(failureText(c))}</error></testcase>`;
    case 'skipped':
      return `${open}><skipped message="${msg}"/></testcase>`;
    case 'observed': {
      const obs = observationText(c);
      return `${open}><system-out>${esc(`observed: ${c.message}${obs ? `\n${obs}` : ''}`)}</system-out></testcase>`;
    }
    default:
      return `${open}/>`;
  }
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
}

/** Counts, and the time: the checks' own times, plus the probes' shared time once. */
function countsOf(checks: Iterable<CheckResult>, probesMs: number | undefined): Counts {
  const n: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0, ms: 0 };
  let shared = 0;
  for (const c of checks) {
    n.tests++;
    if (isWaived(c)) n.skipped++;
    else if (c.verdict === 'fail') n.failures++;
    else if (c.verdict === 'error') n.errors++;
    else if (c.verdict === 'skipped') n.skipped++;
    const d = durationOf(c, probesMs);
    if (d.shared) shared = d.ms;
    else n.ms += d.ms;
  }
  n.ms += shared;
  return n;
}

const countAttrs = (n: Counts) =>
  `tests="${n.tests}" failures="${n.failures}" errors="${n.errors}" skipped="${n.skipped}"`;

export function renderJunit(results: ResultsFile, checks?: CheckSet): string {
  return [...renderJunitParts(results, checks)].join('');
}

/**
 * The file in pieces, a suite at a time, each suite read rule by rule from `checks` (a merge keeps
 * its checks on disk: src/fleet/check-spool.ts), so the whole file is never held.
 */
export function* renderJunitParts(results: ResultsFile, checks = checkSetOf(results.checks ?? [])): Generator<string> {
  const rulesOf = new Map<string, string[]>();
  for (const rule of checks.rules()) {
    const s = sectionOf(rule);
    rulesOf.set(s, [...(rulesOf.get(s) ?? []), rule]);
  }
  const probesMs = finite(results.limiter?.durationMs);
  const order = [...SECTIONS.map((s) => s.key), 'OTHER'].filter((k) => rulesOf.has(k));
  // JUnit timestamps are local date-times without a zone; ours are UTC.
  const timestamp = esc(String(results.startedAt ?? '').replace(/(\.\d+)?Z$/, ''));
  const summary = results.summary ?? emptySummary();
  const wall = Date.parse(results.finishedAt) - Date.parse(results.startedAt);
  // Waived failures count as skipped (testcase below); they are counted only where a run has any.
  const waived = summary.waived ? countsOf(checks.all(), probesMs) : undefined;
  const total: Counts = {
    tests: checks.count,
    failures: waived?.failures ?? summary.fail,
    errors: waived?.errors ?? summary.error,
    skipped: waived?.skipped ?? summary.skipped,
    ms: 0,
  };
  // Without the run's own times, the checks' times add up (a pass of its own: it is rarely needed).
  const ms = Number.isFinite(wall) ? wall : countsOf(checks.all(), probesMs).ms;
  yield `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="${esc(`chainprobe ${results.target}`)}" ${countAttrs(total)} time="${seconds(ms)}">
`;
  for (const [i, key] of order.entries()) {
    // A suite's checks one rule at a time, twice (its counts head it): a section of a large merge
    // holds tens of thousands, and held whole they made the merge's peak grow with its inputs.
    const mine = function* () {
      for (const rule of rulesOf.get(key)!) yield* checks.of(rule);
    };
    const n = countsOf(mine(), probesMs);
    const name = `${key} ${sectionTitle.get(key) ?? 'rules outside the catalogue'}`;
    yield `${i ? '\n' : ''}  <testsuite name="${esc(name)}" ${countAttrs(n)} time="${seconds(n.ms)}" timestamp="${timestamp}">\n`;
    for (const c of mine()) yield `    ${testcase(c, key, probesMs)}\n`;
    yield '  </testsuite>';
  }
  yield '\n</testsuites>\n';
}
