// Opens a written index.html in Chromium (through Playwright; test/support/chromium.ts finds it)
// with the network blocked and checks what a person would look for: every rule in the matrix,
// failing rules expanded, charts drawn, the page's own script working, nothing fetched, nothing
// injected. Used by the synthetic browser test here and, against a real run's output, by the run's
// integration tests.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OPEN_FAILURES_PER_RULE } from '../../reports/html.js';
import { RULES } from '../../src/rules/catalogue.js';
import type { Browser } from '@playwright/test';
import { launchChromium } from '../support/chromium.js';
import { HANG_MS } from '../support/backstops.js';

export const CHART_IDS = ['remaining', 'reset', 'rate', 'retry-after'] as const;

// The callbacks below run inside the page. The project compiles without the DOM library, so they
// see elements through this small structural type instead.
interface Box {
  width: number;
  height: number;
}
interface El {
  tagName: string;
  open?: boolean;
  dataset: Record<string, string | undefined>;
  classList: { contains(c: string): boolean };
  getAttribute(name: string): string | null;
  getBoundingClientRect(): Box;
  getBBox(): Box;
  querySelector(sel: string): El | null;
  querySelectorAll(sel: string): Iterable<El>;
}

export interface BrowserCheckOptions {
  /** Where to save the screenshot of the first screen (PNG). */
  screenshot: string;
  /**
   * Charts that must show data. Default: all four when the page has a limiter section, none
   * otherwise. Pass [] for a run whose probes legitimately drew nothing in some chart.
   */
  charts?: readonly string[];
  /** Rules the page must show as failing (default: those results.json beside the page says). */
  failingRules?: readonly string[];
}

export interface ChartFinding {
  width: number;
  height: number;
  /** Declared data points (data-points) and coordinates actually drawn in data paths. */
  points: number;
  drawnCoordinates: number;
}

export interface BrowserFindings {
  rules: { id: string; verdict: string; open: boolean; visible: boolean }[];
  failingRules: string[];
  charts: Record<string, ChartFinding>;
  blockedRequests: string[];
  consoleErrors: string[];
  screenshot: string;
}

