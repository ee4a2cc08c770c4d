// Debian's Prometheus tools in tests: `promtool` (package prometheus) judges what chainprobe writes
// and the example alert rules, and `prometheus-pushgateway` (package prometheus-pushgateway),
// started by a test on 127.0.0.1 with its own port and its own data, receives a push. A missing
// one skips its tests with one line saying how to enable them, unless CHAINPROBE_REQUIRE_PROMETHEUS=1
// (set by .ci/run), where the tests run and fail on the missing binary (as nginx and Chromium do).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reservePorts } from '../support/ports.js';
import { commandArgs } from '../support/command.js';
import { HANG_MS, SLOW_MACHINE_MS } from '../support/backstops.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const REQUIRE = 'CHAINPROBE_REQUIRE_PROMETHEUS';

function find(name: string, pathVar: string, env: NodeJS.ProcessEnv): string | undefined {
  const given = env[pathVar];
  if (given) return existsSync(given) ? given : undefined;
  const onPath = (env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => join(d, name));
  return [...onPath, `/usr/bin/${name}`, `/usr/local/bin/${name}`].find((p) => existsSync(p));
}

export const findPromtool = (env: NodeJS.ProcessEnv = process.env) => find('promtool', 'PROMTOOL_PATH', env);
export const findPushgateway = (env: NodeJS.ProcessEnv = process.env) =>
  find('prometheus-pushgateway', 'PUSHGATEWAY_PATH', env) ?? find('pushgateway', 'PUSHGATEWAY_PATH', env);

function skip(found: boolean, reason: string, env: NodeJS.ProcessEnv): string | false {
  if (found || env[REQUIRE] === '1') return false;
  console.log(`# skipped: ${reason}`);
  return reason;
}

/** For node:test's `skip` option: a reason when promtool is absent and not required, else false. */
export const promtoolSkip = (env: NodeJS.ProcessEnv = process.env): string | false =>
  skip(
    !!findPromtool(env),
    "promtool not found: install Debian's prometheus (apt-get install prometheus) or set PROMTOOL_PATH to run this test",
    env,
  );

/** For node:test's `skip` option: a reason when the Pushgateway is absent and not required, else false. */
export const pushgatewaySkip = (env: NodeJS.ProcessEnv = process.env): string | false =>
  skip(
    !!findPushgateway(env),
    "prometheus-pushgateway not found: install Debian's prometheus-pushgateway or set PUSHGATEWAY_PATH to run this test",
    env,
  );

/** `promtool <args>`, with `input` on its stdin. */
export function promtool(args: string[], input?: string): { code: number | null; out: string } {
  const bin = findPromtool();
  if (!bin) throw new Error(`promtool not found (${REQUIRE}=1): apt-get install prometheus, or set PROMTOOL_PATH`);
  const r = spawnSync(bin, args, { input, encoding: 'utf8', timeout: HANG_MS });
  return { code: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

export interface Pushgateway {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly pid: number;
  log(): string;
  stop(): Promise<void>;
}

/**
 * A Pushgateway of the test's own: listening on a socket the OS picked for this process, handed to
 * it by systemd's socket activation (so no other process can take the port in between), with its
 * own data file in a temporary folder. `webConfig` is its --web.config.file (basic auth).
 */
export async function startPushgateway(opts: { webConfig?: string } = {}): Promise<Pushgateway> {
  const bin = findPushgateway();
  if (!bin) throw new Error(`prometheus-pushgateway not found (${REQUIRE}=1): apt-get install prometheus-pushgateway`);
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-pushgateway-'));
  const args = ['--web.systemd-socket', `--persistence.file=${join(dir, 'metrics.data')}`];
  if (opts.webConfig !== undefined) {
    writeFileSync(join(dir, 'web.yml'), opts.webConfig);
    args.push(`--web.config.file=${join(dir, 'web.yml')}`);
  }
  const reserved = await reservePorts(1);
  const port = reserved.ports[0]!;
  // LISTEN_PID must be the gateway's own pid: the shell's, which `exec` hands on.
  const child: ChildProcess = spawn('sh', ['-c', 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"', bin, ...args], {
    stdio: ['ignore', 'ignore', 'pipe', reserved.fds[0]!],
  });
  await reserved.close();
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready when it says it listens (a backstop against a hang only).
  const deadline = Date.now() + SLOW_MACHINE_MS;
  while (!/msg="Listening on"/.test(log)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the Pushgateway did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, log: () => log, stop };
}

/** A series of the text exposition: its name and labels (sorted), and its value. */
export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (format 0.0.4): comments and blank lines skipped. */
export function parseExposition(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    const v = m[3]!;
    out.push({ name: m[1]!, labels, value: v === '+Inf' ? Infinity : v === '-Inf' ? -Infinity : Number(v) });
  }
  return out;
}

/** A series as one string: name{a="x",b="y"} with the labels sorted (what PromQL selects it by). */
export function seriesKey(s: Pick<Series, 'name' | 'labels'>): string {
  const labels = Object.keys(s.labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(s.labels[k])}`);
  return `${s.name}{${labels.join(',')}}`;
}

/** Runs chainprobe (`npm start -- ...` or `npm run merge -- ...`) from the sources, as a person's shell would. */
export function runChainprobe(
  script: 'cli/start.ts' | 'cli/merge.ts',
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('CHAINPROBE_') && !k.startsWith('NODE_TEST') && k !== 'NODE_OPTIONS')
      clean[k] = v;
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [...commandArgs(script), ...args], {
      cwd: ROOT,
      env: { ...clean, FORCE_COLOR: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const backstop = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(backstop);
      resolveRun({ code, stdout, stderr });
    });
  });
}
