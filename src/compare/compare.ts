// Two deployments side by side: compareResults(a, b) reads two results files and nothing else, so a
// live `--compare` (both targets run, then this) and `chainprobe compare a.json b.json` (two runs
// made elsewhere) give the same comparison by construction. How each thing is compared is a rule of
// the comparison (src/compare/rules.ts), named beside every difference it finds.
import type { ResultsFile } from '../results.js';
import { RULES, isRuleId, stageOf } from '../rules/catalogue.js';
import { rollUp, type CheckResult, type Verdict } from '../verdict.js';
import { COMPARISON_RULES, DEFAULT_BLOCK_TOLERANCE } from './rules.js';
import { keyedChecks, normalisers, type Keyed, type Normaliser } from './pair.js';
import { diffExchange, pairExchanges, requestTemplate } from './requests.js';
import { canonical, flattenObservation, sameValue } from './values.js';
import { diffLimiter } from './limiter.js';
import { diffLatency } from './latency.js';
import {
  DIFFERENCE_KINDS,
  type Comparison,
  type ComparisonSide,
  type Difference,
  type DifferenceKind,
  type Found,
  type RuleComparison,
} from './types.js';

export * from './types.js';

export interface CompareOptions {
  /** Where each side's results.json is, as the report should name it. */
  paths?: { a?: string; b?: string };
  /** The labels of the two sides (default: their targets' names). */
  labels?: [string, string];
}

/** Verdicts whose evidence holds something observed: a skipped or errored check observed nothing. */
const OBSERVING: ReadonlySet<Verdict> = new Set(['pass', 'fail', 'observed']);

/** Observation fields that restate the check's requests (CMP-14): compared there, once. */
const RESTATED = new Set(['status', 'contentType', 'bodyShape']);

/** Places of a difference listed in a row; the rest are counted. */
const LISTED = 20;

const ruleOrder = new Map(RULES.map((r, i) => [r.id, i]));
const order = (rule: string | undefined) =>
  rule === undefined ? RULES.length + 1 : (ruleOrder.get(rule) ?? RULES.length);
const kindOrder = new Map(DIFFERENCE_KINDS.map((k, i) => [k, i]));

/** The block-number tolerance a run records (results.json `tolerances.blockNumbers`). */
function toleranceOf(r: ResultsFile): number {
  const t = (r.tolerances as { blockNumbers?: unknown } | undefined)?.blockNumbers;
  return typeof t === 'number' && Number.isFinite(t) && t >= 0 ? t : DEFAULT_BLOCK_TOLERANCE;
}

/** Whether a failing or erroring check is covered by an unexpired waiver (src/waivers). */
const waived = (c: CheckResult) => Boolean(c.waiver && !c.waiver.expired);

function sideOf(r: ResultsFile, label: string, path: string | undefined): ComparisonSide {
  const problems = { fail: new Set<string>(), error: new Set<string>(), waived: new Set<string>() };
  for (const c of r.checks ?? []) {
    if (c.verdict !== 'fail' && c.verdict !== 'error') continue;
    problems[waived(c) ? 'waived' : c.verdict].add(c.rule);
  }
  const inOrder = (s: Set<string>) => [...s].sort((x, y) => order(x) - order(y) || x.localeCompare(y));
  const failing = inOrder(problems.fail);
  const errors = inOrder(problems.error).filter((id) => !problems.fail.has(id));
  return {
    label,
    target: String(r.target ?? ''),
    startedAt: String(r.startedAt ?? ''),
    toolVersion: String(r.tool?.version ?? ''),
    ...(path !== undefined && { results: path }),
    failing,
    errors,
    waived: inOrder(problems.waived).filter((id) => !problems.fail.has(id) && !problems.error.has(id)),
  };
}

/** The two labels: the targets' names, told apart when they are the same. */
function labelsOf(a: ResultsFile, b: ResultsFile): [string, string] {
  const [na, nb] = [String(a.target ?? 'a'), String(b.target ?? 'b')];
  return na === nb ? [`${na} (--target)`, `${nb} (--compare)`] : [na, nb];
}

