// index.html with a comparison, in Chromium at 390 px and at 1280 px: no sideways scrolling of the
// page (folded and unfolded), the comparison first in the page and its differences table before
// the rules, and text the targets sent shown as text. Skipped with a line without a browser
// (CHAINPROBE_REQUIRE_BROWSER=1 makes that a failure).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeReports } from '../../reports/write.js';
import { compareResults } from '../../src/compare/compare.js';
import { applyWaivers, waiveDifferences, waiversRecord } from '../../src/waivers/waivers.js';
import { launchChromium, skipWithoutBrowser } from '../support/chromium.js';
import { HANG_MS } from '../support/backstops.js';
import { checkLayout, LAPTOP, PHONE } from '../reports/layout-check.js';
import { API, API_B, LIMITER, check, exchange, run } from './fixture.js';

const OUT = resolve('test-results/compare-layout');
const XSS = '<img src=x onerror="window.__chainprobeXss=1">';
const LONG = `${'averyveryverylongopaquevaluewithoutanyspace'.repeat(6)}`;

/** Two runs that differ in every way a row can: verdicts, statuses, headers, shapes, values, observations, latency, a section. */
function pair() {
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const event = (base: string, price: unknown, extra: Record<string, unknown>) =>
    exchange({
      url: `${base}/nft/v1/chain-a/mainnet/event/${id}?${'q'.repeat(40)}=${LONG}`,
      body: { data: { id, payments: [{ price }], ...extra } },
    });
  const side = (base: string, b: boolean) => [
    check(`nft.event[${id}]`, 'NFT-01', b ? 'fail' : 'pass', {
      exchanges: [
        event(
          base,
          b ? '1.25' : 1.25,
          b ? { [`field_${LONG.slice(0, 80)}`]: XSS, note: `${XSS} ${LONG}` } : { note: 'fine here' },
        ),
      ],
    }),
    check(`nft.event[${id}].payments`, 'NFT-04', b ? 'fail' : 'pass', {
      exchanges: [event(base, b ? '1.25' : 1.25, {})],
    }),
    ...Array.from({ length: 30 }, (_v, i) =>
      check(`auth.universal[chain-${i}/mainnet][no-credentials@base]`, 'AUTH-07', 'pass', {
        exchanges: [
          exchange({
            url: `${base}/universal/v1/chain-${i}/mainnet/sync/block_number`,
            status: b ? 403 : 401,
            headers: b ? { [`x-${LONG.slice(0, 60)}`]: '1' } : { 'www-authenticate': 'Bearer' },
            durationMs: b ? 900 : 30,
            body: { error: { code: 'unauthorized', message: 'no key' } },
          }),
        ],
        observation: { status: b ? 403 : 401, accepted: false },
      }),
    ),
    check('errors.non2xx[no-credentials]', 'ERR-01', 'observed', {
      observation: { statuses: b ? { 401: 5, 403: 25 } : { 401: 30 }, bodyShapes: [{ [`k${LONG}`]: 'string' }] },
    }),
    b
      ? {
          ...check('node.chainB.app-REST-node_info', 'NODE-03', 'skipped'),
          message: 'target has no nodes.chainB section',
        }
      : check('node.chainB.app-REST-node_info', 'NODE-03', 'pass', {
          exchanges: [exchange({ url: `${base}/app_rest/node_info`, body: { a: 1 } })],
        }),
  ];
  const waivers = [
    {
      rule: 'NFT-04',
      target: 'staging',
      reason: `known ${XSS}, tracked`,
      expires: '2099-01-01',
      link: 'https://tracker.example/BAS-12',
    },
  ];
  const today = '2026-12-04';
  const a = applyWaivers(run('production', side(API, false), { limiter: LIMITER }), waivers, today);
  const b = applyWaivers(run('staging', side(API_B, true), { limiter: { ...LIMITER, limit: 91 } }), waivers, today);
  const w = waiveDifferences(
    compareResults(a.results, b.results, { paths: { a: 'results.json', b: 'compare/results.json' } }),
    waivers,
    today,
  );
  return {
    ...a.results,
    comparison: w.comparison,
    waivers: waiversRecord(waivers, [a.matched, b.matched], w.matched, today),
  };
}

test(
  'index.html with a comparison at 390 px and 1280 px: no sideways scroll, the differences first',
  { skip: skipWithoutBrowser(), timeout: HANG_MS },
  async (t) => {
    rmSync(OUT, { recursive: true, force: true });
    const results = pair();
    assert.ok(
      ((results.comparison as { differences: unknown[] }).differences.length ?? 0) >= 8,
      'a table worth laying out',
    );
    await writeReports(OUT, { results, timeline: [] });
    const file = join(OUT, 'index.html');
    const browser = await launchChromium();
    try {
      // The report's own layout check: nothing wider than 390 px, folded or unfolded; the headline on the first screen.
      const found = await checkLayout(file, resolve('test-results/compare-layout'), browser);
      t.diagnostic(
        `390 px: ${found.phone.scrollWidth} px wide; 1280 px: headline "${found.laptop.headline.slice(0, 60)}"`,
      );

      for (const viewport of [PHONE, LAPTOP]) {
        const page = await browser.newPage({ viewport, ...(viewport === PHONE && { isMobile: true, hasTouch: true }) });
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        const layout = (await page.evaluate(`(() => {
          const main = document.querySelector('main');
          const top = (s) => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().top + scrollY : null; };
          document.querySelectorAll('details').forEach((d) => { d.open = true; });
          return {
            first: main.firstElementChild && main.firstElementChild.id,
            diffs: top('#comparison table.diffs'),
            rules: top('#comparison table.rulecmp'),
            matrix: top('#rule-matrix'),
            width: document.documentElement.scrollWidth,
            rows: document.querySelectorAll('#comparison table.diffs tbody tr').length,
            firstRow: document.querySelector('#comparison table.diffs tbody tr').id,
            waived: [...document.querySelectorAll('#comparison tr.waived')].map((r) => r.id),
            xss: window.__chainprobeXss,
          };
        })()`)) as {
          first: string;
          diffs: number;
          rules: number;
          matrix: number;
          width: number;
          rows: number;
          firstRow: string;
          waived: string[];
          xss: unknown;
        };
        assert.equal(layout.first, 'comparison', `${viewport.width} px: the comparison opens the page`);
        assert.ok(
          layout.diffs < layout.rules && layout.rules < layout.matrix,
          `${viewport.width} px: ${JSON.stringify(layout)}`,
        );
        assert.ok(layout.width <= viewport.width, `${viewport.width} px: the page is ${layout.width} px wide`);
        assert.ok(layout.rows >= 8);
        // Differences no waiver covers come first; the waived ones after them.
        assert.notEqual(layout.firstRow, layout.waived[0]);
        assert.ok(layout.waived.length >= 1);
        assert.equal(layout.xss, undefined, 'text from the targets is shown as text');
        await page.screenshot({ path: `${OUT}/top-${viewport.width}.png` });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  },
);
