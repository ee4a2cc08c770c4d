// Merging runs made elsewhere (CI matrix jobs, k6 runners' handleSummary output) into one results
// file. Checks are concatenated, so the summary is the sum of the runs' summaries and `rules` rolls
// up over everything; the fleet section is recomputed from the checks. The same run given twice
// (an artifact downloaded into two folders, a file named twice) is counted once: runs are told
// apart by a digest of what they are (target, times, checks), not by the path they came from.
// Inputs are taken one at a time: given a sink, every check goes there and the merge keeps none,
// only their tallies (summary, rules, fleet), so memory stays small however many runs are merged;
// the reports then read the checks back from the sink (src/fleet/check-spool.ts).
import { createHash } from 'node:crypto';
import type { Exchange } from '../record/recorder.js';
import { buildResults, type LimiterEstimates, type ResultsFile } from '../results.js';
import { VERDICTS, type CheckResult, type Verdict } from '../verdict.js';
import { checkSetOf, Tally, type CheckSet } from '../check-set.js';
import { FleetTally, fleetOf, rollupFleet, type FleetNodeInfo } from './rollup.js';

export interface MergeInput {
  /** Where the run came from (shown in the report). */
  source: string;
  results: ResultsFile;
}

export interface MergedRun {
  source: string;
  target: string;
  startedAt: string;
  finishedAt: string;
  checks: number;
  engine?: string;
}

export interface MergeOutcome {
  /** Without a sink, with every check; with one, with none (`checks` reads them from the sink). */
  results: ResultsFile;
  /** The merged checks, rule by rule: the sink, or the results' own. */
  checks: CheckSet;
  runs: MergedRun[];
  /** Inputs that repeat a run already taken: counted once. */
  duplicates: { source: string; sameRunAs: string }[];
}

/** Whether parsed JSON is a chainprobe results file (of any run: npm start, a fleet, k6, a merge). */
export function isResultsFile(v: unknown): v is ResultsFile {
  const r = v as ResultsFile;
  return (
    !!r &&
    typeof r === 'object' &&
    r.tool?.name === 'chainprobe' &&
    Array.isArray(r.checks) &&
    !!r.summary &&
    typeof r.target === 'string' &&
    r.checks.every((c) => c && typeof c.rule === 'string' && (VERDICTS as readonly string[]).includes(c.verdict))
  );
}

/** A run's identity: what it is, not where it was found. */
export function runDigest(r: ResultsFile): string {
  return createHash('sha256')
    .update(JSON.stringify([r.tool?.name, r.target, r.startedAt, r.finishedAt, r.node ?? null, r.checks]))
    .digest('hex');
}

/**
 * The checks of one run, each naming its deployment (and node where the run knows it). A run
 * without a fleet section probed at most one horizon node: when its probes ran (it has limiter
 * estimates) its RL checks are that node's, named by the run's `node` (a k6 runner's
 * CHAINPROBE_NODE_NAME) or else "horizon".
 */
function probedNode(r: ResultsFile): string | undefined {
  if (fleetOf(r) || !r.limiter) return undefined;
  return typeof r.node === 'string' ? r.node : 'horizon';
}

function attributed(r: ResultsFile): CheckResult[] {
  const node = probedNode(r);
  return r.checks.map((c) => {
    if (c.target !== undefined) return c;
    if (node && c.rule.startsWith('RL-')) return { ...c, target: r.target, node, nodeKind: 'horizon' };
    return { ...c, target: r.target };
  });
}

/** The nodes a run knows of: its fleet section's, or the one horizon node its probes ran on. */
function nodesOfRun(r: ResultsFile): FleetNodeInfo[] {
  const fleet = fleetOf(r);
  if (fleet)
    return fleet.nodes.map(({ target, kind, name, requestsSent, limiter, sameTokenAs }) => ({
      target,
      kind,
      name,
      requestsSent,
      ...(kind === 'horizon' && { limiter }),
      ...(sameTokenAs && { sameTokenAs }),
    }));
  const name = probedNode(r);
  const limiter = r.limiter as LimiterEstimates | null;
  return name && limiter
    ? [
        {
          target: r.target,
          kind: 'horizon',
          name,
          requestsSent: { contracts: null, probes: limiter.requestsSent },
          limiter,
        },
      ]
    : [];
}

