// Where a contract run's time goes, from its trace (src/stages.ts ContractTrace): the runner's
// start before the first test, each worker slot's time in tests and between them (Playwright's
// own work: fixtures, reporting, a worker started again), and inside the tests what their bodies
// waited on: the network (some request in flight), the worker's CPU, and the rest (pacing, gates).
import type { ContractTrace, TestTrace } from '../../src/stages.js';

export interface FamilyTime {
  family: string;
  tests: number;
  requests: number;
  /** Sums over the family's tests, ms. */
  testMs: number;
  networkMs: number;
  cpuMs: number;
  /** Body time neither in flight nor on the CPU: sleeps, pacing, waiting for a turn. */
  otherMs: number;
}

export interface TraceBreakdown {
  /** Runner spawned to closed, ms. */
  runnerMs: number;
  /** Runner spawned to the first test's start: Playwright loading config and specs, starting workers. */
  startMs: number;
  /** Last test's end to the runner closing: reports, worker shutdown. */
  endMs: number;
  /** Per worker slot: time in tests, and time between its tests (Playwright's per-test work). */
  slots: { slot: number; testMs: number; betweenMs: number; workers: number }[];
  /** Workers started (a new one after each failed test). */
  workers: number;
  runnerCpuMs?: number;
  /** Worker CPU spent before each worker's first test (its start-up), summed. */
  workerStartCpuMs: number;
  families: FamilyTime[];
  /** The longest tests. */
  slowest: TestTrace[];
  /** The contract stage's own work meanwhile, from the runner's spawn (ms). */
  stageWork: { family: string; title: string; fromMs: number; toMs: number; requests: number }[];
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

export function traceBreakdown(trace: ContractTrace, slowest = 6): TraceBreakdown {
  const tests = [...trace.tests].sort((a, b) => a.startTime - b.startTime);
  const first = tests[0]?.startTime ?? trace.closedAt;
  const last = Math.max(first, ...tests.map((t) => t.startTime + t.durationMs));
  const slots = [...new Set(tests.map((t) => t.parallelIndex))]
    .sort((a, b) => a - b)
    .map((slot) => {
      const mine = tests.filter((t) => t.parallelIndex === slot);
      const span = mine.length ? mine.at(-1)!.startTime + mine.at(-1)!.durationMs - mine[0]!.startTime : 0;
      const testMs = sum(mine.map((t) => t.durationMs));
      return {
        slot,
        testMs,
        betweenMs: Math.max(0, span - testMs),
        workers: new Set(mine.map((t) => t.workerIndex)).size,
      };
    });
  const firstOfWorker = new Map<number, TestTrace>();
  for (const t of tests) if (!firstOfWorker.has(t.workerIndex)) firstOfWorker.set(t.workerIndex, t);
  const families = [...new Set(tests.map((t) => t.family))].map((family): FamilyTime => {
    const mine = tests.filter((t) => t.family === family);
    const networkMs = sum(mine.map((t) => t.networkMs ?? 0));
    const cpuMs = sum(mine.map((t) => t.cpuMs ?? 0));
    const bodyMs = sum(mine.map((t) => t.bodyMs ?? t.durationMs));
    return {
      family,
      tests: mine.length,
      requests: sum(mine.map((t) => t.requests ?? 0)),
      testMs: sum(mine.map((t) => t.durationMs)),
      networkMs,
      cpuMs,
      // In flight and on the CPU may overlap (the worker parses one answer while others are out).
      otherMs: Math.max(0, bodyMs - Math.max(networkMs, cpuMs)),
    };
  });
  return {
    runnerMs: trace.closedAt - trace.spawnedAt,
    startMs: first - trace.spawnedAt,
    endMs: trace.closedAt - last,
    slots,
    workers: firstOfWorker.size,
    runnerCpuMs: trace.runnerCpuMs,
    workerStartCpuMs: sum([...firstOfWorker.values()].map((t) => t.workerCpuAtStartMs ?? 0)),
    families: families.sort((a, b) => b.testMs - a.testMs),
    slowest: [...tests].sort((a, b) => b.durationMs - a.durationMs).slice(0, slowest),
    stageWork: (trace.stageWork ?? []).map((w) => ({
      family: w.family,
      title: w.title,
      fromMs: w.startedAt - trace.spawnedAt,
      toMs: w.endedAt - trace.spawnedAt,
      requests: w.requests,
    })),
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The stage's own works by family, times after the runner was started. */
function stageTable(works: TraceBreakdown['stageWork']): string[] {
  if (!works.length) return [];
  const groups = new Map<string, TraceBreakdown['stageWork']>();
  for (const w of works) groups.set(w.family, [...(groups.get(w.family) ?? []), w]);
  const rows = [...groups].map(([family, ws]) => {
    const last = ws.reduce((a, b) => (b.toMs > a.toMs ? b : a));
    const from = Math.min(...ws.map((w) => w.fromMs));
    const requests = ws.reduce((n, w) => n + w.requests, 0);
    return `| ${family} | ${ws.length} | ${requests} | ${s(from)} | ${s(last.toMs)} | ${last.title} |`;
  });
  return [
    '',
    'Sent by the contract stage itself meanwhile (from and to: after the runner was started):',
    '',
    '| family | works | requests | from | to | the last to end |',
    '|---|---|---|---|---|---|',
    ...rows,
  ];
}

/** The breakdown as Markdown: the runner's phases, the worker slots, the families, the slowest tests. */
export function traceMarkdown(title: string, b: TraceBreakdown): string {
  const slotRows = b.slots.map((x) => `| slot ${x.slot} | ${s(x.testMs)} | ${s(x.betweenMs)} | ${x.workers} |`);
  const familyRows = b.families.map(
    (f) =>
      `| ${f.family} | ${f.tests} | ${f.requests} | ${s(f.testMs)} | ${s(f.networkMs)} | ${s(f.cpuMs)} | ${s(f.otherMs)} |`,
  );
  const slowRows = b.slowest.map(
    (t) =>
      `| ${t.family}: ${t.title} | ${s(t.durationMs)} | ${t.requests ?? '-'} | ${s(t.networkMs ?? 0)} | ${s(t.cpuMs ?? 0)} |`,
  );
  return [
    `#### ${title}`,
    '',
    `Playwright runner ${s(b.runnerMs)}: ${s(b.startMs)} before the first test (loading the config and spec files, ` +
      `starting workers), ${s(b.endMs)} after the last (reports, shutdown). ${b.workers} worker(s) started, ` +
      `${s(b.workerStartCpuMs)} of CPU before their first test; the runner itself ${b.runnerCpuMs === undefined ? 'unknown' : s(b.runnerCpuMs)} of CPU.`,
    ...stageTable(b.stageWork),
    '',
    '| worker slot | in tests | between tests (Playwright) | workers |',
    '|---|---|---|---|',
    ...slotRows,
    '',
    '| family | tests | requests | in tests | network (in flight) | worker CPU | other (pacing, waits) |',
    '|---|---|---|---|---|---|---|',
    ...familyRows,
    '',
    '| slowest tests | time | requests | network | CPU |',
    '|---|---|---|---|---|',
    ...slowRows,
    '',
  ].join('\n');
}
