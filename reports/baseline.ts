// Drift against an earlier run (`--baseline <results.json>`): what the target does where the
// description is open (observations) and which verdicts moved. Only checks both runs made are
// compared; rules one run did not run at all (another --only, a stage cut short) are listed as
// not compared instead of as hundreds of vanished checks.
import type { ResultsFile } from '../src/results.js';
import { RULES } from '../src/rules/catalogue.js';
import type { CheckResult, Verdict } from '../src/verdict.js';
import { flattenObservation, isPrimitiveList, sameValue, canonical } from './observation.js';
import { brief, printable } from './text.js';

export const DRIFT_KINDS = [
  'rule-verdict-changed',
  'check-new',
  'check-vanished',
  'verdict-changed',
  'observation-changed',
  'observation-new',
  'observation-vanished',
] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

export interface DriftItem {
  kind: DriftKind;
  rule: string;
  /** Check id; absent for rule-verdict-changed. */
  check?: string;
  /** Observation key (dotted path), for observation kinds. */
  key?: string;
  /** For a list-valued observation (extra field names, ...): the member that came or went. */
  member?: unknown;
  before?: unknown;
  after?: unknown;
  /** One line for people: `AUTH-07 auth.none[nft.event]: status 401 -> 403`. */
  text: string;
}

export interface RunRef {
  target: string;
  startedAt: string;
  toolVersion: string;
}

export interface BaselineDiff {
  previous: RunRef;
  current: RunRef;
  /** Ordered by catalogue rule order, then check id, then kind, then key: stable across runs. */
  items: DriftItem[];
  counts: Record<DriftKind, number>;
  /** Rules with checks in only one of the two runs (not run there): not compared. */
  notCompared: string[];
}

/** Verdicts whose observations mean something: a skipped or errored check observed nothing. */
const OBSERVING: ReadonlySet<Verdict> = new Set(['pass', 'fail', 'observed']);

const ruleOrder = new Map(RULES.map((r, i) => [r.id, i]));
const kindOrder = new Map(DRIFT_KINDS.map((k, i) => [k, i]));

function refOf(r: ResultsFile): RunRef {
  return {
    target: String(r.target ?? ''),
    startedAt: String(r.startedAt ?? ''),
    toolVersion: String(r.tool?.version ?? ''),
  };
}

/** Checks keyed by rule and id; a repeated id gets `#2`, `#3` so none is lost. */
function keyed(checks: readonly CheckResult[]): Map<string, CheckResult & { key: string }> {
  const out = new Map<string, CheckResult & { key: string }>();
  for (const c of checks ?? []) {
    let key = `${c.rule}\u0000${c.id}`;
    for (let n = 2; out.has(key); n++) key = `${c.rule}\u0000${c.id}#${n}`;
    out.set(key, { ...c, key });
  }
  return out;
}

const v = (x: unknown) => brief(x, 80);

function observationDrift(rule: string, check: string, before: unknown, after: unknown): DriftItem[] {
  const items: DriftItem[] = [];
  const prev = new Map(flattenObservation(before ?? {}));
  const cur = new Map(flattenObservation(after ?? {}));
  const head = `${rule} ${check}:`;
  for (const key of new Set([...prev.keys(), ...cur.keys()])) {
    const a = prev.get(key);
    const b = cur.get(key);
    if (!prev.has(key))
      items.push({ kind: 'observation-new', rule, check, key, after: b, text: `${head} new ${key} = ${v(b)}` });
    else if (!cur.has(key))
      items.push({
        kind: 'observation-vanished',
        rule,
        check,
        key,
        before: a,
        text: `${head} ${key} vanished (was ${v(a)})`,
      });
    else if (isPrimitiveList(a) && isPrimitiveList(b)) {
      const inA = new Set(a.map(canonical));
      const inB = new Set(b.map(canonical));
      for (const m of b)
        if (!inA.has(canonical(m)))
          items.push({ kind: 'observation-new', rule, check, key, member: m, text: `${head} ${key} + ${v(m)}` });
      for (const m of a)
        if (!inB.has(canonical(m)))
          items.push({ kind: 'observation-vanished', rule, check, key, member: m, text: `${head} ${key} - ${v(m)}` });
    } else if (!sameValue(a, b))
      items.push({
        kind: 'observation-changed',
        rule,
        check,
        key,
        before: a,
        after: b,
        text: `${head} ${key} ${v(a)} -> ${v(b)}`,
      });
  }
  return items;
}

