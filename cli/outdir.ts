// The output folder is made and tried before the first request: a report that cannot be written
// must not cost a node's hourly quota. Folders are made one level at a time because Node 20's
// recursive mkdir never returns for a path such as /proc/forbidden.
import { mkdirSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './fatal.js';

const REASONS: Record<string, string> = {
  ENOENT: 'a folder cannot be made there',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file',
  EEXIST: 'a file of that name exists',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
};

const reason = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return REASONS[code] ?? (code || (e as Error).message);
};

/** Makes `dir` (and missing parents) and checks a file can be written in it; a UsageError names the flag otherwise. */
export function prepareOutDir(dir: string, flag = '--out'): void {
  const full = resolve(dir);
  const fail = (why: string): never => {
    throw new UsageError(`${flag} ${full}: ${why}`);
  };
  const missing: string[] = [];
  let at = full;
  let st: Stats | undefined;
  while (!st) {
    try {
      st = statSync(at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') fail(reason(e));
      missing.unshift(at);
      if (dirname(at) === at) fail('no such file system');
      at = dirname(at);
    }
  }
  if (!st.isDirectory()) fail(at === full ? 'is a file, not a folder' : `${at} is a file, not a folder`);
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') fail(reason(e));
    }
  }
  const probe = join(full, `.chainprobe-write-test-${process.pid}`);
  try {
    writeFileSync(probe, '');
  } catch (e) {
    fail(`cannot write there (${reason(e)})`);
  }
  rmSync(probe, { force: true });
}
