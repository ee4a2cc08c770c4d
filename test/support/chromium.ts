// Where the report's browser tests find a Chromium. The browser is optional for a user's
// `npm test` (nothing the tool does at run time needs one), so a machine without it skips those
// tests with one line saying how to enable them; CI sets CHAINPROBE_REQUIRE_BROWSER=1 so that it
// can never pass by skipping.
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';

export const REQUIRE_BROWSER_ENV = 'CHAINPROBE_REQUIRE_BROWSER';

/** Debian's flags (see the guide); they suit any Chromium or Chrome. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Usual install locations, in order: Debian, Ubuntu (deb and snap), Fedora, Chrome, macOS. */
export const KNOWN_LOCATIONS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** Names looked up on PATH when none of the locations above exists. */
export const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

export const HOW_TO_ENABLE =
  'install Chromium (Debian/Ubuntu: apt-get install chromium; anywhere: npx playwright install chromium) ' +
  'or set CHROMIUM_PATH to a Chromium or Chrome executable';

/** What the discovery looks at, injectable so a test can stand in for a machine without a browser. */
export interface ChromiumLookup {
  env: Record<string, string | undefined>;
  /** True for an executable regular file. */
  isExecutable(path: string): boolean;
  /** Where Playwright's own `npx playwright install chromium` puts its browser. */
  playwrightBrowser(): string | undefined;
}

export type ChromiumFound =
  | { path: string; source: 'CHROMIUM_PATH' | 'known location' | 'PATH' | 'Playwright' }
  | { path: undefined; reason: string };

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const SYSTEM_LOOKUP: ChromiumLookup = {
  env: process.env,
  isExecutable: isExecutableFile,
  playwrightBrowser() {
    try {
      return chromium.executablePath();
    } catch {
      return undefined;
    }
  },
};

function onPath(name: string, lookup: ChromiumLookup): string | undefined {
  for (const dir of (lookup.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (lookup.isExecutable(p)) return p;
  }
  return undefined;
}

export function findChromium(lookup: ChromiumLookup = SYSTEM_LOOKUP): ChromiumFound {
  // An explicit choice is final: falling back to another browser would test something else.
  const chosen = lookup.env.CHROMIUM_PATH;
  if (chosen) {
    const path = isAbsolute(chosen) || chosen.includes('/') ? chosen : onPath(chosen, lookup);
    if (path && lookup.isExecutable(path)) return { path, source: 'CHROMIUM_PATH' };
    return { path: undefined, reason: `CHROMIUM_PATH=${chosen} is not an executable file` };
  }
  const known = KNOWN_LOCATIONS.find((p) => lookup.isExecutable(p));
  if (known) return { path: known, source: 'known location' };
  for (const name of PATH_NAMES) {
    const p = onPath(name, lookup);
    if (p) return { path: p, source: 'PATH' };
  }
  const own = lookup.playwrightBrowser();
  if (own && lookup.isExecutable(own)) return { path: own, source: 'Playwright' };
  return {
    path: undefined,
    reason: 'no Chromium found (CHROMIUM_PATH unset, none at the usual locations, on PATH or installed by Playwright)',
  };
}

export function browserRequired(env: Record<string, string | undefined> = process.env): boolean {
  const v = env[REQUIRE_BROWSER_ENV];
  return v !== undefined && v !== '' && v !== '0';
}

/** The one line a run without a browser shows. */
export function skipLine(found: ChromiumFound): string {
  return found.path === undefined ? `browser tests skipped: ${found.reason}; to run them, ${HOW_TO_ENABLE}` : '';
}

let cached: ChromiumFound | undefined;
const found = (): ChromiumFound => (cached ??= findChromium());

/**
 * The `skip` option of a test that needs the browser: the skip line when there is none, false
 * when there is one or when CHAINPROBE_REQUIRE_BROWSER is set (the test then fails in chromiumPath).
 */
export function skipWithoutBrowser(): string | false {
  const f = found();
  return f.path !== undefined || browserRequired() ? false : skipLine(f);
}

/** The browser to launch; a clear error when there is none. */
export function chromiumPath(): string {
  const f = found();
  if (f.path !== undefined) return f.path;
  throw new Error(
    browserRequired()
      ? `${REQUIRE_BROWSER_ENV} is set and ${f.reason}: ${HOW_TO_ENABLE}`
      : `${f.reason}: ${HOW_TO_ENABLE}`,
  );
}

let niced: string | undefined;

/**
 * The browser, started at the lowest priority (through a `nice -n 19` wrapper, so its renderers
 * inherit it): no browser check rests on a clock, and beside a file that judges real time (the
 * report tests of real runs are one) a renderer at normal priority takes a core from it. Run as
 * root, Chromium raises its own browser and GPU processes above normal (nice -8) unless it lacks
 * CAP_SYS_NICE, which setpriv takes from it.
 */
export function launchChromium(): Promise<Browser> {
  const path = chromiumPath();
  if (niced === undefined && existsSync('/usr/bin/nice')) {
    const dir = mkdtempSync(join(tmpdir(), 'chainprobe-chromium-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    niced = join(dir, 'chromium');
    const noRaise =
      process.getuid?.() === 0 && existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv --bounding-set=-sys_nice ' : '';
    writeFileSync(niced, `#!/bin/sh\nexec ${noRaise}/usr/bin/nice -n 19 ${JSON.stringify(path)} "$@"\n`);
    chmodSync(niced, 0o755);
  }
  return chromium.launch({ executablePath: niced ?? path, args: CHROMIUM_FLAGS });
}

let shared: Promise<Browser> | undefined;

/**
 * One browser for every check of a test file that takes it: a launch costs about as much CPU as the
 * checks of a page. The file closes it in an `after` hook (closeSharedChromium).
 */
export function sharedChromium(): Promise<Browser> {
  return (shared ??= launchChromium());
}

export async function closeSharedChromium(): Promise<void> {
  const browser = shared;
  shared = undefined;
  // A launch that failed has failed its test already.
  await browser?.then((b) => b.close()).catch(() => undefined);
}
