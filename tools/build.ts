// `npm run build` (and `prepack`): the package's JavaScript, compiled ahead of time into dist/, so
// an installed chainprobe never compiles TypeScript. Each source file becomes one .js file at the
// same path under dist/ (esbuild, no bundling): Playwright loads the contract specs, its config and
// reporter as files of their own, the probe thread loads its module as a worker, the self-check
// starts cli/start.js as a process, and a command imports only what it runs (--version and --help
// stay fast). Files the code reads beside itself (.proto) are copied; the k6 entry scripts are
// bundled for k6 (load/k6/build.ts). schemas/ and docs/ ship from the package root as they are.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { commandLine, defineCommand } from '../cli/args.js';
import { exitWith } from '../cli/fatal.js';

export const BUILD = defineCommand({
  invocation: 'npm run build --',
  prefix: 'chainprobe build',
  summary:
    "Compiles the package's JavaScript into dist/ (one .js file per source file, and the k6 entry scripts bundled); " +
    'npm pack runs it (prepack), so an installed chainprobe never compiles TypeScript.',
  flags: {},
  exit: ['0  dist/ written', '1  a source did not compile', '2  bad flag'],
});

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The folders of the product (test/unit/layers.test.ts); tools/ and test/ stay out of the package. */
export const PRODUCT_FOLDERS = ['cli', 'run', 'contracts', 'load', 'reports', 'reference', 'src'] as const;
/** Under the product folders but not part of a run: k6's own scripts are bundled for k6 instead. */
const NOT_COMPILED = ['load/k6'];
/** Files the code opens from its own folder. */
const ASSET = /\.proto$/;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

const inProduct = (file: string) => !NOT_COMPILED.some((d) => relative(join(ROOT, d), file).split(/[\\/]/)[0] !== '..');

export function productFiles(): { sources: string[]; assets: string[] } {
  const files = PRODUCT_FOLDERS.flatMap((f) => walk(join(ROOT, f))).filter(inProduct);
  return {
    sources: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    assets: files.filter((f) => ASSET.test(f)),
  };
}

export async function buildPackage(outDir = join(ROOT, 'dist')): Promise<{ files: number }> {
  rmSync(outDir, { recursive: true, force: true });
  const { sources, assets } = productFiles();
  await build({
    entryPoints: sources,
    outdir: outDir,
    outbase: ROOT,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  for (const a of assets) {
    const to = join(outDir, relative(ROOT, a));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(a, to);
  }
  const { bundleK6 } = await import('../load/k6/build.js');
  const k6 = await bundleK6(join(outDir, 'load', 'k6'));
  const bin = join(outDir, 'cli', 'main.js');
  if (!existsSync(bin)) throw new Error('dist/cli/main.js was not written');
  chmodSync(bin, 0o755);
  return { files: sources.length + assets.length + k6.length };
}

async function main(): Promise<void> {
  commandLine(BUILD);
  const t0 = performance.now();
  const { files } = await buildPackage();
  console.log(`dist/: ${files} files in ${Math.round(performance.now() - t0)} ms`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => exitWith(BUILD.prefix, e));
}
