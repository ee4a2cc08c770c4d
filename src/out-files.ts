// The names a run writes into its output folder: the report writers write them, `--runner
// playwright` writes Playwright's folder, and a new run clears them all first.
export const REPORT_FILES = {
  results: 'results.json',
  junit: 'junit.xml',
  html: 'index.html',
  timeline: 'timeline.json',
  baseline: 'baseline-diff.json',
} as const;

/** Playwright's own HTML report, written under `--runner playwright` (contracts/playwright/run.ts). */
export const PLAYWRIGHT_DIR = 'playwright';
