// Runs the chainprobe CLI as a child process, as `npm start` does (test/support/command.ts: the
// clone's dist/ under npm test, else the sources under tsx), and watches it: everything it prints,
// its wall time, and the peak memory of its whole process tree (the CLI, the Playwright runner and
// its workers), sampled from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_MS } from '../../support/backstops.js';
import { runQueueWaitMs } from '../../../src/run-queue.js';
import { commandArgs } from '../../support/command.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit, ms. */
  wallMs: number;
  /** Largest VmHWM of any process of the tree, kB (undefined without /proc). */
  peakRssKb?: number;
  /** performance.now() at exit, for comparing with other clocks of the test process. */
  exitedAt: number;
  /**
   * The most time any process of the tree (its main thread, where its JavaScript runs) spent
   * runnable but not running between two moments (performance.now()), ms: how long a loaded
   * machine held that sender up, from /proc/<pid>/schedstat sampled every 50 ms (0 without /proc).
   */
  heldUpMs(from: number, to: number): number;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Hard stop: the test fails rather than hang if the CLI outlives this (SIGKILL to the tree). A backstop only. */
  killAfterMs?: number;
  /** Called with each stderr line as it arrives (progress lines, for timing a signal). */
  onStderrLine?: (line: string) => void;
  /** Called once the child is spawned. */
  onSpawn?: (child: ChildProcess) => void;
}

/** The environment of a user's shell: nothing of a test run or a parent chainprobe leaks in. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('CHAINPROBE_') || k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  return { ...env, FORCE_COLOR: '0', ...extra };
}

/** pid -> parent pid for every process, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Whether the kernel lists each thread's children (/proc/<pid>/task/<tid>/children). Sampled every
 * 50 ms per run, walking a tree through them reads a few files, where parents() reads one per
 * process of the machine (about 1.2 ms of CPU per sample at 75 processes).
 */
const CHILDREN_FILES = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

/** A process's children, from each of its threads' children file (none once it is gone). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      return text ? text.split(' ').map(Number) : [];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

/** pid -> its children, for every process of the machine (where there are no children files). */
function childrenByParent(): (pid: number) => number[] {
  const byParent = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) byParent.set(ppid, [...(byParent.get(ppid) ?? []), pid]);
  return (pid) => byParent.get(pid) ?? [];
}

/** Every pid under root (root included). */
export function processTree(root: number): number[] {
  const kidsOf = CHILDREN_FILES ? childrenOf : childrenByParent();
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...kidsOf(p));
  }
  return out;
}

/** Each process's run-queue wait over time: samples of (performance.now(), ms). */
class RunDelays {
  private readonly byPid = new Map<number, { t: number; ms: number }[]>();

  sample(pid: number, t: number): void {
    const ms = runQueueWaitMs(pid);
    if (ms === undefined) return;
    const mine = this.byPid.get(pid) ?? [];
    mine.push({ t, ms });
    this.byPid.set(pid, mine);
  }

  /** The most any process waited between `from` and `to`, ms: from its last sample at or before `from` to its first at or after `to`. */
  maxMs(from: number, to: number): number {
    let most = 0;
    for (const samples of this.byPid.values()) {
      const start = [...samples].reverse().find((x) => x.t <= from) ?? samples[0]!;
      const end = samples.find((x) => x.t >= to) ?? samples[samples.length - 1]!;
      most = Math.max(most, end.ms - start.ms);
    }
    return most;
  }
}

function hwmKb(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [...commandArgs('cli/start.ts'), ...args], {
    cwd: ROOT,
    env: cleanEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  opts.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
    const lines = (rest + c).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) opts.onStderrLine?.(l);
  });
  let peak: number | undefined;
  const delays = new RunDelays();
  const sample = () => {
    if (child.pid === undefined) return;
    const now = performance.now();
    for (const pid of processTree(child.pid)) {
      const kb = hwmKb(pid);
      if (kb !== undefined) peak = Math.max(peak ?? 0, kb);
      delays.sample(pid, now);
    }
  };
  const sampler = setInterval(sample, 50);
  const killer = setTimeout(() => {
    if (child.pid === undefined) return;
    for (const pid of processTree(child.pid).reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, opts.killAfterMs ?? HANG_MS);
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('exit', () => sample());
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(killer);
      const exitedAt = performance.now();
      resolvePromise({
        code,
        signal,
        stdout,
        stderr,
        wallMs: exitedAt - started,
        peakRssKb: peak,
        exitedAt,
        heldUpMs: (from, to) => delays.maxMs(from, to),
      });
    });
  });
}

/** Lines a person would read as a crash: a stack frame or an unhandled error dump. */
export function stackTraceLines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => /^\s+at .+[(:]\d+/.test(l) || /Uncaught|UnhandledPromiseRejection|triggerUncaughtException/.test(l));
}
