// `npm run build` (and `prepack`): the package's JavaScript, compiled ahead of time into dist/, so
// an installed chainprobe never compiles TypeScript. Each source file becomes one .js file at the
// same path under dist/ (esbuild, no bundling): Playwright loads the contract specs, its config and
// reporter as files of their own, the probe thread loads its module as a worker, the self-check
// starts cli/start.js as a process, and a command imports only what it runs (--version and --help
// stay fast). Files the code reads beside itself (.proto) are copied; the k6 entry scripts are
// bundled for k6 (load/k6/build.ts). schemas/ and docs/ ship from the package root as they are.
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, defineCommand } from '../cli/args.js';
import { exitWith } from '../cli/fatal.js';
import { compileProduct } from './compile.js';

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

export async function buildPackage(outDir = join(ROOT, 'dist')): Promise<{ files: number }> {
  rmSync(outDir, { recursive: true, force: true });
  const { files } = await compileProduct(ROOT, outDir);
  const { bundleK6 } = await import('../load/k6/build.js');
  const k6 = await bundleK6(join(outDir, 'load', 'k6'));
  const bin = join(outDir, 'cli', 'main.js');
  if (!existsSync(bin)) throw new Error('dist/cli/main.js was not written');
  chmodSync(bin, 0o755);
  return { files: files + k6.length };
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