export function diffBaseline(previous: ResultsFile, current: ResultsFile): BaselineDiff {
  const prev = keyed(previous.checks);
  const cur = keyed(current.checks);
  const rulesOf = (m: Map<string, CheckResult>) => new Set([...m.values()].map((c) => c.rule));
  const prevRules = rulesOf(prev);
  const curRules = rulesOf(cur);
  const compared = new Set([...prevRules].filter((r) => curRules.has(r)));
  const notCompared = [...new Set([...prevRules, ...curRules])].filter((r) => !compared.has(r));

  const items: DriftItem[] = [];
  for (const rule of compared) {
    const a = previous.rules?.[rule];
    const b = current.rules?.[rule];
    if (a !== undefined && b !== undefined && a !== b)
      items.push({ kind: 'rule-verdict-changed', rule, before: a, after: b, text: `${rule}: ${a} -> ${b}` });
  }
  for (const key of new Set([...prev.keys(), ...cur.keys()])) {
    const a = prev.get(key);
    const b = cur.get(key);
    const c = (b ?? a)!;
    if (!compared.has(c.rule)) continue;
    if (!a)
      items.push({
        kind: 'check-new',
        rule: c.rule,
        check: c.id,
        after: c.verdict,
        text: `${c.rule} ${c.id}: new check (${c.verdict})`,
      });
    else if (!b)
      items.push({
        kind: 'check-vanished',
        rule: c.rule,
        check: c.id,
        before: a.verdict,
        text: `${c.rule} ${c.id}: check vanished (was ${a.verdict})`,
      });
    else {
      if (a.verdict !== b.verdict)
        items.push({
          kind: 'verdict-changed',
          rule: c.rule,
          check: c.id,
          before: a.verdict,
          after: b.verdict,
          text: `${c.rule} ${c.id}: ${a.verdict} -> ${b.verdict}`,
        });
      if (OBSERVING.has(a.verdict) && OBSERVING.has(b.verdict))
        items.push(...observationDrift(c.rule, c.id, a.evidence?.observation, b.evidence?.observation));
    }
  }

  const order = (r: string) => ruleOrder.get(r) ?? RULES.length;
  items.sort(
    (x, y) =>
      order(x.rule) - order(y.rule) ||
      x.rule.localeCompare(y.rule) ||
      (x.check ?? '').localeCompare(y.check ?? '') ||
      kindOrder.get(x.kind)! - kindOrder.get(y.kind)! ||
      (x.key ?? '').localeCompare(y.key ?? '') ||
      x.text.localeCompare(y.text),
  );
  for (const i of items) i.text = printable(i.text);
  const counts = Object.fromEntries(DRIFT_KINDS.map((k) => [k, 0])) as Record<DriftKind, number>;
  for (const i of items) counts[i.kind]++;
  notCompared.sort((x, y) => order(x) - order(y) || x.localeCompare(y));
  return { previous: refOf(previous), current: refOf(current), items, counts, notCompared };
}

const KIND_WORDS: Record<DriftKind, [string, string]> = {
  'rule-verdict-changed': ['rule verdict changed', 'rule verdicts changed'],
  'check-new': ['new check', 'new checks'],
  'check-vanished': ['vanished check', 'vanished checks'],
  'verdict-changed': ['check verdict changed', 'check verdicts changed'],
  'observation-changed': ['observation changed', 'observations changed'],
  'observation-new': ['new in observations', 'new in observations'],
  'observation-vanished': ['vanished from observations', 'vanished from observations'],
};

/** Counts in words, e.g. `2 observations changed, 1 vanished from observations`. */
export function describeCounts(diff: BaselineDiff): string {
  return DRIFT_KINDS.filter((k) => diff.counts[k] > 0)
    .map((k) => `${diff.counts[k]} ${KIND_WORDS[k][diff.counts[k] === 1 ? 0 : 1]}`)
    .join(', ');
}

/** Short lines for the terminal's exit summary; the full list is in index.html. */
export function summarizeBaseline(diff: BaselineDiff, maxItems = 10): string[] {
  const since = `the baseline of ${diff.previous.startedAt || 'an earlier run'}${diff.previous.target ? ` (${diff.previous.target})` : ''}`;
  const lines =
    diff.items.length === 0
      ? [`no drift against ${since}`]
      : [`${diff.items.length} change${diff.items.length === 1 ? '' : 's'} against ${since}: ${describeCounts(diff)}`];
  for (const item of diff.items.slice(0, maxItems)) lines.push(item.text);
  if (diff.items.length > maxItems) lines.push(`… and ${diff.items.length - maxItems} more (see index.html)`);
  if (diff.notCompared.length) {
    const shown = diff.notCompared.slice(0, 8).join(', ');
    lines.push(
      `not compared (run in only one of the two runs): ${shown}${diff.notCompared.length > 8 ? ` and ${diff.notCompared.length - 8} more` : ''}`,
    );
  }
  return lines.map(printable);
}