const byRule = (checks: readonly CheckResult[]) => {
  const out = new Map<string, CheckResult[]>();
  for (const c of checks) {
    const list = out.get(c.rule);
    if (list) list.push(c);
    else out.set(c.rule, [c]);
  }
  return out;
};

/** The target-file section a skip names ("target has no api.nft section"), if any. */
const sectionOfSkip = (c: CheckResult | undefined) => (c ? /\bno ([\w.]+) section\b/.exec(c.message)?.[1] : undefined);

/** One value as a table cell and a line show it. */
export function shownValue(v: unknown, absent = 'absent'): string {
  if (v === undefined) return absent;
  if (typeof v === 'string') return v;
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

const KIND_WORDS: Record<DifferenceKind, string> = {
  verdict: 'verdict',
  check: 'check',
  request: 'request',
  status: 'status',
  'content-type': 'content type',
  header: 'header',
  'body-shape': 'body field',
  'rpc-error': 'JSON-RPC error code',
  value: 'value',
  walk: 'NFT walk',
  observation: 'observation',
  limiter: 'rate limiter',
  latency: 'latency',
};

/** What a row is about, in words: `body field data.payments[].price`, `NFT-04 verdict`. */
export function differenceWhat(d: Pick<Difference, 'kind' | 'key' | 'rules'>): string {
  switch (d.kind) {
    case 'verdict':
      return `${d.rules[0] ?? ''} ${d.key}`.trim();
    case 'status':
    case 'content-type':
      return KIND_WORDS[d.kind];
    case 'check':
      return `${d.rules[0] ?? ''} check only on one side`.trim();
    case 'request':
      return `request only on one side: ${d.key}`;
    case 'limiter':
    case 'latency':
      return d.key;
    default:
      return `${KIND_WORDS[d.kind]} ${d.key}`;
  }
}

function rowText(d: Difference, labels: [string, string]): string {
  const where = d.rules.length ? ` · ${d.rules.join(', ')}` : '';
  const places = d.count > 1 ? ` · ${d.count} places` : '';
  return `${differenceWhat(d)}: ${shownValue(d.a)} (${labels[0]}) vs ${shownValue(d.b)} (${labels[1]})${where}${places}`;
}

/** Everything found, one row per difference (a value difference per field), in catalogue order. */
function group(found: readonly Found[], labels: [string, string]): Difference[] {
  const rows = new Map<string, Difference & { checkSet: Set<string>; subjectSet: Set<string>; ruleSet: Set<string> }>();
  for (const f of found) {
    const values =
      f.kind === 'value' ? '' : `${canonical(f.a ?? '\u0000absent')}\u0000${canonical(f.b ?? '\u0000absent')}`;
    const scope = f.kind === 'verdict' || f.kind === 'check' ? (f.rule ?? '') : '';
    const key = `${f.kind}\u0000${f.cmp}\u0000${f.key}\u0000${scope}\u0000${values}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        id: '',
        kind: f.kind,
        cmp: f.cmp,
        key: f.key,
        ...(f.a !== undefined && { a: f.a }),
        ...(f.b !== undefined && { b: f.b }),
        rules: [],
        count: 0,
        checks: [],
        subjects: [],
        text: '',
        checkSet: new Set(),
        subjectSet: new Set(),
        ruleSet: new Set(),
      };
      rows.set(key, row);
    }
    row.count++;
    if (f.rule) row.ruleSet.add(f.rule);
    if (f.check) row.checkSet.add(f.check);
    if (f.subject) row.subjectSet.add(f.subject);
  }
  const out: Difference[] = [...rows.values()].map(({ checkSet, subjectSet, ruleSet, ...row }) => ({
    ...row,
    rules: [...ruleSet].sort((x, y) => order(x) - order(y) || x.localeCompare(y)),
    checks: [...checkSet].slice(0, LISTED),
    subjects: [...subjectSet].slice(0, LISTED),
  }));
  out.sort(
    (x, y) =>
      order(x.rules[0]) - order(y.rules[0]) ||
      (x.rules[0] ?? '').localeCompare(y.rules[0] ?? '') ||
      kindOrder.get(x.kind)! - kindOrder.get(y.kind)! ||
      x.key.localeCompare(y.key) ||
      canonical(x.a ?? null).localeCompare(canonical(y.a ?? null)),
  );
  out.forEach((d, i) => {
    d.id = `D${i + 1}`;
    d.text = rowText(d, labels);
  });
  return out;
}

/** The walk's counts (CMP-13) from an NFT-10 check's evidence. */
function walkOf(c: CheckResult): Record<string, unknown> | undefined {
  const w = c.evidence?.walk;
  return w !== null && typeof w === 'object' && !Array.isArray(w) ? (w as Record<string, unknown>) : undefined;
}

/** Whether a check's bracketed resource ids are the same on both sides (nothing was renumbered). */
const sameResources = (x: Keyed) => !/\[#\d+\]/.test(x.id);

function diffChecks(x: Keyed, y: Keyed, na: Normaliser, nb: Normaliser, tolerance: number, emit: (f: Found) => void) {
  const [ca, cb] = [x.check, y.check];
  const put = (f: Omit<Found, 'rule' | 'check'>) => emit({ ...f, rule: ca.rule, check: x.id });
  // The rate-limit probes are compared by what they concluded (CMP-11), not request by request.
  if (isRuleId(ca.rule) && stageOf(ca.rule) === 'probes') return;
  const xa = ca.evidence?.exchanges ?? [];
  const xb = cb.evidence?.exchanges ?? [];
  const paired = pairExchanges(
    xa,
    xb,
    (p) => na.checkId(p),
    (p) => nb.checkId(p),
  );
  for (const [p, q] of paired.pairs) diffExchange(p, q, tolerance, (f) => put(f));
  // A request only one side sent: only where both sides' checks observed something (an error stops early).
  if (OBSERVING.has(ca.verdict) && OBSERVING.has(cb.verdict)) {
    for (const p of paired.onlyA)
      put({ kind: 'request', cmp: 'CMP-03', key: requestTemplate(p), a: 'sent', subject: requestTemplate(p) });
    for (const q of paired.onlyB)
      put({ kind: 'request', cmp: 'CMP-03', key: requestTemplate(q), b: 'sent', subject: requestTemplate(q) });
  }
  if (!OBSERVING.has(ca.verdict) || !OBSERVING.has(cb.verdict)) return;
  const withRequests = xa.length > 0 && xb.length > 0;
  const oa = new Map(flattenObservation(ca.evidence?.observation ?? {}));
  const ob = new Map(flattenObservation(cb.evidence?.observation ?? {}));
  for (const k of [...new Set([...oa.keys(), ...ob.keys()])].sort()) {
    if (withRequests && RESTATED.has(k.split('.')[0]!)) continue;
    const [va, vb] = [oa.get(k), ob.get(k)];
    if (oa.has(k) && ob.has(k) && sameValue(va, vb)) continue;
    put({ kind: 'observation', cmp: 'CMP-14', key: k, ...(oa.has(k) && { a: va }), ...(ob.has(k) && { b: vb }) });
  }
  const wa = walkOf(ca);
  const wb = walkOf(cb);
  if (wa && wb) {
    const sizes = ['pages', 'items', 'distinctItems'];
    for (const k of [...new Set([...Object.keys(wa), ...Object.keys(wb)])].sort()) {
      if (sizes.includes(k) && !sameResources(x)) continue;
      if (!sameValue(wa[k], wb[k])) put({ kind: 'walk', cmp: 'CMP-13', key: k, a: wa[k], b: wb[k] });
    }
  }
}

function verdictOf(r: ResultsFile, rule: string, checks: readonly CheckResult[] | undefined): Verdict {
  return (r.rules?.[rule] as Verdict | undefined) ?? rollUp((checks ?? []).map((c) => c.verdict));
}

/**
 * Compares two runs. `a` is the run of `--target` (the reference side, say production), `b` the
 * run of `--compare` (say staging). Nothing here reads a file or the clock.
 */
export function compareResults(a: ResultsFile, b: ResultsFile, options: CompareOptions = {}): Comparison {
  const labels = options.labels ?? labelsOf(a, b);
  const tolerance = Math.max(toleranceOf(a), toleranceOf(b));
  const checksA = a.checks ?? [];
  const checksB = b.checks ?? [];
  const [na, nb] = normalisers(checksA, checksB);
  const ra = byRule(checksA);
  const rb = byRule(checksB);
  const found: Found[] = [];
  const emit = (f: Found) => found.push(f);
  const rules: RuleComparison[] = [];
  const absent = new Map<string, { section: string; side: 'a' | 'b'; rules: string[] }>();
  const onlyIn = { a: 0, b: 0 };
  const extra = [...new Set([...ra.keys(), ...rb.keys()])].filter((id) => !ruleOrder.has(id)).sort();

  for (const rule of [...RULES.map((r) => r.id), ...extra]) {
    const [ca, cb] = [ra.get(rule) ?? [], rb.get(rule) ?? []];
    const [va, vb] = [verdictOf(a, rule, ca), verdictOf(b, rule, cb)];
    const row: RuleComparison = { rule, a: va, b: vb, differences: [] };
    rules.push(row);
    const ranA = ca.some((c) => c.verdict !== 'skipped');
    const ranB = cb.some((c) => c.verdict !== 'skipped');
    if (!ranA || !ranB) {
      // Neither side checked it (not selected, no section on either): nothing to compare, nothing to say.
      if (ranA || ranB) {
        const [side, theirs, label] = ranA ? (['b', cb, labels[1]] as const) : (['a', ca, labels[0]] as const);
        const skip = theirs.find((c) => c.verdict === 'skipped');
        row.notCompared = skip ? `skipped on ${label}: ${skip.message}` : `not run on ${label}`;
        const section = sectionOfSkip(skip);
        if (section) {
          const entry = absent.get(`${side}\u0000${section}`) ?? { section, side, rules: [] };
          entry.rules.push(rule);
          absent.set(`${side}\u0000${section}`, entry);
        }
      }
      continue;
    }
    const ka = keyedChecks(ca, na);
    const kb = keyedChecks(cb, nb);
    const checkVerdicts: Found[] = [];
    for (const [key, x] of ka) {
      const y = kb.get(key);
      if (!y) {
        onlyIn.a++;
        emit({ kind: 'check', cmp: 'CMP-01', rule, key: 'check', a: x.check.verdict, check: x.id });
        continue;
      }
      if (x.check.verdict !== y.check.verdict)
        checkVerdicts.push({
          kind: 'verdict',
          cmp: 'CMP-02',
          rule,
          key: 'check verdict',
          a: x.check.verdict,
          b: y.check.verdict,
          check: x.id,
        });
      diffChecks(x, y, na, nb, tolerance, emit);
    }
    for (const [key, y] of kb)
      if (!ka.has(key)) {
        onlyIn.b++;
        emit({ kind: 'check', cmp: 'CMP-01', rule, key: 'check', b: y.check.verdict, check: y.id });
      }
    if (va !== vb) {
      // One row for the rule: the checks whose verdicts moved are its places.
      if (!checkVerdicts.length) emit({ kind: 'verdict', cmp: 'CMP-02', rule, key: 'verdict', a: va, b: vb });
      for (const f of checkVerdicts) emit({ ...f, key: 'verdict', a: va, b: vb });
    } else for (const f of checkVerdicts) emit(f);
  }
  diffLimiter(a, b, emit);
  const latency = diffLatency(checksA, checksB, emit);

  const differences = group(found, labels);
  const rowOf = new Map(rules.map((r) => [r.rule, r]));
  for (const d of differences) for (const rule of d.rules) rowOf.get(rule)?.differences.push(d.id);
  const notCompared = rules.filter((r) => r.notCompared !== undefined).length;
  const compared = rules.filter(
    (r) =>
      r.notCompared === undefined && [ra, rb].every((m) => (m.get(r.rule) ?? []).some((c) => c.verdict !== 'skipped')),
  ).length;
  return {
    a: sideOf(a, labels[0], options.paths?.a),
    b: sideOf(b, labels[1], options.paths?.b),
    rules: [...COMPARISON_RULES],
    blockNumberTolerance: tolerance,
    differences,
    byRule: rules,
    latency,
    absentSections: [...absent.values()],
    onlyIn,
    counts: {
      differences: differences.length,
      waived: 0,
      rulesCompared: compared,
      rulesNotCompared: notCompared,
    },
  };
}
