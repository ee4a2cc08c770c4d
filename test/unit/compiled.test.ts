// The compiled copy a clone runs the contract suite from (src/compiled.ts): which files it holds,
// that it is keyed by the sources' content, that its modules know they are compiled and still find
// the package's files, and that Playwright lists the suite from it with its TypeScript loader off,
// each test in its compiled spec file; and that `npm start` (cli/clone-start.mjs) runs that copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  COMPILED_CACHE,
  compiledRoot,
  COPY_PREFIX,
  copyOfSources,
  OUTPUT_FOLDERS,
  PLAYWRIGHT_JS_ENV,
  PRODUCT_FOLDERS,
  productFiles,
  productHash,
} from '../../src/compiled.js';
import { CACHE, currentCopy, PREFIX } from '../../cli/clone-start.mjs';
import { CONTRACT_FAMILIES } from '../../src/rules/catalogue.js';
import { startReference } from '../../reference/start.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { HANG_MS } from '../support/backstops.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const rel = (files: readonly string[]) => files.map((f) => relative(ROOT, f));

test('the product files: every source of the product folders (cli/selfcheck too), no k6 script, no run output', () => {
  const { sources, assets } = productFiles(ROOT);
  const names = rel(sources);
  for (const must of ['contracts/playwright.config.ts', 'contracts/node.spec.ts', 'cli/main.ts', 'src/compiled.ts'])
    assert.ok(names.includes(must), must);
  assert.ok(
    names.some((f) => f.startsWith('cli/selfcheck/')),
    'cli/selfcheck/ is a source folder, not the self-check output',
  );
  assert.deepEqual(
    names.filter((f) => f.startsWith('load/k6/') || f.endsWith('.d.ts') || !f.endsWith('.ts')),
    [],
  );
  assert.deepEqual(
    names.filter((f) => /^reports\/(latest|bench|selfcheck)\//.test(f)),
    [],
  );
  assert.ok(rel(assets).includes('src/schemas/generated/validators.cjs'), 'the precompiled validators');
  assert.ok(rel(assets).every((f) => /\.(proto|cjs)$/.test(f)));
});

test('the compiled copy: named by the sources hash, the suite and its assets in it, compiled modules that find the package', async () => {
  const root = await compiledRoot();
  assert.equal(root, join(COMPILED_CACHE, `js-${productHash(ROOT)}`));
  assert.equal(await compiledRoot(), root, 'one copy per process');
  for (const f of [
    'contracts/playwright.config.js',
    'contracts/reporter.js',
    ...CONTRACT_FAMILIES.map((x) => `contracts/${x}.spec.js`),
  ])
    assert.ok(existsSync(join(root, f)), f);
  for (const a of productFiles(ROOT).assets) assert.ok(existsSync(join(root, relative(ROOT, a))), relative(ROOT, a));
  const pkg = (await import(
    pathToFileURL(join(root, 'src', 'package.js')).href
  )) as typeof import('../../src/package.js');
  assert.equal(pkg.COMPILED, true);
  assert.equal(pkg.MODULE_EXT, '.js');
  assert.equal(pkg.PACKAGE_ROOT, ROOT, 'schemas/ and docs/ are found from the copy');
  assert.equal(pkg.INSTALLED, false, "a clone's copy is still a clone: its outputs go under reports/");
});

test('npm start runs the copy of the sources as they are: found by asking the newest copy, none in an empty cache', async () => {
  assert.deepEqual(
    [CACHE, PREFIX],
    [COMPILED_CACHE, COPY_PREFIX],
    'cli/clone-start.mjs looks where src/compiled.ts keeps copies',
  );
  const root = await compiledRoot();
  assert.equal(copyOfSources(), root);
  assert.equal(await currentCopy(), root);
  const cache = mkdtempSync(join(tmpdir(), 'chainprobe-clone-start-'));
  try {
    assert.equal(await currentCopy(cache), undefined, 'an empty cache');
    // The newest copy names the current one, which may be another; an old copy that cannot say is not used.
    const copy = (name: string, compiledJs: string, at: number) => {
      mkdirSync(join(cache, name, 'src'), { recursive: true });
      mkdirSync(join(cache, name, 'cli'), { recursive: true });
      writeFileSync(join(cache, name, 'src', 'compiled.js'), compiledJs);
      writeFileSync(join(cache, name, 'cli', 'start.js'), 'export function cli() {}\n');
      utimesSync(join(cache, name), at, at);
    };
    copy('js-old', 'export const nothing = 1;\n', 1_000);
    assert.equal(await currentCopy(cache), undefined, 'a copy from before copyOfSources');
    copy('js-new', `export const copyOfSources = () => ${JSON.stringify(join(cache, 'js-old'))};\n`, 2_000);
    assert.equal(await currentCopy(cache), join(cache, 'js-old'));
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
  // It runs the copy's start module, with the clone's defaults.
  const r = spawnSync(process.execPath, [join(ROOT, 'cli', 'clone-start.mjs'), '--help'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: npm start --/m);
  assert.match(r.stdout, /\[default reports\/latest\]/);
});

test('Playwright lists the compiled suite with its TypeScript loader off, each test in its compiled spec file', async () => {
  const root = await compiledRoot();
  const ref = await startReference();
  try {
    const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const r = spawnSync(
      process.execPath,
      [cli, 'test', '-c', join(root, 'contracts', 'playwright.config.js'), '--list', '--reporter=json'],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          FORCE_COLOR: '0',
          ...PLAYWRIGHT_JS_ENV,
          CHAINPROBE_TARGET: JSON.stringify(resolveTarget(ref.target, {})),
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    type Spec = { title: string; file: string; line: number };
    type Suite = { specs?: Spec[]; suites?: Suite[] };
    const walk = (s: Suite): Spec[] => [...(s.specs ?? []), ...(s.suites ?? []).flatMap(walk)];
    const specs = (JSON.parse(r.stdout) as { suites: Suite[] }).suites.flatMap(walk);
    assert.ok(specs.length > 40, `${specs.length} tests listed`);
    const families = new Set(specs.map((s) => basename(s.file)));
    assert.deepEqual([...families].sort(), CONTRACT_FAMILIES.map((f) => `${f}.spec.js`).sort());
  } finally {
    await ref.close();
  }
});

test('where no copy can be kept (node_modules/.cache not writable), npm start runs the sources and the contract checks still run', () => {
  // A clone of its own: the sources, and a node_modules whose packages are this one's but whose
  // .cache/chainprobe is a file. A copy made outside the clone (the temp folder) used to find
  // neither its packages nor the clone's package.json: every contract rule was an error.
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-no-cache-'));
  try {
    const outputs = OUTPUT_FOLDERS.map((o) => join(ROOT, o));
    for (const f of [...PRODUCT_FOLDERS, 'schemas', 'package.json'])
      cpSync(join(ROOT, f), join(dir, f), {
        recursive: true,
        filter: (src) => !outputs.some((o) => src.startsWith(o)),
      });
    mkdirSync(join(dir, 'node_modules', '.cache'), { recursive: true });
    for (const name of readdirSync(join(ROOT, 'node_modules')))
      if (name !== '.cache') symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
    writeFileSync(join(dir, 'node_modules', '.cache', 'chainprobe'), 'not a folder\n');
    const out = join(dir, 'out');
    const r = spawnSync(
      process.execPath,
      [join(dir, 'cli', 'clone-start.mjs'), '--only', 'NODE-01,NFT-01', '--out', out],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: HANG_MS,
      },
    );
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { rules: Record<string, string> };
    assert.deepEqual([results.rules['NODE-01'], results.rules['NFT-01']], ['pass', 'pass']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
