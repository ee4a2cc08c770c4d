// Writes a run's reports into the output folder: results.json (the fixed interface), junit.xml,
// index.html and the probes' raw timeline.json; baseline-diff.json too when a baseline was given,
// and the HAR of every exchange where --har asked for one.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ResultsFile } from '../src/results.js';
import type { TimelineEntry } from '../src/stages.js';
import type { BaselineDiff } from './baseline.js';
import { renderHtml } from './html.js';
import { harJson, type HarExchange } from './har.js';
import { renderJunit } from './junit.js';
import { PLAYWRIGHT_DIR, REPORT_FILES } from '../src/out-files.js';

export interface ReportInputs {
  results: ResultsFile;
  /** The probes' requests (may be empty). */
  timeline: TimelineEntry[];
  /** Relative path under outDir of the Playwright HTML report, e.g. 'playwright/index.html'. */
  playwrightReport?: string;
  /** When --baseline was given. */
  baseline?: BaselineDiff;
  /** --history: the last runs, this one last. */
  history?: readonly ResultsFile[];
  /** --har: where to write the HAR, and the run's recorded exchanges. */
  har?: { file: string; exchanges: readonly HarExchange[] };
}

export { PLAYWRIGHT_DIR, REPORT_FILES };

/**
 * Removes what a run writes into outDir, before it starts: a run cut short (Ctrl-C kills the
 * contract runner before it writes its report) must not leave the previous run's files beside its
 * own partial report. Nothing else in the folder is touched.
 */
export async function clearReports(outDir: string): Promise<void> {
  await Promise.all(
    [...Object.values(REPORT_FILES), PLAYWRIGHT_DIR].map((name) =>
      rm(join(outDir, name), { recursive: true, force: true }),
    ),
  );
}

/** One entry a line: greppable and diffable, still valid JSON. */
export function timelineJson(timeline: readonly TimelineEntry[]): string {
  return timeline.length ? `[\n${timeline.map((e) => JSON.stringify(e)).join(',\n')}\n]\n` : '[]\n';
}

export async function writeReports(outDir: string, inputs: ReportInputs): Promise<{ files: string[] }> {
  await mkdir(outDir, { recursive: true });
  const timeline = inputs.timeline ?? [];
  const contents: [string, string][] = [
    [REPORT_FILES.results, `${JSON.stringify(inputs.results, null, 2)}\n`],
    [REPORT_FILES.junit, renderJunit(inputs.results)],
    [REPORT_FILES.timeline, timelineJson(timeline)],
    [
      REPORT_FILES.html,
      renderHtml({
        results: inputs.results,
        timeline,
        playwrightReport: inputs.playwrightReport,
        baseline: inputs.baseline,
        history: inputs.history,
        files: { results: REPORT_FILES.results, junit: REPORT_FILES.junit, timeline: REPORT_FILES.timeline },
      }),
    ],
  ];
  if (inputs.baseline) contents.push([REPORT_FILES.baseline, `${JSON.stringify(inputs.baseline, null, 2)}\n`]);
  const files: string[] = [];
  for (const [name, text] of contents) {
    const path = join(outDir, name);
    await writeFile(path, text, 'utf8');
    files.push(path);
  }
  if (inputs.har) {
    await mkdir(dirname(inputs.har.file), { recursive: true });
    await writeFile(inputs.har.file, harJson(inputs.har.exchanges), 'utf8');
    files.push(inputs.har.file);
  }
  return { files };
}
