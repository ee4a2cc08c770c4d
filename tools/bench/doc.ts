// docs/benchmarks.md, written by `npm run bench`: one block per bench section, each with its
// figures, the machine, its load and the date it was measured. A run rewrites the head and the
// blocks of the sections it measured and keeps the others, so `--only waits` does not drop the rest.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { markdownTable, type Figure } from './figures.js';
import type { BenchReport } from './report.js';

export interface DocSection {
  key: string;
  title: string;
  figures: Figure[];
  startedAt: Date;
  loadAtStart: number[];
  /** More of the section's findings, below its table. */
  markdown?: string;
}

const HEAD = `# Benchmarks

Written by \`npm run bench\` (tools/bench.ts); each section below as of its own last run, with the
machine and its load then. Every figure is a median over repetitions with min and max; a ratio's two
sides were measured back to back in the same run. Reproduce a section with
\`npm run bench -- --only <key>\` (its key is in its heading), on a quiet machine: other work on it
makes every timing figure worse. Targets that do not hold say NOT MET; no test fails on a timing.
`;

const begin = (key: string) => `<!-- bench:${key} -->`;
const end = (key: string) => `<!-- /bench:${key} -->`;

function block(s: DocSection, run: { machine: BenchReport['machine']; command: string; quick: boolean }): string {
  const m = run.machine;
  const load = `load average ${s.loadAtStart.join(' ')} at its start, ${loadavg()
    .map((v) => Math.round(v * 100) / 100)
    .join(' ')} at its end`;
  const held = s.figures.filter((f) => f.target);
  const met = held.filter((f) => f.met && f.metEveryRun).length;
  const summary = held.length ? ` Targets: ${met} of ${held.length} met in every repetition.` : '';
  return [
    begin(s.key),
    `## ${s.title} (\`--only ${s.key}\`)`,
    '',
    `Measured ${s.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`${run.command}\`${run.quick ? ' (quick)' : ''} on ` +
      `${m.cpus} cores (${m.cpuModel}), ${m.memoryMB} MB, Node ${m.node}, ${load}.${summary}`,
    '',
    markdownTable(s.figures),
    '',
    ...s.figures.filter((f) => f.note).map((f) => `- ${f.label}: ${f.note}`),
    ...(s.markdown ? ['', s.markdown.trim()] : []),
    end(s.key),
  ].join('\n');
}

/** Writes the measured sections' blocks into the page at `path`, keeping the blocks of sections not measured. */
export function updateBenchDoc(
  path: string,
  run: { machine: BenchReport['machine']; command: string; quick: boolean; sections: DocSection[] },
): void {
  // The head is this module's; the blocks are the runs'.
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const firstBlock = old.indexOf('<!-- bench:');
  let text = firstBlock >= 0 ? `${HEAD}\n${old.slice(firstBlock)}` : HEAD;
  for (const s of run.sections) {
    const b = block(s, run);
    const from = text.indexOf(begin(s.key));
    const to = text.indexOf(end(s.key));
    text =
      from >= 0 && to > from
        ? `${text.slice(0, from)}${b}${text.slice(to + end(s.key).length)}`
        : `${text.trimEnd()}\n\n${b}\n`;
  }
  writeFileSync(path, text.endsWith('\n') ? text : `${text}\n`);
}
