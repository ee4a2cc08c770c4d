// One chainprobe run in a bench child (run-child.ts), and a busy-loop child that keeps a core busy.
import { spawn, type ChildProcess } from 'node:child_process';
import { runChild, type ChildMessage } from './child.js';
import type { RunChildInput, RunChildResult } from './run-child.js';

export async function runInChild(input: RunChildInput, timeoutMs = 240_000): Promise<RunChildResult> {
  // The installed package's compiled code, no TypeScript loader (compiled-child.ts).
  return runChild<ChildMessage & RunChildResult>('tools/bench/run-child.ts', [JSON.stringify(input)], timeoutMs, true);
}

/** A process that spins one core until stopped: the "other core kept busy" of the stability run. */
export function startBusyLoop(): { stop(): Promise<void> } {
  const child: ChildProcess = spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
  return {
    stop: () =>
      new Promise((resolveP) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolveP();
        child.once('exit', () => resolveP());
        child.kill('SIGKILL');
      }),
  };
}
