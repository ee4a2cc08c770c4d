// Node's on-disk V8 code cache (module.enableCompileCache, Node 22.1 and later; nothing before).
// Playwright's runner compiles about 11 MB of JavaScript before it starts a worker, and each worker
// about 8 MB before its first test: with a warm cache an empty run of the contract suite's shape
// (56 empty tests, one worker) took 1.5-1.75 s instead of 2.0-2.2 s on Node 24 (5 runs each). The
// folder is Node's default (NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1 turns the
// cache off); the child processes get the same one.
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Node's folder for the cache in the temp folder, when NODE_COMPILE_CACHE does not name one. */
export const NODE_CACHE_FOLDER = 'node-compile-cache';

interface CacheApi {
  enableCompileCache?: () => { status: number };
  constants?: { compileCacheStatus?: { ENABLED: number; ALREADY_ENABLED: number } };
}

/** Whether this Node has the cache at all (22.1 and later). */
export const nodeHasCompileCache = (): boolean =>
  typeof (module as unknown as CacheApi).enableCompileCache === 'function';

/** Turns the cache on for this process (a second call changes nothing); whether it is on. */
export function useCompileCache(): boolean {
  const api = module as unknown as CacheApi;
  const status = api.enableCompileCache?.().status;
  const on = api.constants?.compileCacheStatus;
  return status !== undefined && on !== undefined && (status === on.ENABLED || status === on.ALREADY_ENABLED);
}

/** What a child process needs in its environment to use the same cache (nothing where it is off). */
export function compileCacheEnv(): Record<string, string> {
  // The folder as given, not the one Node reports (that is the version's folder inside it).
  return useCompileCache()
    ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || join(tmpdir(), NODE_CACHE_FOLDER) }
    : {};
}
