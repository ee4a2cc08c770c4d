// The browser test on a machine without a browser, as a user's `npm test` meets it: skipped with
// the line that says how to enable it, and a failure instead under CHAINPROBE_REQUIRE_BROWSER=1
// (CI), so CI can never pass by skipping. CHROMIUM_PATH pointing nowhere stands in for the missing
// browser: an explicit CHROMIUM_PATH is final, and PATH holds only Node's own folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_MS } from '../support/backstops.js';

const BROWSER_TEST = fileURLToPath(new URL('./browser.test.ts', import.meta.url));

function browserTestWithout(extra: Record<string, string>): Promise<{ code: number; out: string }> {
  // Only what the child needs: no inherited CHAINPROBE_REQUIRE_BROWSER or CHAINPROBE_REPORT_HTML.
  const env = {
    PATH: dirname(process.execPath),
    HOME: process.env.HOME ?? '/',
    CHROMIUM_PATH: '/nowhere/chromium',
    ...extra,
  };
  // Its own working folder: what it writes under test-results/ must not touch the real browser
  // test's files, which may be running beside it.
  const cwd = mkdtempSync(join(tmpdir(), 'chainprobe-browser-skip-'));
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), '--test-reporter=tap', BROWSER_TEST],
      { cwd, env, timeout: HANG_MS, maxBuffer: 4 << 20 },
      (err, stdout, stderr) => {
        rmSync(cwd, { recursive: true, force: true });
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
      },
    );
  });
}

test(
  'no browser: the browser test is skipped with how to enable it, and the run passes',
  { timeout: HANG_MS },
  async () => {
    const r = await browserTestWithout({});
    assert.equal(r.code, 0, r.out.slice(-1500));
    const skipped = new RegExp(
      String.raw`^ok 1 - index\.html in Chromium.* # SKIP browser tests skipped: ` +
        'CHROMIUM_PATH=/nowhere/chromium is not an executable file; ' +
        'to run them, install Chromium .*npx playwright install chromium.*CHROMIUM_PATH',
      'm',
    );
    assert.match(r.out, skipped);
    assert.match(r.out, /^# fail 0$/m);
  },
);

test(
  'no browser under CHAINPROBE_REQUIRE_BROWSER=1: the browser test fails, naming the cause',
  { timeout: HANG_MS },
  async () => {
    const r = await browserTestWithout({ CHAINPROBE_REQUIRE_BROWSER: '1' });
    assert.notEqual(r.code, 0, r.out.slice(-1500));
    assert.match(r.out, /^not ok 1 - index\.html in Chromium/m);
    assert.match(
      r.out,
      /CHAINPROBE_REQUIRE_BROWSER is set and CHROMIUM_PATH=\/nowhere\/chromium is not an executable file/,
    );
    assert.doesNotMatch(r.out, /# SKIP browser tests skipped/);
  },
);