function targetsOfRun(r: ResultsFile): { name: string; requestsSent: number | null }[] {
  const fleet = fleetOf(r);
  if (fleet) return fleet.targets.map((t) => ({ name: t.name, requestsSent: t.requestsSent }));
  return [{ name: r.target, requestsSent: null }];
}

/** Verdicts whose exchanges the reports show in full (request, response, curl line); others show one line each. */
const DETAILED: ReadonlySet<Verdict> = new Set(['fail', 'error']);

/** An exchange as the reports list it on one line: method, URL, status or error, time, purpose. */
function exchangeLine(x: Exchange): Exchange {
  const { seq, purpose, method, url, status, durationMs, error, sentAt } = x;
  return { seq, purpose, method, url, status, durationMs, error, sentAt, requestHeaders: {}, responseHeaders: {} };
}

/** What the HTML and JUnit reports read of a check: all of it but the headers and bodies of exchanges they list on one line. */
export function slimCheck(c: CheckResult): CheckResult {
  const exchanges = c.evidence?.exchanges;
  if (!Array.isArray(exchanges) || !exchanges.length || DETAILED.has(c.verdict)) return c;
  return { ...c, evidence: { ...c.evidence, exchanges: exchanges.map(exchangeLine) } };
}

/** Where a merge hands every check in full, in order, and the reports read them back from. */
export interface MergeSink extends CheckSet {
  add(c: CheckResult): void;
}

export function mergeResults(inputs: Iterable<MergeInput>, now = new Date(), sink?: MergeSink): MergeOutcome {
  const seen = new Map<string, string>();
  let interrupted = false;
  const runs: MergedRun[] = [];
  const duplicates: MergeOutcome['duplicates'] = [];
  const checks: CheckResult[] = [];
  const tally = new Tally();
  const fleetTally = new FleetTally();
  const nodes = new Map<string, FleetNodeInfo>();
  const targets = new Map<string, number | null>();
  for (const { source, results: r } of inputs) {
    interrupted ||= r.interrupted === true;
    const digest = runDigest(r);
    const first = seen.get(digest);
    if (first !== undefined) {
      duplicates.push({ source, sameRunAs: first });
      continue;
    }
    seen.set(digest, source);
    runs.push({
      source,
      target: r.target,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      checks: r.checks.length,
      ...(typeof r.engine === 'string' && { engine: r.engine }),
    });
    for (const c of attributed(r)) {
      tally.add(c);
      fleetTally.add(c);
      if (sink) sink.add(c);
      else checks.push(c);
    }
    for (const t of targetsOfRun(r)) {
      const before = targets.get(t.name);
      targets.set(
        t.name,
        before === undefined
          ? t.requestsSent
          : before === null || t.requestsSent === null
            ? null
            : before + t.requestsSent,
      );
    }
    // A node met in two runs (two CI runs of one deployment) keeps the later run's estimates.
    for (const n of nodesOfRun(r)) nodes.set(`${n.target}\u0000${n.kind}\u0000${n.name}`, n);
  }
  const times = runs.flatMap((r) => [Date.parse(r.startedAt), Date.parse(r.finishedAt)]).filter(Number.isFinite);
  const horizons = [...nodes.values()].filter((n) => n.kind === 'horizon' && !n.sameTokenAs);
  const fleet = rollupFleet({
    checks: fleetTally,
    targets: [...targets].map(([name, requestsSent]) => ({ name, requestsSent })),
    nodes: [...nodes.values()],
  });
  const results = buildResults({
    target: [...targets.keys()].join(', '),
    startedAt: times.length ? new Date(Math.min(...times)) : now,
    finishedAt: times.length ? new Date(Math.max(...times)) : now,
    checks,
    tally,
    limiter: horizons.length === 1 ? (horizons[0]!.limiter ?? null) : null,
    extra: {
      merged: {
        runs,
        duplicates,
        note: duplicates.length
          ? `${duplicates.length} input(s) repeat a run already merged and were counted once`
          : 'no input repeated another',
      },
      interrupted,
      fleet,
    },
  });
  return { results, checks: sink ?? checkSetOf(checks), runs, duplicates };
}
