// How index.html reads on a phone and on a laptop, in Debian's Chromium: no sideways scrolling at
// 390 px (even with everything expanded), the headline verdict on screen without scrolling at
// 1280 px, filters that show which is chosen and hide sections left empty, and the failing JSON
// path marked where the response box shows it.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from '@playwright/test';
import { launchChromium } from '../support/chromium.js';

export const PHONE = { width: 390, height: 844 };
export const LAPTOP = { width: 1280, height: 720 };

export interface LayoutFindings {
  phone: { scrollWidth: number; expandedScrollWidth: number; height: number };
  laptop: { headlineBottom: number; headline: string; height: number };
}

/** Elements wider than the viewport that are not inside a box that scrolls on its own. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const w = document.documentElement.clientWidth;
    return [...document.querySelectorAll('body *')]
      .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > w + 0.5 && !e.closest('.scroll, pre, svg'))
      .slice(0, 5)
      .map((e) => {
        const cls = e.className ? '.' + String(e.className).split(' ')[0] : '';
        return e.tagName.toLowerCase() + cls + ' ' + Math.round(e.getBoundingClientRect().right) + 'px';
      });
  })()`);
}

/** `shared`: a browser the caller launched and closes (one launch for several checks of a run's report). */
export async function checkLayout(
  htmlFile: string,
  screenshotPrefix: string,
  shared?: Browser,
): Promise<LayoutFindings> {
  const url = pathToFileURL(resolve(htmlFile)).href;
  const browser = shared ?? (await launchChromium());
  try {
    // Phone: nothing wider than the screen, folded and unfolded.
    const phone = await browser.newPage({ viewport: PHONE, isMobile: true, hasTouch: true });
    await phone.goto(url, { waitUntil: 'load' });
    const scrollWidth = (await phone.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(
      scrollWidth <= PHONE.width,
      `at ${PHONE.width} px the page is ${scrollWidth} px wide: ${(await overflowing(phone)).join(', ')}`,
    );
    // The first screen (the whole page is tens of thousands of pixels tall at this width).
    await phone.screenshot({ path: `${screenshotPrefix}-${PHONE.width}.png` });
    await phone.evaluate(`document.querySelectorAll('details').forEach((d) => { d.open = true; })`);
    const expandedScrollWidth = (await phone.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(
      expandedScrollWidth <= PHONE.width,
      `expanded, at ${PHONE.width} px the page is ${expandedScrollWidth} px wide: ${(await overflowing(phone)).join(', ')}`,
    );
    const phoneHeight = (await phone.evaluate('document.documentElement.scrollHeight')) as number;

    // Laptop: the verdict is on the first screen.
    const laptop = await browser.newPage({ viewport: LAPTOP });
    await laptop.goto(url, { waitUntil: 'load' });
    const headline = laptop.locator('#headline');
    const box = await headline.boundingBox();
    assert.ok(box, 'no headline');
    assert.ok(
      box.y >= 0 && box.y + box.height <= LAPTOP.height,
      `the headline ends at ${box.y + box.height} px, below the first ${LAPTOP.height} px`,
    );
    const text = (await headline.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /^(PASS|FAIL|COULD NOT TEST) /);
    // Times read in the reader's zone, not as ISO strings.
    for (const t of await laptop.locator('header time').allInnerTexts()) assert.doesNotMatch(t, /\d{4}-\d\d-\d\dT/, t);

    // The failing JSON path is marked, in view inside its response box.
    const mark = laptop.locator('.check[data-verdict="fail"] pre[data-field="response"] mark').first();
    if ((await mark.count()) > 0) {
      const inBox = await mark.evaluate((m) => {
        const pre = (m as unknown as { closest(s: string): { getBoundingClientRect(): DOMRectLike } })
          .closest('pre')
          .getBoundingClientRect();
        const r = (m as unknown as { getBoundingClientRect(): DOMRectLike }).getBoundingClientRect();
        return r.top >= pre.top && r.bottom <= pre.bottom;
      });
      assert.ok(inBox, 'the marked JSON path is scrolled out of its response box');
    }

    // Filters: the chosen button shows pressed; sections and headings with nothing left hide.
    await laptop.click('button[data-filter="problems"]');
    const state = (await laptop.evaluate(`(() => {
      const vis = (e) => e.getClientRects().length > 0;
      const all = (s, root = document) => [...root.querySelectorAll(s)];
      const noRuleShown = (root) => !all('details.rule', root).some(vis);
      return {
        pressed: all('button[data-filter]').filter((b) => b.getAttribute('aria-pressed') === 'true').map((b) => b.dataset.filter),
        emptyVisible: all('#rule-matrix .rule-section').filter((s) => vis(s) && noRuleShown(s)).map((s) => s.dataset.section),
        headingsVisible: all('#rule-matrix .std-heading').filter((h) => vis(h) && noRuleShown(h.nextElementSibling)).length,
        shown: all('#rule-matrix details.rule').filter(vis).map((d) => d.dataset.verdict),
      };
    })()`)) as { pressed: string[]; emptyVisible: string[]; headingsVisible: number; shown: string[] };
    assert.deepEqual(state.pressed, ['problems']);
    assert.deepEqual(state.emptyVisible, [], 'sections with no rule left still show');
    assert.equal(state.headingsVisible, 0, 'a heading with no rule left still shows');
    assert.ok(state.shown.every((v) => v === 'fail' || v === 'error'));
    await laptop.screenshot({ path: `${screenshotPrefix}-${LAPTOP.width}-problems.png` });
    await laptop.click('button[data-filter="all"]');
    await laptop.screenshot({ path: `${screenshotPrefix}-${LAPTOP.width}.png` });
    const laptopHeight = (await laptop.evaluate('document.documentElement.scrollHeight')) as number;
    await Promise.all([phone.close(), laptop.close()]);
    return {
      phone: { scrollWidth, expandedScrollWidth, height: phoneHeight },
      laptop: { headlineBottom: box.y + box.height, headline: text, height: laptopHeight },
    };
  } finally {
    if (!shared) await browser.close();
  }
}

interface DOMRectLike {
  top: number;
  bottom: number;
}
