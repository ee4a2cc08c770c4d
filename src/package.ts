// Where chainprobe's own files are: the repository in a clone, node_modules/chainprobe when
// installed. The code runs from dist/ (compiled at pack time) in the package; in a clone from the
// sources (tsx) or from their compiled copy (src/compiled.ts, as `npm start` does), so files beside
// the code are found from the package folder, not from here.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether this is the compiled package (dist/*.js) rather than the TypeScript sources. */
export const COMPILED = !import.meta.url.endsWith('.ts');

/** The extension of chainprobe's own modules as they run here (Playwright's config and specs, threads). */
export const MODULE_EXT = COMPILED ? '.js' : '.ts';

function packageRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'chainprobe')
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("chainprobe's package.json not found above its code");
    dir = up;
  }
}

/** The folder holding chainprobe's package.json. */
export const PACKAGE_ROOT = packageRoot();

/** A file or folder of the package: schemas/, docs/. */
export const packagePath = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);

/**
 * Whether this is an installed package rather than a clone: what a command's output defaults
 * follow (./chainprobe-report, or reports/ of the clone). Not COMPILED: a clone runs its compiled
 * copy too (cli/clone-start.mjs), and is still a clone.
 */
export const INSTALLED = !existsSync(join(PACKAGE_ROOT, 'src', 'package.ts'));
