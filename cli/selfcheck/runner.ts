// Runs one self-check variant as its own `chainprobe` process (cli/start.ts against the embedded
// reference with the fault switched on): child processes keep the variants' timing and state
// apart, and each gets its own process group so a timeout or Ctrl-C ends all it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redactor } from '../../src/record/redact.js';
import { PACKAGE_ROOT, startArgs } from '../../src/package.js';
import { defaultOptions } from '../../reference/options.js';
import type { ResultsFile } from '../../src/results.js';
import type { RunFacts } from './classify.js';

/** Each variant runs chainprobe as a user does: the package's compiled start module, or `npm start` in a clone. */
const START_ARGS = startArgs();

/** The embedded reference's credentials: nothing a run prints may show them. */
const redactor = new Redactor(Object.values(defaultOptions().credentials));

const live = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/** Ends every variant still running (their process groups): used on Ctrl-C. */
export function stopAllRuns(): void {
  for (const c of live) killGroup(c, 'SIGTERM');
  setTimeout(() => {
    for (const c of live) killGroup(c, 'SIGKILL');
  }, 2500).unref();
}

function readResults(outDir: string): { results?: ResultsFile; problem?: string } {
  const file = join(outDir, 'results.json');
  if (!existsSync(file)) return { problem: 'no results.json written' };
  try {
    return { results: JSON.parse(readFileSync(file, 'utf8')) as ResultsFile };
  } catch (e) {
    return { problem: `results.json unreadable: ${(e as Error).message.split('\n')[0]}` };
  }
}

export interface RunSpec {
  args: readonly string[];
  /** Node's arguments that start a run (default: as a user here does, START_ARGS). */
  start?: readonly string[];
  outDir: string;
  timeoutMs: number;
}

export function runVariant(spec: RunSpec): Promise<RunFacts> {
  rmSync(spec.outDir, { recursive: true, force: true });
  const started = performance.now();
  return new Promise((resolveP) => {
    const child = spawn(process.execPath, [...(spec.start ?? START_ARGS), ...spec.args], {
      cwd: PACKAGE_ROOT,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    live.add(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 3000).unref();
    }, spec.timeoutMs);
    let finished = false;
    const finish = (exitCode: number | null, why?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      live.delete(child);
      const durationMs = performance.now() - started;
      const { results, problem } = readResults(spec.outDir);
      const lastLine = redactor.text(stderr.trim().split('\n').filter(Boolean).pop() ?? '');
      const reasons = [
        timedOut ? `timed out after ${Math.round(spec.timeoutMs / 1000)} s` : undefined,
        why,
        exitCode === 2 || (!results && lastLine) ? lastLine : undefined,
        results ? undefined : problem,
      ].filter(Boolean);
      resolveP({
        exitCode,
        durationMs,
        ...(results && { results }),
        ...(reasons.length && { problem: reasons.join('; ') }),
      });
    };
    child.once('error', (e) => finish(null, `could not start: ${e.message}`));
    child.once('close', (code, signal) => finish(code, signal ? `ended by ${signal}` : undefined));
  });
}

/** Runs the tasks `concurrency` at a time, in order; results in input order. */
export async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return out;
}