/** `shared`: a browser the caller launched and closes (one launch for several checks of a run's report). */
export async function checkReportInBrowser(
  htmlFile: string,
  opts: BrowserCheckOptions,
  shared?: Browser,
): Promise<BrowserFindings> {
  const file = resolve(htmlFile);
  assert.ok(existsSync(file), `no report at ${file}`);
  const resultsFile = join(dirname(file), 'results.json');
  const expectedFailing =
    opts.failingRules ??
    (existsSync(resultsFile)
      ? Object.entries((JSON.parse(readFileSync(resultsFile, 'utf8')) as { rules: Record<string, string> }).rules)
          .filter(([, v]) => v === 'fail')
          .map(([k]) => k)
      : undefined);

  const browser = shared ?? (await launchChromium());
  try {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, serviceWorkers: 'block' });
    // Playwright's 30 s action default is a budget on a loaded machine (a screenshot timed out beside
    // a second npm test): its actions get the backstop instead.
    context.setDefaultTimeout(HANG_MS);
    const blocked: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      blocked.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:') && !blocked.includes(r.url()))
        blocked.push(r.url());
    });
    page.on('websocket', (ws) => blocked.push(ws.url()));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

    // The matrix: every catalogue rule, its summary row on screen.
    const rules = await page.$$eval('#rule-matrix details.rule[data-rule]', (found) =>
      (found as unknown as El[]).map((d) => {
        const s = d.querySelector(':scope > summary')!.getBoundingClientRect();
        return {
          id: d.dataset.rule!,
          verdict: d.dataset.verdict!,
          open: d.open === true,
          visible: s.width > 0 && s.height > 0,
        };
      }),
    );
    const shown = new Map(rules.map((r) => [r.id, r]));
    for (const rule of RULES) {
      const r = shown.get(rule.id);
      assert.ok(r, `rule ${rule.id} is missing from the matrix`);
      assert.ok(r.visible, `rule ${rule.id} is not visible in the matrix`);
    }

    // Failing rules are expanded, with their first failing checks' evidence on screen.
    const failingRules = rules.filter((r) => r.verdict === 'fail').map((r) => r.id);
    if (expectedFailing)
      assert.deepEqual(
        [...failingRules].sort(),
        [...expectedFailing].sort(),
        'failing rules shown differ from results.json',
      );
    for (const id of failingRules) {
      const state = await page.$eval(
        `#rule-matrix details.rule[data-rule="${id}"]`,
        (found, openFailures) => {
          const d = found as unknown as El;
          // No named helper functions in here: the tsx loader would wrap them in a __name() call
          // that does not exist inside the page.
          const failed = [...d.querySelectorAll('.check[data-verdict="fail"]')].slice(0, openFailures);
          return {
            open: d.open === true,
            checks: failed.length,
            allOpen: failed.every((c) => c.tagName !== 'DETAILS' || c.open === true),
            evidenceVisible: failed.every(
              (c) => c.tagName !== 'DETAILS' || (c.querySelector('.evidence')?.getBoundingClientRect().height ?? 0) > 0,
            ),
          };
        },
        OPEN_FAILURES_PER_RULE,
      );
      assert.ok(state.open, `failing rule ${id} is not expanded`);
      assert.ok(state.checks > 0, `failing rule ${id} shows no failing check`);
      assert.ok(state.allOpen && state.evidenceVisible, `failing rule ${id}: a failing check's evidence is not shown`);
    }

    // Charts: drawn, non-empty, with real coordinates in their data paths.
    const hasLimiter = (await page.$('#limiter')) !== null;
    const wanted = opts.charts ?? (hasLimiter ? CHART_IDS : []);
    const charts: Record<string, ChartFinding> = await page.$$eval('svg[data-chart]', (found) =>
      Object.fromEntries(
        (found as unknown as El[]).map((svg) => {
          const box = svg.getBoundingClientRect();
          let drawn = 0;
          for (const p of svg.querySelectorAll('path[data-series]')) {
            const g = p.getBBox();
            if (p.classList.contains('hline') || (g.width === 0 && g.height === 0)) continue;
            drawn += ((p.getAttribute('d') ?? '').match(/[ML]/g) ?? []).length;
          }
          return [
            svg.dataset.chart!,
            { width: box.width, height: box.height, points: Number(svg.dataset.points), drawnCoordinates: drawn },
          ];
        }),
      ),
    );
    for (const id of wanted) {
      const c = charts[id];
      assert.ok(c, `chart ${id} is missing`);
      assert.ok(c.width > 100 && c.height > 50, `chart ${id} has no size on screen (${c.width}x${c.height})`);
      assert.ok(c.points > 0 && c.drawnCoordinates > 0, `chart ${id} drew no data`);
    }

    // The page's own script runs under its CSP: the problems filter hides passing rules.
    const passing = rules.find((r) => r.verdict === 'pass');
    if (passing) {
      await page.click('button[data-filter="problems"]');
      assert.equal(
        await page.isVisible(`details.rule[data-rule="${passing.id}"]`),
        false,
        'the fail + error filter did not hide passing rules',
      );
      await page.click('button[data-filter="all"]');
    }

    // Target text stayed text.
    assert.equal(
      await page.evaluate('typeof window.__chainprobeXss'),
      'undefined',
      'text from the target ran as script',
    );
    assert.equal(await page.$$eval('script', (s) => s.length), 1, 'the page has a script it did not write');

    mkdirSync(dirname(resolve(opts.screenshot)), { recursive: true });
    // The first screen: a report of a whole run is thousands of pixels tall, and a picture of all
    // of it cost more than every check above together; nothing reads it but a person.
    await page.screenshot({ path: opts.screenshot });
    await context.close();

    assert.deepEqual(blocked, [], `the report tried to reach the network: ${blocked.join(', ')}`);
    assert.deepEqual(consoleErrors, [], `the page logged errors: ${consoleErrors.join(' | ')}`);
    return { rules, failingRules, charts, blockedRequests: blocked, consoleErrors, screenshot: opts.screenshot };
  } finally {
    if (!shared) await browser.close();
  }
}
