// Start-up of the installed command: `chainprobe --version` and `--help`, and a full run's own
// start-up (from the process start to its first connection to the target, the preflight's), all
// with the installed package's compiled JavaScript (package.ts: built first as `npm pack` builds it).
// Each figure is the best of 5 starts per repetition: the least the machine's other work added.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedPackage } from './package.js';
import { figure, type Figure } from './figures.js';

export interface StartupSettings {
  reps: number;
  /** Starts per repetition; a repetition's value is the fastest. */
  tries: number;
}

function wallMs(args: readonly string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore', cwd: tmpdir() });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return performance.now() - t0;
}

const bestOf = (n: number, f: () => number): number => Math.min(...Array.from({ length: n }, f));

/** From spawning `chainprobe --target <file>` to the first connection the target accepts. */
async function runStartMs(bin: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-bench-startup-'));
  let first: number | undefined;
  let resolveFirst!: () => void;
  const connected = new Promise<void>((r) => (resolveFirst = r));
  const server = createServer((socket) => {
    first ??= performance.now();
    resolveFirst();
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const target = join(dir, 'target.json');
  writeFileSync(
    target,
    JSON.stringify({
      name: 'startup',
      api: { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'bench-startup-key-0000' },
      limits: { maxRequests: 10, maxSeconds: 30, timeoutMs: 2000 },
    }),
  );
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, '--target', target, '--only', 'AUTH-01', '--out', join(dir, 'out')], {
    cwd: dir,
    stdio: 'ignore',
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const timeout = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    await Promise.race([connected, exited]);
    if (first === undefined) throw new Error('the run ended before it connected to the target');
    return first - t0;
  } finally {
    clearTimeout(timeout);
    child.kill('SIGKILL');
    await exited;
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchStartup(s: StartupSettings): Promise<Figure[]> {
  const bin = (await installedPackage()).bin;
  const group = 'Start-up';
  const reps = Array.from({ length: s.reps });
  const node = reps.map(() => bestOf(s.tries, () => wallMs(['-e', '0'])));
  const version = reps.map(() => bestOf(s.tries, () => wallMs([bin, '--version'])));
  const help = reps.map(() => bestOf(s.tries, () => wallMs([bin, '--help'])));
  const run: number[] = [];
  for (const _ of reps) {
    const times: number[] = [];
    for (let i = 0; i < s.tries; i++) times.push(await runStartMs(bin));
    run.push(Math.min(...times));
  }
  const best = `best of ${s.tries} starts per repetition, the installed package's compiled code (its dist/)`;
  return [
    figure({
      id: 'startup.version',
      readme: true,
      group,
      label: 'chainprobe --version, wall time',
      unit: 'ms',
      values: version,
      target: { op: '<=', value: 250 },
      note: best,
    }),
    figure({
      id: 'startup.help',
      group,
      label: 'chainprobe --help, wall time',
      unit: 'ms',
      values: help,
      target: { op: '<=', value: 250 },
      note: best,
    }),
    figure({
      id: 'startup.run',
      readme: true,
      group,
      label: "a run's own start-up, to its first connection to the target",
      unit: 'ms',
      values: run,
      target: { op: '<=', value: 500 },
      note: `chainprobe --target <file> --only AUTH-01, from the process start to the preflight's first connection; ${best}`,
    }),
    figure({
      id: 'startup.node',
      group,
      label: 'node -e 0 on this machine (what any Node command costs)',
      unit: 'ms',
      values: node,
      note: best,
    }),
  ];
}
