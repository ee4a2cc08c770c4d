// index.html on a phone (390 px) and a laptop (1280 px), in Chromium. Set CHAINPROBE_REPORT_HTML
// to check a real run's report as well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeReports } from '../../reports/write.js';
import { checkLayout } from './layout-check.js';
import { skipWithoutBrowser } from '../support/chromium.js';
import { syntheticResults, syntheticTimeline } from './fixture.js';
import { HANG_MS } from '../support/backstops.js';

const OUT = resolve('test-results/report-layout');

test(
  'index.html: no sideways scrolling at 390 px, the headline verdict on the first screen at 1280 px',
  { skip: skipWithoutBrowser(), timeout: HANG_MS },
  async (t) => {
    rmSync(OUT, { recursive: true, force: true });
    // Long text where the page must wrap or scroll in its own box: URLs, ids, observation keys.
    const results = syntheticResults({ scale: 40, extra: { reference: { faults: ['event-wrong-id'], variants: [] } } });
    results.checks.push({
      id: `nft.event[${'a'.repeat(60)}]`,
      rule: 'NFT-03',
      verdict: 'observed',
      message: `event types seen: ${'very-long-event-type-name,'.repeat(8)}`,
      evidence: { observation: { [`a${'VeryLongObservationKey'.repeat(4)}`]: 'x'.repeat(300) } },
    });
    await writeReports(OUT, { results, timeline: syntheticTimeline(), playwrightReport: 'playwright/index.html' });
    const found = await checkLayout(join(OUT, 'index.html'), resolve('test-results/report-layout'));
    t.diagnostic(
      `390 px: ${found.phone.scrollWidth} px wide, ${found.phone.height} px long; ` +
        `1280 px: headline ends at ${Math.round(found.laptop.headlineBottom)} px ("${found.laptop.headline.slice(0, 60)}"), ` +
        `page ${found.laptop.height} px long`,
    );
    assert.match(
      found.laptop.headline,
      /^FAIL 4 rules failing: AUTH-02, RPC-05, NFT-02, RL-10 1 rule could not be tested: NODE-06/,
    );
  },
);

test(
  "a real run's report at 390 and 1280 px (CHAINPROBE_REPORT_HTML)",
  {
    skip:
      (!process.env.CHAINPROBE_REPORT_HTML && 'set CHAINPROBE_REPORT_HTML to a written index.html') ||
      skipWithoutBrowser(),
    timeout: HANG_MS,
  },
  async () => {
    await checkLayout(resolve(process.env.CHAINPROBE_REPORT_HTML!), resolve('test-results/report-layout-run'));
  },
);
