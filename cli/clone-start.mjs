// `npm start` in a clone: the run from the compiled copy of the clone's sources (src/compiled.ts,
// node_modules/.cache/chainprobe/js-<hash of the sources>), as an installed chainprobe runs dist/.
// The sources under tsx cost every module a round trip to tsx's hooks thread: about 0.5 s more CPU
// in a contract run, while Playwright starts beside it, and `npm start -- --only contracts` took
// 6.0 s against 4.7 s (docs/architecture.md). The copy is compiled first when the sources changed
// since the last one (about 0.3 s); where none can be kept (node_modules not writable), the sources
// run under tsx as before. Plain JavaScript: it runs before anything can compile TypeScript.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CLONE = dirname(dirname(fileURLToPath(import.meta.url)));
/** src/compiled.ts COMPILED_CACHE and COPY_PREFIX (test/unit/compiled.test.ts holds them equal). */
export const CACHE = join(CLONE, 'node_modules', '.cache', 'chainprobe');
export const PREFIX = 'js-';

/** The copy of the sources as they are now, if one is in the cache; asked of the newest copy there. */
export async function currentCopy(cache = CACHE) {
  let newest;
  try {
    newest = readdirSync(cache)
      .filter((n) => n.startsWith(PREFIX))
      .map((n) => ({ dir: join(cache, n), at: statSync(join(cache, n)).mtimeMs }))
      .sort((a, b) => b.at - a.at)[0];
  } catch {
    return undefined; // no cache yet, or a copy pruned meanwhile: src/compiled.ts finds or makes it
  }
  if (!newest) return undefined;
  try {
    const { copyOfSources } = await import(pathToFileURL(join(newest.dir, 'src', 'compiled.js')).href);
    const copy = typeof copyOfSources === 'function' ? copyOfSources() : undefined;
    return copy && existsSync(join(copy, 'cli', 'start.js')) ? copy : undefined;
  } catch {
    return undefined; // a copy from before copyOfSources, or a broken one: compiled again
  }
}

/** Compiles the copy (src/compiled.ts, under tsx); its folder when it is kept in the cache. */
function compileCopy() {
  const script =
    `const { compiledRoot } = await import(${JSON.stringify(pathToFileURL(join(CLONE, 'src', 'compiled.ts')).href)});` +
    'process.stdout.write(await compiledRoot());';
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: CLONE,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const root = r.status === 0 ? r.stdout.trim() : '';
  return root.startsWith(CACHE) && existsSync(join(root, 'cli', 'start.js')) ? root : undefined;
}

async function main() {
  const copy = (await currentCopy()) ?? compileCopy();
  if (copy) {
    const now = new Date();
    try {
      utimesSync(copy, now, now); // in use: the newest, and not pruned as stale
    } catch {
      // still there to use
    }
    (await import(pathToFileURL(join(copy, 'cli', 'start.js')).href)).cli();
    return;
  }
  await import('tsx');
  (await import('./start.ts')).cli();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
