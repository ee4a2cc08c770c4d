// chainprobe's JavaScript: dist/ in the package (compiled at pack time, tools/build.ts); in a clone,
// the same files compiled from the sources on first use and kept by the sources' content hash.
// Why a clone needs them: Playwright on Node 20 loads TypeScript through an off-thread ES module
// loader (module.register), a hooks thread per process that loads Babel and a round trip to it for
// every import; in the runner and in each worker that was about a second of CPU before the first
// test (docs/benchmarks.md). Plain JavaScript runs with that loader off (PLAYWRIGHT_JS_ENV).
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILED, PACKAGE_ROOT } from './package.js';

/** The folders of the product (test/unit/layers.test.ts); tools/ and test/ stay out of the package. */
export const PRODUCT_FOLDERS = ['cli', 'run', 'contracts', 'load', 'reports', 'reference', 'src'] as const;
/** Under the product folders but not part of a run: k6's own scripts are bundled for k6 instead. */
const NOT_COMPILED = ['load/k6'];
/** Files the code opens from its own folder: .proto files, the precompiled validators (CommonJS). */
const ASSET = /\.(proto|cjs)$/;
/** Where runs write under the product folders (git-ignored, can be large): never sources. */
export const OUTPUT_FOLDERS = ['reports/latest', 'reports/bench', 'reports/selfcheck'] as const;

/**
 * Playwright's environment for running chainprobe's JavaScript: its TypeScript loader off, so Node
 * loads the modules itself (Playwright reads this variable in the runner and in every worker).
 */
export const PLAYWRIGHT_JS_ENV: Readonly<Record<string, string>> = { PW_DISABLE_TS_ESM: '1' };

function walk(dir: string, skip: ReadonlySet<string>): string[] {
  if (!existsSync(dir) || skip.has(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p, skip) : [p];
  });
}

/** The product's TypeScript sources and the files they read beside themselves, under `root`. */
export function productFiles(root: string): { sources: string[]; assets: string[] } {
  const notCompiled = (file: string) => NOT_COMPILED.some((d) => !relative(join(root, d), file).startsWith('..'));
  const skip = new Set(OUTPUT_FOLDERS.map((d) => join(root, d)));
  const files = PRODUCT_FOLDERS.flatMap((f) => walk(join(root, f), skip)).filter((f) => !notCompiled(f));
  return {
    sources: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    assets: files.filter((f) => ASSET.test(f)),
  };
}

/**
 * Compiles the product of `root` into `outDir`: each source to one .js file at the same path
 * (esbuild, no bundling, so every module finds its files and packages from where it is, as in the
 * sources), the assets copied beside them.
 */
export async function compileProduct(root: string, outDir: string): Promise<{ files: number }> {
  const { sources, assets } = productFiles(root);
  // esbuild is a development dependency: a clone has it, the package never calls this.
  const { build } = await import('esbuild');
  await build({
    entryPoints: sources,
    outdir: outDir,
    outbase: root,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  for (const a of assets) {
    const to = join(outDir, relative(root, a));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(a, to);
  }
  return { files: sources.length + assets.length };
}

/** The content hash of the product's sources and assets (their paths and bytes). */
export function productHash(root: string): string {
  const { sources, assets } = productFiles(root);
  const hash = createHash('sha256');
  for (const f of [...sources, ...assets].sort()) hash.update(relative(root, f)).update('\0').update(readFileSync(f));
  return hash.digest('hex').slice(0, 16);
}

/** Where a clone keeps its compiled copies: node_modules/.cache, like other tools' caches. */
export const COMPILED_CACHE = join(PACKAGE_ROOT, 'node_modules', '.cache', 'chainprobe');
/** A copy's folder in COMPILED_CACHE: this prefix and the hash of the sources it was compiled from. */
export const COPY_PREFIX = 'js-';

/**
 * Where the copy of the clone's sources as they are now is kept (it may not exist yet). Asked of a
 * copy too, by cli/clone-start.mjs: a copy's own modules hash the sources of the clone around it.
 */
export function copyOfSources(): string {
  return join(COMPILED_CACHE, COPY_PREFIX + productHash(PACKAGE_ROOT));
}

/** Copies of other source states are removed once unused this long (a run still loading one keeps it). */
const STALE_MS = 24 * 3600_000;

function pruneOthers(keep: string): void {
  try {
    for (const name of readdirSync(COMPILED_CACHE)) {
      const p = join(COMPILED_CACHE, name);
      if (!name.startsWith(COPY_PREFIX) || p === keep) continue;
      if (Date.now() - statSync(p).mtimeMs > STALE_MS) rmSync(p, { recursive: true, force: true });
    }
  } catch {
    // a cache that cannot be cleaned is only bigger
  }
}

let compiled: Promise<string> | undefined;

/**
 * The root of chainprobe's JavaScript (the folder holding cli/, contracts/, src/...): the package's
 * own in the package; in a clone, node_modules/.cache/chainprobe/js-<hash of the sources>, compiled
 * when missing (into a temporary folder renamed into place, so a concurrent run never sees half a
 * copy; copies are never changed once in place). Rejects when it cannot be compiled or kept there.
 */
export function compiledRoot(): Promise<string> {
  if (COMPILED) return Promise.resolve(dirname(dirname(fileURLToPath(import.meta.url))));
  compiled ??= (async () => {
    const root = copyOfSources();
    if (existsSync(root)) {
      try {
        const now = new Date();
        utimesSync(root, now, now); // in use: not stale for the pruning above
      } catch {
        // a cache that cannot be touched is still there to use
      }
      return root;
    }
    // Inside the clone or not at all: a copy elsewhere (the temp folder) finds neither the clone's
    // packages nor its package.json, and Playwright could not load its config from it. Where
    // node_modules cannot be written, this rejects and the callers run the sources.
    mkdirSync(COMPILED_CACHE, { recursive: true });
    const staging = mkdtempSync(join(COMPILED_CACHE, 'tmp-'));
    try {
      await compileProduct(PACKAGE_ROOT, staging);
    } catch (e) {
      rmSync(staging, { recursive: true, force: true });
      throw e;
    }
    try {
      renameSync(staging, root);
      pruneOthers(root);
    } catch {
      // another run put the same copy in place first
      rmSync(staging, { recursive: true, force: true });
    }
    return root;
  })();
  return compiled;
}
