// Files the contract stage hands its Playwright workers while they run (contracts/stage-work.ts): the
// results of work the stage does itself, each written once, and the hold on the hosts it sends to.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { HostHold } from './api.js';

/** How often a worker looks for a file the stage has not written yet. */
const POLL_MS = 20;

/**
 * Writes `text` beside `file` and renames it into place: a worker that sees the file never reads it
 * half written (on a loaded machine a test read one empty).
 */
export function publish(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

/** The file's text once the stage has written it; undefined if `deadline` (ms since epoch) passes first. */
export async function whenWritten(file: string, deadline: number): Promise<string | undefined> {
  while (!existsSync(file)) {
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return readFileSync(file, 'utf8');
}

/**
 * What the stage wrote to `file`, parsed: thrown as an Error when it wrote why the work failed, or
 * when `deadline` passes first (`what`: the work, for that line).
 */
export async function readPublished<T extends { error?: string }>(
  file: string,
  deadline: number,
  what: string,
): Promise<T> {
  const text = await whenWritten(file, deadline);
  if (text === undefined) throw new Error(`the run reached its deadline before the stage had sent ${what}`);
  const got = JSON.parse(text) as T;
  if (got.error !== undefined) throw new Error(got.error);
  return got;
}

/** What the stage holds back while it sends: the workers' requests to `hosts` wait until every one of `files` is written. */
export interface StageHold {
  hosts: string[];
  files: string[];
}

/** The worker's side of a StageHold: its requests to the hosts wait for the files (at most until `deadline`). */
export function holdOf(hold: StageHold, deadline: number): HostHold {
  let written: Promise<unknown> | undefined;
  return {
    hosts: new Set(hold.hosts),
    until: () => (written ??= Promise.all(hold.files.map((f) => whenWritten(f, deadline)))),
  };
}

/** Whether some file of the hold is not written yet (a test may then wait for it). */
export const holding = (hold: StageHold | undefined): boolean => hold?.files.some((f) => !existsSync(f)) ?? false;
