// Finding a browser for the report's browser tests, on stand-in machines: each case says which
// files exist, what the environment holds, and which browser (or which skip line) results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  browserRequired,
  findChromium,
  skipLine,
  type ChromiumFound,
  type ChromiumLookup,
} from '../support/chromium.js';

const PLAYWRIGHTS = '/home/u/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome';

function machine(
  files: string[],
  env: Record<string, string | undefined>,
  playwright: string | undefined = PLAYWRIGHTS,
): ChromiumLookup {
  const present = new Set(files);
  return { env, isExecutable: (p) => present.has(p), playwrightBrowser: () => playwright };
}

const cases: {
  name: string;
  files: string[];
  env: Record<string, string | undefined>;
  want: Partial<ChromiumFound>;
}[] = [
  {
    name: "CHROMIUM_PATH wins over Debian's chromium",
    files: ['/opt/chrome/chrome', '/usr/bin/chromium'],
    env: { CHROMIUM_PATH: '/opt/chrome/chrome', PATH: '/usr/bin' },
    want: { path: '/opt/chrome/chrome', source: 'CHROMIUM_PATH' },
  },
  {
    name: 'CHROMIUM_PATH may name a program on PATH',
    files: ['/opt/bin/my-chromium'],
    env: { CHROMIUM_PATH: 'my-chromium', PATH: '/usr/bin:/opt/bin' },
    want: { path: '/opt/bin/my-chromium', source: 'CHROMIUM_PATH' },
  },
  {
    name: 'CHROMIUM_PATH pointing nowhere is no browser, not a silent fall-back to another one',
    files: ['/usr/bin/chromium'],
    env: { CHROMIUM_PATH: '/nowhere/chromium', PATH: '/usr/bin' },
    want: { path: undefined, reason: 'CHROMIUM_PATH=/nowhere/chromium is not an executable file' },
  },
  {
    name: "Debian's /usr/bin/chromium first among the usual locations",
    files: ['/usr/bin/google-chrome', '/usr/bin/chromium', '/snap/bin/chromium'],
    env: { PATH: '' },
    want: { path: '/usr/bin/chromium', source: 'known location' },
  },
  {
    name: "Ubuntu's snap",
    files: ['/snap/bin/chromium'],
    env: {},
    want: { path: '/snap/bin/chromium', source: 'known location' },
  },
  {
    name: 'macOS Chromium.app',
    files: ['/Applications/Chromium.app/Contents/MacOS/Chromium'],
    env: { PATH: '/usr/local/bin:/usr/bin' },
    want: { path: '/Applications/Chromium.app/Contents/MacOS/Chromium', source: 'known location' },
  },
  {
    name: 'a chromium on PATH when no usual location has one',
    files: ['/home/u/bin/chromium'],
    env: { PATH: '/usr/bin::/home/u/bin' },
    want: { path: '/home/u/bin/chromium', source: 'PATH' },
  },
  {
    name: "Playwright's own browser last",
    files: [PLAYWRIGHTS],
    env: { PATH: '/usr/bin' },
    want: { path: PLAYWRIGHTS, source: 'Playwright' },
  },
  {
    name: "none: CHROMIUM_PATH unset, PATH stripped, Playwright's browser not installed",
    files: [],
    env: { PATH: '' },
    want: { path: undefined },
  },
];

for (const c of cases) {
  test(`browser discovery: ${c.name}`, () => {
    const found = findChromium(machine(c.files, c.env));
    for (const [k, v] of Object.entries(c.want)) assert.equal(found[k as keyof ChromiumFound], v, k);
  });
}

test('without a browser: one line saying how to enable the browser tests', () => {
  const line = skipLine(findChromium(machine([], { PATH: '' }, undefined)));
  assert.doesNotMatch(line, /\n/);
  assert.match(line, /^browser tests skipped: no Chromium found/);
  assert.match(line, /apt-get install chromium/);
  assert.match(line, /npx playwright install chromium/);
  assert.match(line, /CHROMIUM_PATH/);
  assert.equal(skipLine({ path: '/usr/bin/chromium', source: 'known location' }), '');
});

test('CHAINPROBE_REQUIRE_BROWSER: set to anything but empty or 0', () => {
  assert.equal(browserRequired({ CHAINPROBE_REQUIRE_BROWSER: '1' }), true);
  assert.equal(browserRequired({ CHAINPROBE_REQUIRE_BROWSER: 'yes' }), true);
  assert.equal(browserRequired({ CHAINPROBE_REQUIRE_BROWSER: '0' }), false);
  assert.equal(browserRequired({ CHAINPROBE_REQUIRE_BROWSER: '' }), false);
  assert.equal(browserRequired({}), false);
});
