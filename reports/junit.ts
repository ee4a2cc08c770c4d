// junit.xml for CI test reporters (Jenkins, GitLab, GitHub test-reporter actions): one testcase
// per check, one testsuite per catalogue section. `observed` passes (the description leaves the
// point open) and carries its observation in system-out.
import type { ResultsFile } from '../src/results.js';
import { RULES, SECTIONS } from '../src/rules/catalogue.js';
import { curlOf } from '../src/record/recorder.js';
import type { CheckResult } from '../src/verdict.js';
import { flattenObservation } from './observation.js';
import { brief, esc, oneLine, show } from './text.js';

const sectionOfRule = new Map(RULES.map((r) => [r.id, r.section]));
const sectionTitle = new Map(SECTIONS.map((s) => [s.key, s.title]));

function sectionOf(rule: string): string {
  return sectionOfRule.get(rule) ?? 'OTHER';
}

const seconds = (ms: number | undefined) => (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? (ms / 1000).toFixed(3) : '0');

function failureText(c: CheckResult): string {
  const ev = c.evidence ?? {};
  const parts = [c.message];
  if ('expected' in ev) parts.push(`expected: ${show(ev.expected, 2000)}`);
  if ('actual' in ev) parts.push(`actual: ${show(ev.actual, 2000)}`);
  if (ev.path !== undefined) parts.push(`path: ${ev.path}`);
  if (ev.cause !== undefined) parts.push(`cause: ${ev.cause}`);
  const first = Array.isArray(ev.exchanges) ? ev.exchanges[0] : undefined;
  if (first) parts.push(`reproduce: ${curlOf(first)}`);
  return parts.join('\n');
}

function observationText(c: CheckResult): string {
  return flattenObservation(c.evidence?.observation ?? {})
    .map(([k, v]) => `${k} = ${brief(v, 400)}`)
    .join('\n');
}

function testcase(c: CheckResult, section: string): string {
  const open = `<testcase classname="${esc(`${section}.${c.rule}`)}" name="${esc(`${c.rule} ${c.id}${c.target === undefined ? '' : ` [${c.target}${c.node ? `/${c.node}` : ''}]`}`)}" time="${seconds(c.durationMs)}"`;
  const msg = esc(oneLine(c.message));
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

function countsOf(checks: readonly CheckResult[]): Counts {
  const n: Counts = { tests: checks.length, failures: 0, errors: 0, skipped: 0, ms: 0 };
  for (const c of checks) {
    if (c.verdict === 'fail') n.failures++;
    else if (c.verdict === 'error') n.errors++;
    else if (c.verdict === 'skipped') n.skipped++;
    n.ms += typeof c.durationMs === 'number' && Number.isFinite(c.durationMs) && c.durationMs > 0 ? c.durationMs : 0;
  }
  return n;
}

const countAttrs = (n: Counts) => `tests="${n.tests}" failures="${n.failures}" errors="${n.errors}" skipped="${n.skipped}"`;

export function renderJunit(results: ResultsFile): string {
  const bySection = new Map<string, CheckResult[]>();
  for (const c of results.checks ?? []) {
    const s = sectionOf(c.rule);
    const list = bySection.get(s);
    if (list) list.push(c);
    else bySection.set(s, [c]);
  }
  const order = [...SECTIONS.map((s) => s.key), 'OTHER'].filter((k) => bySection.has(k));
  // JUnit timestamps are local date-times without a zone; ours are UTC.
  const timestamp = esc(String(results.startedAt ?? '').replace(/(\.\d+)?Z$/, ''));
  const suites = order.map((key) => {
    const checks = bySection.get(key)!;
    const n = countsOf(checks);
    const name = `${key} ${sectionTitle.get(key) ?? 'rules outside the catalogue'}`;
    return `  <testsuite name="${esc(name)}" ${countAttrs(n)} time="${seconds(n.ms)}" timestamp="${timestamp}">\n${checks.map((c) => `    ${testcase(c, key)}`).join('\n')}\n  </testsuite>`;
  });
  const total = countsOf(results.checks ?? []);
  const wall = Date.parse(results.finishedAt) - Date.parse(results.startedAt);
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="${esc(`chainprobe ${results.target}`)}" ${countAttrs(total)} time="${seconds(Number.isFinite(wall) ? wall : total.ms)}">
${suites.join('\n')}
</testsuites>
`;
}
