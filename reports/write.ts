// Writes a run's reports into the output folder: results.json (the fixed interface), junit.xml,
// index.html and the probes' raw timeline.json; baseline-diff.json too when a baseline was given,
// and the HAR of every exchange where --har asked for one.
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ResultsFile } from '../src/results.js';
import type { TimelineEntry } from '../src/stages.js';
import type { CheckResult } from '../src/verdict.js';
import type { BaselineDiff } from './baseline.js';
import { renderHtmlParts } from './html.js';
import { harJson, type HarExchange } from './har.js';
import { renderJunitParts } from './junit.js';
import { checkSetOf, type CheckSet } from '../src/check-set.js';
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
  /**
   * Where `results.checks` is empty because the checks are on disk (a merge: src/fleet/check-spool.ts):
   * results.json's checks in full, read again in order (the file is written as it is read), and the
   * checks rule by rule as the HTML and JUnit reports read them.
   */
  fullChecks?: () => Iterable<CheckResult> | AsyncIterable<CheckResult>;
  checks?: CheckSet;
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

/**
 * results.json as `JSON.stringify(results, null, 2)` would write it, the checks taken one at a
 * time from `checks`: the same bytes without the whole text (or every check) in memory.
 */
export async function writeResultsJson(
  path: string,
  results: ResultsFile,
  checks: Iterable<CheckResult> | AsyncIterable<CheckResult>,
) {
  const MARK = '"checks": "\\u0000"';
  const [head, tail] = JSON.stringify({ ...results, checks: '\u0000' }, null, 2).split(MARK) as [string, string];
  async function* pieces() {
    yield `${head}"checks": [`;
    let n = 0;
    for await (const c of checks) yield `${n++ ? ',' : ''}\n    ${JSON.stringify(c, null, 2).replace(/\n/g, '\n    ')}`;
    yield `${n ? '\n  ' : ''}]${tail}\n`;
  }
  await writeText(path, pieces());
}

/** Pieces gathered before a write: few writes, and no string large enough to outlive a young collection. */
const BATCH_CHARS = 64 * 1024;

/**
 * Writes a text given whole, or in pieces one at a time. Pieces are written in batches with
 * writeSync, which copies a string out and frees the copy at once: a write stream keeps a Buffer
 * per piece until a collection, and on a large report (a merge of many runs) those piled up.
 */
async function writeText(path: string, text: string | Iterable<string> | AsyncIterable<string>): Promise<void> {
  if (typeof text === 'string') return writeFile(path, text, 'utf8');
  const fd = openSync(path, 'w');
  try {
    let batch = '';
    for await (const piece of text) {
      batch += piece;
      if (batch.length >= BATCH_CHARS) {
        writeSync(fd, batch);
        batch = '';
      }
    }
    if (batch) writeSync(fd, batch);
  } finally {
    closeSync(fd);
  }
}

export async function writeReports(outDir: string, inputs: ReportInputs): Promise<{ files: string[] }> {
  await mkdir(outDir, { recursive: true });
  const timeline = inputs.timeline ?? [];
  // Grouped by rule once, for the HTML and JUnit reports both.
  const checks = inputs.checks ?? checkSetOf(inputs.results.checks ?? []);
  const files: string[] = [];
  // Each text is made when its file is written: a large report holds one of them at a time.
  const contents: [string, () => string | Iterable<string>][] = [];
  if (inputs.fullChecks) {
    const path = join(outDir, REPORT_FILES.results);
    await writeResultsJson(path, inputs.results, inputs.fullChecks());
    files.push(path);
  } else contents.push([REPORT_FILES.results, () => `${JSON.stringify(inputs.results, null, 2)}\n`]);
  contents.push(
    [REPORT_FILES.junit, () => renderJunitParts(inputs.results, checks)],
    [REPORT_FILES.timeline, () => timelineJson(timeline)],
    [
      REPORT_FILES.html,
      () =>
        renderHtmlParts({
          results: inputs.results,
          timeline,
          playwrightReport: inputs.playwrightReport,
          baseline: inputs.baseline,
          history: inputs.history,
          checks,
          files: { results: REPORT_FILES.results, junit: REPORT_FILES.junit, timeline: REPORT_FILES.timeline },
        }),
    ],
  );
  if (inputs.baseline) contents.push([REPORT_FILES.baseline, () => `${JSON.stringify(inputs.baseline, null, 2)}\n`]);
  for (const [name, text] of contents) {
    const path = join(outDir, name);
    await writeText(path, text());
    files.push(path);
  }
  if (inputs.har) {
    await mkdir(dirname(inputs.har.file), { recursive: true });
    await writeFile(inputs.har.file, harJson(inputs.har.exchanges), 'utf8');
    files.push(inputs.har.file);
  }
  return { files };
}
