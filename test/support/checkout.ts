// A clean checkout of this tree in a temporary folder: only the files git knows (committed or new,
// not ignored), so nothing built or written locally (dist/, reports) leaks into what is packed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Copies the tree into `into`; false when this is not a git checkout. node_modules is linked, as after `npm ci`. */
export function cleanCheckout(into: string): boolean {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) return false;
  for (const f of r.stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, f))) continue; // deleted in the work tree, not yet committed
    mkdirSync(dirname(join(into, f)), { recursive: true });
    copyFileSync(join(ROOT, f), join(into, f));
  }
  // The development dependencies npm pack's prepack builds with (esbuild, tsx).
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'));
  return true;
}

/** A user's shell: nothing of this test run (its TS loader, npm's script variables, CI's) leaks into the children. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(npm_|CHAINPROBE_|NODE_TEST|NODE_OPTIONS$|INIT_CWD$|GITHUB_|RUNNER_)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, FORCE_COLOR: '0', ...extra };
}
