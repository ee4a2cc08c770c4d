// Fleet figures: the probes of 10 horizon nodes at once from one process against one node's
// (wall-time ratio, every node's verdicts equal to the solo run's, pacing error), and the merge of
// 100 results files (time, memory).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildResults } from '../../src/results.js';
import { RULES } from '../../src/rules/catalogue.js';
import { VERDICTS, type CheckResult } from '../../src/verdict.js';
import type { Exchange } from '../../src/record/recorder.js';
import { runChild, type ChildMessage } from './child.js';
import { figure, missingFigure, type Figure } from './figures.js';
import type { FleetProbeNode } from './fleet-child.js';

export interface FleetSettings {
  reps: number;
  nodes: number;
  outRoot: string;
  log?: (line: string) => void;
}

type ProbeResult = ChildMessage & { wallMs: number; nodes: FleetProbeNode[] };

const probeRun = (nodes: number, outDir: string) =>
  runChild<ProbeResult>('tools/bench/fleet-child.ts', ['probes', JSON.stringify({ nodes, outDir })], 240_000);

export async function benchFleet(s: FleetSettings): Promise<Figure[]> {
  const group = `Fleet (${s.nodes} horizon nodes, dedicated 3600/h)`;
  const solo: ProbeResult[] = [];
  const many: ProbeResult[] = [];
  try {
    // Alternated, so a slow spell of the machine hits both sides alike.
    for (let i = 0; i < s.reps; i++) {
      solo.push(await probeRun(1, join(s.outRoot, 'runs', 'fleet-1')));
      many.push(await probeRun(s.nodes, join(s.outRoot, 'runs', `fleet-${s.nodes}`)));
      s.log?.(
        `fleet ${i + 1}/${s.reps}: 1 node ${(solo.at(-1)!.wallMs / 1000).toFixed(1)} s, ${s.nodes} nodes ${(many.at(-1)!.wallMs / 1000).toFixed(1)} s`,
      );
    }
  } catch (e) {
    return [
      missingFigure({ id: 'fleet.wall-ratio', group, label: 'wall time / one node', unit: 'x' }, (e as Error).message),
    ];
  }
  const ratios = many.map((m, i) => m.wallMs / solo[i]!.wallMs);
  // Verdicts: every node of every fleet run against the solo runs' (which agree with each other).
  const soloRules = JSON.stringify(solo[0]!.nodes[0]!.rules);
  const differing = many.flatMap((m) =>
    m.nodes.filter((n) => JSON.stringify(n.rules) !== soloRules).map((n) => n.name),
  );
  const p99 = (rs: ProbeResult[]) => rs.flatMap((r) => r.nodes.map((n) => n.pacing?.p99Ms ?? Number.NaN));
  const max = (rs: ProbeResult[]) => rs.flatMap((r) => r.nodes.map((n) => n.pacing?.maxMs ?? Number.NaN));
  const servers = "each node's reference server in a process of its own, as distinct nodes are distinct machines";
  const note = `${s.nodes} plans on ${s.nodes} tokens in one process (${servers}), against one plan; probes only, reference start-up excluded`;
  return [
    figure({
      id: 'fleet.wall-1',
      group,
      label: 'time to verdict, 1 node',
      unit: 's',
      values: solo.map((r) => r.wallMs / 1000),
    }),
    figure({
      id: `fleet.wall-${s.nodes}`,
      group,
      label: `time to verdict, ${s.nodes} nodes at once`,
      unit: 's',
      values: many.map((r) => r.wallMs / 1000),
      note,
    }),
    figure({
      id: 'fleet.wall-ratio',
      readme: true,
      group,
      label: `${s.nodes} nodes / 1 node, wall time`,
      unit: 'x',
      values: ratios,
      target: { op: '<=', value: 1.3 },
      note,
    }),
    figure({
      id: 'fleet.verdicts-equal',
      group,
      label: "nodes whose RL verdicts equal the solo run's",
      unit: `of ${s.nodes * many.length}`,
      values: [s.nodes * many.length - differing.length],
      target: { op: '>=', value: s.nodes * many.length },
      note: differing.length ? `differing: ${differing.join(', ')}` : 'all equal',
      details: { solo: solo[0]!.nodes[0]!.rules },
    }),
    figure({
      id: 'fleet.pacing-p99-1',
      group,
      label: 'pacing p99 (sent - scheduled), 1 node',
      unit: 'ms',
      values: p99(solo),
    }),
    figure({
      id: `fleet.pacing-p99-${s.nodes}`,
      readme: true,
      group,
      label: `pacing p99 (sent - scheduled), ${s.nodes} nodes at once`,
      unit: 'ms',
      values: p99(many),
      note: 'per node, every request of its plan; compare with the 1-node figure measured alongside (the machine is shared)',
    }),
    figure({
      id: `fleet.pacing-max-${s.nodes}`,
      group,
      label: `pacing max, ${s.nodes} nodes at once (1 node: ${Math.max(...max(solo)).toFixed(2)} ms)`,
      unit: 'ms',
      values: max(many),
    }),
  ];
}

