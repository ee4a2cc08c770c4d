// Node's compile cache (src/compile-cache.ts): on a Node that has one (22.1 on) the CLI and the
// Playwright processes it starts share its folder; NODE_DISABLE_COMPILE_CACHE turns it off; on
// Node 20 nothing changes. Each case in a process of its own: turning the cache on is per process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { nodeHasCompileCache } from '../../src/compile-cache.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const hasCache = nodeHasCompileCache();

function envOf(extra: Record<string, string>): Record<string, string> {
  // Set at all (even empty), NODE_DISABLE_COMPILE_CACHE turns the cache off: only the case's own settings.
  const { NODE_COMPILE_CACHE: _moved, NODE_DISABLE_COMPILE_CACHE: _off, ...base } = process.env;
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      "import { compileCacheEnv } from './src/compile-cache.ts'; console.log(JSON.stringify(compileCacheEnv()))",
    ],
    { env: { ...base, ...extra }, encoding: 'utf8' },
  );
  return JSON.parse(out) as Record<string, string>;
}

test('the Playwright processes get the CLI its compile cache folder where Node has one, nothing on Node 20', () => {
  const env = envOf({});
  if (hasCache) assert.match(env.NODE_COMPILE_CACHE ?? '', /\S/, 'no folder given to the children');
  else assert.deepEqual(env, {});
});

test('NODE_COMPILE_CACHE moves the folder; NODE_DISABLE_COMPILE_CACHE=1 turns the cache off for the children too', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-compile-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const moved = envOf({ NODE_COMPILE_CACHE: dir });
  if (hasCache) assert.equal(moved.NODE_COMPILE_CACHE, dir);
  assert.deepEqual(envOf({ NODE_DISABLE_COMPILE_CACHE: '1' }), {});
});
