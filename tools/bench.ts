// `npm run bench` - the benchmarks, written to reports/bench/ (results.json, index.html, table.md).
// Flags: BENCH below (also `--help`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { exitWith, UsageError } from '../cli/fatal.js';
import { commandLine, defineCommand } from '../cli/args.js';
import { prepareOutDir } from '../cli/outdir.js';
import { figure, missingFigure, textTable, type Figure } from './bench/figures.js';
import { benchHtml, benchMarkdown, machine, type BenchReport } from './bench/report.js';
import { benchThroughput } from './bench/throughput.js';
import { benchPacing } from './bench/pacing.js';
import { benchProbes } from './bench/probes.js';
import { benchProbeCaps } from './bench/probe-caps.js';
import { benchContracts } from './bench/contracts.js';
import { benchScale } from './bench/scale.js';
import { benchStartup } from './bench/startup.js';
import { benchValidation } from './bench/validation.js';
import { benchFleet, benchMerge } from './bench/fleet.js';
import { runStability, stabilityLine } from './stability.js';
import { benchWaits } from './bench/waits.js';
import { benchTests } from './bench/tests.js';
import { updateBenchDoc } from './bench/doc.js';

interface Settings {
  quick: boolean;
  outRoot: string;
  log: (line: string) => void;
  sections: Record<string, unknown>;
  /** Markdown a section adds below its figures in docs/benchmarks.md. */
  markdown: Record<string, string>;
}

interface Section {
  key: string;
  title: string;
  run(s: Settings): Promise<Figure[]>;
}

const SECTIONS: readonly Section[] = [
  {
    key: 'validation',
    title: 'Validation',
    run: (s) => benchValidation(s.quick ? { reps: 3, ms: 300 } : { reps: 5, ms: 500 }),
  },
  {
    key: 'throughput',
    title: 'Reference throughput',
    run: (s) =>
      benchThroughput(s.quick ? { reps: 1, seconds: 2, connections: 16 } : { reps: 3, seconds: 2, connections: 16 }),
  },
  {
    key: 'pacing',
    title: 'Pacing precision',
    run: (s) =>
      benchPacing(
        s.quick
          ? { reps: 1, rates: [20, 50, 200], seconds: { 20: 3, 50: 2, 200: 1.5 } }
          : { reps: 3, rates: [20, 50, 200], seconds: { 20: 5, 50: 3, 200: 1.5 } },
      ),
  },
  {
    key: 'waits',
    title: 'Where users wait (issue 41)',
    run: (s) =>
      benchWaits({
        reps: s.quick ? 1 : 3,
        outRoot: s.outRoot,
        log: s.log,
        markdown: (text) => (s.markdown.waits = text),
      }),
  },
  {
    key: 'tests',
    title: '`npm test` (issue 41)',
    run: (s) => benchTests({ reps: 1, outRoot: s.outRoot, log: s.log }),
  },
  {
    key: 'contracts',
    title: 'Contract run',
    run: (s) => benchContracts({ reps: s.quick ? 2 : 3, outRoot: s.outRoot }),
  },
  {
    key: 'probes',
    title: 'Probe cost',
    run: (s) => benchProbes({ reps: s.quick ? 1 : 3, outRoot: s.outRoot, log: s.log }),
  },
  {
    key: 'probe-caps',
    title: 'Probe cost by cap',
    run: (s) => benchProbeCaps({ reps: s.quick ? 1 : 3, outRoot: s.outRoot, log: s.log }),
  },
  {
    key: 'fleet',
    title: 'Fleet probes',
    run: (s) => benchFleet({ reps: s.quick ? 1 : 3, nodes: 10, outRoot: s.outRoot, log: s.log }),
  },
  { key: 'merge', title: 'Merge', run: (s) => benchMerge({ reps: s.quick ? 1 : 3, files: 100, outRoot: s.outRoot }) },
  {
    key: 'startup',
    title: 'Start-up',
    run: (s) => benchStartup({ reps: s.quick ? 1 : 3, tries: 5 }),
  },
  { key: 'scale', title: 'Scale', run: (s) => benchScale({ reps: s.quick ? 1 : 3, sizes: [10_000, 100_000] }) },
  {
    key: 'stability',
    title: 'Stability',
    run: async (s) => {
      const runs = 10;
      const r = await runStability({ runs, outRoot: s.outRoot, log: s.log });
      s.sections.stability = { ...r, line: stabilityLine(r) };
      const f = figure({
        id: 'stability.identical',
        group: 'Stability',
        label: 'full runs with identical verdicts, other core busy',
        unit: `of ${runs}`,
        values: [r.identical],
        target: { op: '>=', value: runs },
        note: stabilityLine(r),
      });
      return [f];
    },
  },
];

const LONG_SECTIONS = new Set(['stability', 'tests']);

