// How long a loaded machine kept a process waiting for a CPU: the run-queue wait of its main thread
// (where its JavaScript runs), from Linux's /proc/<pid>/schedstat. Time bounds that guard against a
// hang are stretched by it, so a starved process is not mistaken for a stuck one.
import { readFileSync } from 'node:fs';

/** Run-queue wait of a process's main thread so far, ms; undefined where /proc does not say (not Linux). */
export function runQueueWaitMs(pid: number = process.pid): number | undefined {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
