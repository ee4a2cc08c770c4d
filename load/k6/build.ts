// Bundles every k6 entry script (load/k6/entries/*.ts) into load/k6/dist/*.js for `k6 run`, after
// type-checking them with their own tsconfig (k6 types, no Node). k6 modules stay external; the
// output is ES2017 so old k6 releases (goja) run it, and a small Buffer shim is injected.
//   npx tsx load/k6/build.ts [--no-typecheck]
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const K6_ENTRIES_DIR = join(here, 'entries');
export const K6_DIST_DIR = join(here, 'dist');

export function k6Entries(): string[] {
  return readdirSync(K6_ENTRIES_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => join(K6_ENTRIES_DIR, f));
}

/** Type-checks the k6 scripts; returns tsc's output when it found errors. */
export function typecheckK6(): string | undefined {
  const tsc = join(here, '..', '..', 'node_modules', '.bin', 'tsc');
  const r = spawnSync(tsc, ['-p', join(here, 'tsconfig.json')], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `${r.stdout}${r.stderr}`.trim() || `tsc exited with ${r.status}`;
}

/**
 * `stubsDir` (tests only): resolve `k6` and `k6/<name>` to `<stubsDir>/k6.ts` and `<stubsDir>/<name>.ts`
 * instead of leaving them to k6, so the bundle can run under Node.
 */
export async function bundleK6(outdir = K6_DIST_DIR, opts: { stubsDir?: string } = {}): Promise<string[]> {
  const entryPoints = k6Entries();
  const stubs = opts.stubsDir;
  const result = await build({
    entryPoints,
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2017',
    external: stubs ? [] : ['k6', 'k6/*'],
    plugins: stubs
      ? [
          {
            name: 'k6-stubs',
            setup: (b) =>
              b.onResolve({ filter: /^k6(\/.*)?$/ }, (a) => ({
                path: join(stubs, `${a.path === 'k6' ? 'k6' : a.path.slice(3)}.ts`),
              })),
          },
        ]
      : [],
    inject: [join(here, 'shims', 'buffer.ts')],
    mainFields: ['module', 'main'],
    logLevel: 'silent',
    metafile: true,
  });
  return Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const skipCheck = process.argv.includes('--no-typecheck');
  const problems = skipCheck ? undefined : typecheckK6();
  if (problems) {
    console.error(`k6 scripts do not type-check:\n${problems}`);
    process.exit(1);
  }
  bundleK6().then(
    (files) => console.log(`bundled ${files.map((f) => relative(process.cwd(), f)).join(', ')}`),
    (e: Error) => {
      console.error(`k6 bundle failed: ${e.message.split('\n')[0]}`);
      process.exit(1);
    },
  );
}
