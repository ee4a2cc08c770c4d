// The report in a real browser: Chromium through Playwright, network blocked. Skipped with one
// line on a machine without Chromium (failing instead under CHAINPROBE_REQUIRE_BROWSER=1).
// Set CHAINPROBE_REPORT_HTML=<path/to/index.html> to check a real run's report as well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeReports } from '../../reports/write.js';
import { diffBaseline } from '../../reports/baseline.js';
import { RULES } from '../../src/rules/catalogue.js';
import { checkReportInBrowser, CHART_IDS } from './browser-check.js';
import { syntheticResults, syntheticTimeline } from './fixture.js';
import { skipWithoutBrowser } from '../support/chromium.js';
import { HANG_MS } from '../support/backstops.js';

const OUT = resolve('test-results/report-synthetic');

test(
  'index.html in Chromium: every rule, failing rules expanded, charts drawn, nothing fetched',
  { skip: skipWithoutBrowser(), timeout: HANG_MS },
  async () => {
    rmSync(OUT, { recursive: true, force: true });
    const results = syntheticResults();
    const previous = structuredClone(results);
    previous.checks.find((c) => c.rule === 'AUTH-07')!.evidence.observation!.status = 403;
    await writeReports(OUT, {
      results,
      timeline: syntheticTimeline(),
      playwrightReport: 'playwright/index.html',
      baseline: diffBaseline(previous, results),
    });

    const found = await checkReportInBrowser(join(OUT, 'index.html'), {
      screenshot: resolve('test-results/report-synthetic.png'),
    });
    assert.equal(found.rules.length, RULES.length);
    assert.deepEqual(found.failingRules.sort(), ['AUTH-02', 'NFT-02', 'RL-10', 'RPC-05']);
    for (const id of CHART_IDS) assert.ok(found.charts[id]!.drawnCoordinates > 0, id);
    assert.deepEqual(found.blockedRequests, []);
  },
);

test(
  "a real run's report (CHAINPROBE_REPORT_HTML)",
  {
    skip:
      (!process.env.CHAINPROBE_REPORT_HTML && 'set CHAINPROBE_REPORT_HTML to a written index.html') ||
      skipWithoutBrowser(),
    timeout: HANG_MS,
  },
  async () => {
    const file = resolve(process.env.CHAINPROBE_REPORT_HTML!);
    await checkReportInBrowser(file, { screenshot: resolve('test-results/report-run.png') });
  },
);