/** A results file the size of a real full run's: every rule checked, exchanges in the evidence. */
function syntheticRun(i: number): string {
  const exchange = (n: number): Exchange => ({
    seq: n,
    sentAt: 1_767_225_600_000 + n,
    method: 'GET',
    url: `https://api.example.invalid/chain-a/mainnet/x/${n}?apiKey=abcd…(redacted)`,
    status: 200,
    durationMs: 12.5,
    requestHeaders: { accept: 'application/json' },
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify({ id: n, items: Array.from({ length: 8 }, (_, k) => ({ k, v: `value-${k}` })) }),
  });
  const checks: CheckResult[] = RULES.flatMap((r, k) =>
    Array.from({ length: 3 }, (_, j) => ({
      id: `${r.id.toLowerCase()}.case-${j}`,
      rule: r.id,
      verdict: VERDICTS[(i + k + j) % 4 === 0 ? 2 : 0]!,
      message: `${r.title}: case ${j}`,
      evidence: { exchanges: [exchange(k * 3 + j), exchange(k * 3 + j + 1)] },
    })),
  );
  return JSON.stringify(
    buildResults({
      target: `deployment-${i % 10}`,
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
      finishedAt: new Date(Date.UTC(2026, 0, 1, 0, i, 40)),
      checks,
      limiter: null,
    }),
  );
}

type MergeRun = ChildMessage & { wallMs: number; maxRssKb: number; runs: number; checks: number };

/** Writes `files` synthetic results files under `dir`; their total size in bytes. */
function writeInputs(dir: string, files: number): number {
  rmSync(dir, { recursive: true, force: true });
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `job-${i}`);
    mkdirSync(sub, { recursive: true });
    const text = syntheticRun(i);
    bytes += text.length;
    writeFileSync(join(sub, 'results.json'), text);
  }
  return bytes;
}

const mergeRun = (dir: string, outDir: string) =>
  runChild<MergeRun>('tools/bench/merge-child.ts', [JSON.stringify({ dir, outDir })], 120_000);

/**
 * `npm run merge` of `files` results files (time, peak RSS), and of a quarter as many alongside:
 * the peak should not grow with the number of files (inputs are read one at a time).
 */
export async function benchMerge(s: { reps: number; files: number; outRoot: string }): Promise<Figure[]> {
  const group = `Merge (${s.files} results files)`;
  const few = Math.max(1, Math.round(s.files / 4));
  const dir = join(s.outRoot, 'runs', 'merge-inputs');
  const fewDir = join(s.outRoot, 'runs', 'merge-inputs-few');
  const bytes = writeInputs(dir, s.files);
  writeInputs(fewDir, few);
  const runs: MergeRun[] = [];
  const fewRuns: MergeRun[] = [];
  try {
    // Alternated, so a slow spell of the machine hits both sides alike.
    for (let i = 0; i < s.reps; i++) {
      fewRuns.push(await mergeRun(fewDir, join(s.outRoot, 'runs', 'merged-few')));
      runs.push(await mergeRun(dir, join(s.outRoot, 'runs', 'merged')));
    }
  } catch (e) {
    return [missingFigure({ id: 'merge.wall', group, label: 'merge time', unit: 's' }, (e as Error).message)];
  } finally {
    rmSync(fewDir, { recursive: true, force: true });
  }
  const files = `${s.files} files of ${(bytes / s.files / 1024).toFixed(0)} kB each (${RULES.length * 3} checks with exchanges)`;
  const note = `${files}, read, merged and written as index.html, results.json, junit.xml; ${runs[0]!.checks} checks merged`;
  const mb = (r: MergeRun) => r.maxRssKb / 1024;
  return [
    figure({
      id: 'merge.wall',
      readme: true,
      group,
      label: `merge of ${s.files} results files`,
      unit: 's',
      values: runs.map((r) => r.wallMs / 1000),
      note,
    }),
    figure({
      id: 'merge.rss',
      readme: true,
      group,
      label: 'peak RSS of the merge process',
      unit: 'MB',
      values: runs.map(mb),
      target: { op: '<=', value: 200 },
      note: `inputs ${(bytes / 1024 / 1024).toFixed(1)} MB in total; the process's own start (Node, tsx, modules) included`,
    }),
    figure({
      id: 'merge.rss-growth',
      group,
      label: `peak RSS, ${s.files} files / ${few} files`,
      unit: 'x',
      values: runs.map((r, i) => mb(r) / mb(fewRuns[i]!)),
      note:
        `${few} files: ${fewRuns.map((r) => mb(r).toFixed(0)).join(', ')} MB; ` +
        'inputs are read one at a time; every check is spooled to disk and the reports read them back a rule at a time',
    }),
  ];
}
