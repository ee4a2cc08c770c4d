// Child processes for the benchmarks: servers and walkers run in their own process (their own
// event loop, ideally their own core) so they don't distort what the parent measures.
// Protocol over the IPC channel: the child sends {type:'ready', ...} once, then answers each
// {id, cmd, ...} request with {id, ...}; a one-shot child sends {type:'result', ...} and exits.
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../src/package.js';

/** The clone (in the parent; a child bundled by compiled-child.ts finds the installed package here instead). */
export const REPO_ROOT = PACKAGE_ROOT;

export interface ChildMessage {
  type?: string;
  id?: number;
  error?: string;
  [k: string]: unknown;
}

export interface RunningChild<R extends ChildMessage> {
  child: ChildProcess;
  ready: R;
  request<T extends ChildMessage>(cmd: string, payload?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

function forkTs(script: string, args: readonly string[]): ChildProcess {
  return fork(resolve(REPO_ROOT, script), [...args], {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** A child of plain JavaScript (compiled-child.ts): no loader in the process, the installed package's code. */
function forkJs(file: string, args: readonly string[]): ChildProcess {
  return fork(file, [...args], { cwd: REPO_ROOT, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function waitFor<T extends ChildMessage>(
  child: ChildProcess,
  match: (m: ChildMessage) => boolean,
  what: string,
  timeoutMs: number,
): Promise<T> {
  return new Promise((resolveP, reject) => {
    const timer = setTimeout(() => done(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: ChildMessage) => {
      if (m && typeof m === 'object' && m.error && match(m)) done(new Error(`${what}: ${m.error}`));
      else if (m && typeof m === 'object' && match(m)) done(undefined, m as T);
    };
    const onExit = (code: number | null, sig: string | null) =>
      done(new Error(`${what}: child exited (${sig ?? code}) before answering`));
    function done(err?: Error, m?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolveP(m!);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveP) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolveP();
    });
    child.kill('SIGTERM');
  });
}

/** Starts a long-lived child (a server) and waits for its ready message. */
export async function startChild<R extends ChildMessage>(
  script: string,
  args: readonly string[] = [],
  timeoutMs = 60_000,
): Promise<RunningChild<R>> {
  const child = forkTs(script, args);
  let ready: R;
  try {
    ready = await waitFor<R>(child, (m) => m.type === 'ready', script, timeoutMs);
  } catch (e) {
    await stopChild(child);
    throw e;
  }
  let next = 1;
  return {
    child,
    ready,
    request<T extends ChildMessage>(
      cmd: string,
      payload: Record<string, unknown> = {},
      reqTimeoutMs = 60_000,
    ): Promise<T> {
      const id = next++;
      const answer = waitFor<T>(child, (m) => m.id === id, `${script} ${cmd}`, reqTimeoutMs);
      child.send({ id, cmd, ...payload });
      return answer;
    },
    stop: () => stopChild(child),
  };
}

/**
 * Runs a one-shot child to completion and returns its result message. `compiled`: the script runs
 * the installed package's compiled code, no TypeScript loader (compiled-child.ts).
 */
export async function runChild<T extends ChildMessage>(
  script: string,
  args: readonly string[] = [],
  timeoutMs = 120_000,
  compiled = false,
): Promise<T> {
  // Imported when wanted: in a child bundled from this module (compiled-child.ts) the build's modules never run.
  const js = compiled ? await (await import('./compiled-child.js')).compiledChildScript(script) : undefined;
  const child = js ? forkJs(js, args) : forkTs(script, args);
  try {
    return await waitFor<T>(child, (m) => m.type === 'result', script, timeoutMs);
  } finally {
    await stopChild(child);
  }
}

// ---- the child side ----

/** In a child: send a message to the parent (no-op without an IPC channel); resolves once sent. */
export function toParent(m: ChildMessage): Promise<void> {
  return new Promise((resolveP) => {
    if (!process.send) return resolveP();
    process.send(m, undefined, {}, () => resolveP());
  });
}

/**
 * In a child: answer the parent's requests with `handlers[cmd]`; exits on SIGTERM/SIGINT or when
 * the parent goes away, after `onStop`.
 */
export function serveParent(
  handlers: Record<string, (m: ChildMessage) => Promise<Record<string, unknown>> | Record<string, unknown>>,
  onStop: () => Promise<void> = async () => {},
): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), 2000).unref();
    onStop().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  process.on('message', (raw) => {
    const m = raw as ChildMessage;
    const h = typeof m.cmd === 'string' ? handlers[m.cmd] : undefined;
    if (!h) return void toParent({ id: m.id, error: `unknown command ${String(m.cmd)}` });
    Promise.resolve()
      .then(() => h(m))
      .then(
        (r) => toParent({ id: m.id, ...r }),
        (e: unknown) => toParent({ id: m.id, error: e instanceof Error ? e.message.split('\n')[0] : String(e) }),
      );
  });
}
