// A bench child that runs chainprobe the way `npm start` does (cli/clone-start.mjs): plain
// JavaScript, no TypeScript loader in the process, the product's modules from the compiled copy of
// the sources (src/compiled.ts). Under tsx a contract run cost about 0.5 s more CPU (a round trip to
// tsx's hooks thread for every module it loads), so a child under tsx would not measure what a user
// waits for. The child script itself lives in tools/ (not in the copy): it is bundled with esbuild,
// each import of a product module pointing into the copy and the packages left to node_modules.
import { mkdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { compiledRoot, PRODUCT_FOLDERS } from '../../src/compiled.js';
import { PACKAGE_ROOT as REPO_ROOT } from '../../src/package.js';

const bundled = new Map<string, Promise<string>>();

function productFromCopy(copy: string): Plugin {
  const folders = PRODUCT_FOLDERS.map((f) => join(REPO_ROOT, f) + sep);
  return {
    name: 'product-from-copy',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (a) => {
        const file = resolve(a.resolveDir, a.path);
        if (!folders.some((f) => file.startsWith(f))) return undefined;
        const js = join(copy, relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
        return { path: pathToFileURL(js).href, external: true };
      });
    },
  };
}

/** The child script `script` (relative to the repository) as plain JavaScript running the compiled copy. */
export function compiledChildScript(script: string): Promise<string> {
  const known = bundled.get(script);
  if (known) return known;
  const made = (async () => {
    const copy = await compiledRoot();
    const { build } = await import('esbuild');
    // Beside the bench's output (git-ignored); node_modules is found from there as from the sources.
    const dir = join(REPO_ROOT, 'reports', 'bench', 'children');
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
      plugins: [productFromCopy(copy)],
    });
    return outfile;
  })();
  bundled.set(script, made);
  return made;
}
