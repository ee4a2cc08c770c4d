// A bench child that runs chainprobe's code as the installed package does: plain JavaScript, no
// TypeScript loader in the process, the product's modules from the package's compiled dist/
// (package.ts). Under tsx every module the run loads is a round trip to tsx's hooks thread, so a
// child under tsx would measure the loader too. The child script itself lives in tools/ (not in the
// package): it is bundled with esbuild, each import of a product module pointing into dist/ and the
// packages left to node_modules.
import { mkdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { PRODUCT_FOLDERS } from '../compile.js';
import { PACKAGE_ROOT as REPO_ROOT } from '../../src/package.js';
import { installedPackage } from './package.js';

const bundled = new Map<string, Promise<string>>();

/** Each relative import of a product source becomes an external import of its compiled file under `dist`. */
function productFrom(dist: string): Plugin {
  const folders = PRODUCT_FOLDERS.map((f) => join(REPO_ROOT, f) + sep);
  return {
    name: 'product-from-dist',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (a) => {
        const file = resolve(a.resolveDir, a.path);
        if (!folders.some((f) => file.startsWith(f))) return undefined;
        const js = join(dist, relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
        return { path: pathToFileURL(js).href, external: true };
      });
    },
  };
}

/**
 * The child script `script` (relative to the repository) as plain JavaScript whose product modules
 * are those of `o.dist` (the installed package's, built first, by default), written into `o.outDir`
 * (reports/bench/children: node_modules is found from there as from the sources).
 */
export function compiledChildScript(script: string, o: { dist?: string; outDir?: string } = {}): Promise<string> {
  const key = JSON.stringify([script, o.dist, o.outDir]);
  const known = bundled.get(key);
  if (known) return known;
  const made = (async () => {
    const dist = o.dist ?? (await installedPackage()).dist;
    const { build } = await import('esbuild');
    const dir = o.outDir ?? join(REPO_ROOT, 'reports', 'bench', 'children');
    mkdirSync(dir, { recursive: true });
    const outfile = join(dir, `${script.replace(/[\\/]/g, '-').replace(/\.ts$/, '')}.mjs`);
    await build({
      entryPoints: [join(REPO_ROOT, script)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
      plugins: [productFrom(dist)],
    });
    return outfile;
  })();
  bundled.set(key, made);
  return made;
}
