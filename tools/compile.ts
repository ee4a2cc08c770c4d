// The package's JavaScript: each product source compiled to one .js file at the same path under
// dist/ (tools/build.ts, at pack time). A clone runs its sources; nothing ships from tools/.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The folders of the product (test/unit/layers.test.ts); tools/ and test/ stay out of the package. */
export const PRODUCT_FOLDERS = ['cli', 'run', 'contracts', 'load', 'reports', 'reference', 'src'] as const;
/** Under the product folders but not part of a run: k6's own scripts are bundled for k6 instead. */
const NOT_COMPILED = ['load/k6'];
/** Files the code opens from its own folder: .proto files, the precompiled validators (CommonJS). */
const ASSET = /\.(proto|cjs)$/;
/** Where runs write under the product folders (git-ignored, can be large): never sources. */
export const OUTPUT_FOLDERS = ['reports/latest', 'reports/bench', 'reports/selfcheck'] as const;

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