export const BENCH = defineCommand({
  invocation: 'npm run bench --',
  prefix: 'chainprobe bench',
  summary:
    'The benchmarks: each figure a median over repeated runs with min and max, written to results.json, index.html and table.md.',
  flags: {
    quick: { type: 'boolean', help: 'fewer repetitions, shorter runs, no stability and npm test sections' },
    only: {
      type: 'string',
      value: '<sections>',
      help: `run only these sections, comma-separated: ${SECTIONS.map((s) => s.key).join(', ')}`,
    },
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: 'reports/bench',
      help: 'where the benchmark report goes',
    },
    doc: {
      type: 'string',
      value: '<file.md>',
      path: true,
      default: 'docs/benchmarks.md',
      help: "the Markdown page whose sections the run rewrites (each section's figures, machine, load and date)",
    },
  },
  examples: ['npm run bench', 'npm run bench -- --quick', 'npm run bench -- --only pacing,probes'],
  exit: ['0  every figure that has a target meets it', '1  otherwise', '2  bad flag'],
});

function parseCli(argv: string[]): { quick: boolean; only?: Set<string>; outRoot: string; doc: string } {
  const v = commandLine(BENCH, argv).values;
  const keys = SECTIONS.map((s) => s.key);
  const only = v.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only?.filter((k) => !keys.includes(k)) ?? [];
  if (unknown.length)
    throw new UsageError(`--only: unknown section ${unknown.map((k) => `"${k}"`).join(', ')} (use ${keys.join(', ')})`);
  prepareOutDir(v.out);
  return { quick: v.quick, ...(only?.length && { only: new Set(only) }), outRoot: v.out, doc: v.doc };
}

export async function runBench(o: {
  quick: boolean;
  only?: ReadonlySet<string>;
  outRoot: string;
  /** docs/benchmarks.md: the sections this run measured are written again there. */
  doc?: string;
  log: (l: string) => void;
}): Promise<BenchReport> {
  const started = new Date();
  const host = machine();
  const settings: Settings = { quick: o.quick, outRoot: o.outRoot, log: o.log, sections: {}, markdown: {} };
  const figures: Figure[] = [];
  const measured: { key: string; title: string; figures: Figure[]; startedAt: Date; loadAtStart: number[] }[] = [];
  for (const section of SECTIONS) {
    // Stability and `npm test` take minutes each: a quick run leaves them out.
    if (o.only ? !o.only.has(section.key) : o.quick && LONG_SECTIONS.has(section.key)) continue;
    const t0 = performance.now();
    const first = figures.length;
    const startedAt = new Date();
    const loadAtStart = loadavg().map((v) => Math.round(v * 100) / 100);
    o.log(`bench: ${section.title}...`);
    try {
      figures.push(...(await section.run(settings)));
    } catch (e) {
      figures.push(
        missingFigure(
          { id: `${section.key}.error`, group: section.title, label: 'section', unit: '' },
          (e as Error).message.split('\n')[0]!,
        ),
      );
    }
    o.log(`bench: ${section.title} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    measured.push({ key: section.key, title: section.title, figures: figures.slice(first), startedAt, loadAtStart });
  }
  const finished = new Date();
  const args = [o.quick && '--quick', o.only && `--only ${[...o.only].join(',')}`].filter(Boolean).join(' ');
  const report: BenchReport = {
    tool: 'chainprobe bench',
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    quick: o.quick,
    machine: { ...host, loadAverageAtEnd: loadavg().map((v) => Math.round(v * 100) / 100) },
    command: `npm run bench${args ? ` -- ${args}` : ''}`,
    figures,
    sections: settings.sections,
  };
  mkdirSync(o.outRoot, { recursive: true });
  writeFileSync(join(o.outRoot, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(o.outRoot, 'index.html'), benchHtml(report));
  writeFileSync(join(o.outRoot, 'table.md'), benchMarkdown(report));
  if (o.doc)
    updateBenchDoc(o.doc, {
      machine: report.machine,
      command: report.command,
      quick: o.quick,
      sections: measured.map((m) => ({ ...m, markdown: settings.markdown[m.key] })),
    });
  return report;
}

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  const report = await runBench({ ...cli, log: (l) => process.stderr.write(`${l}\n`) });
  const load = `load average ${report.machine.loadAverageAtStart.join(' ')} at the start, ${report.machine.loadAverageAtEnd?.join(' ')} at the end`;
  process.stdout.write(
    `\n${textTable(report.figures)}\n\ntotal ${(report.durationMs / 1000).toFixed(0)} s (${load}); report: ${join(cli.outRoot, 'index.html')}, ${cli.doc}\n`,
  );
  return report.figures.some((f) => f.met === false || f.missing) ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(BENCH.prefix, e),
  );
}
