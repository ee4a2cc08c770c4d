// Debian's nginx as a real proxy in tests: our own prefix and config, 127.0.0.1 only, listening on
// ports the OS picked for this process (nginx inherits the sockets), stopped by pid. A missing nginx skips the test with a line saying how to enable it, unless
// CHAINPROBE_REQUIRE_NGINX=1 (set by .ci/run), where the test runs and fails on the missing binary.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { reservePorts } from './ports.js';

const CANDIDATES = [
  '/usr/sbin/nginx',
  '/usr/local/sbin/nginx',
  '/usr/local/nginx/sbin/nginx',
  '/opt/homebrew/bin/nginx',
];

export function findNginx(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env['NGINX_PATH']) return existsSync(env['NGINX_PATH']) ? env['NGINX_PATH'] : undefined;
  const onPath = (env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((d) => join(d, 'nginx'));
  return [...onPath, ...CANDIDATES].find((p) => existsSync(p));
}

/** For node:test's `skip` option: a reason when nginx is absent and not required, else false. */
export function nginxSkip(env: NodeJS.ProcessEnv = process.env): string | false {
  if (findNginx(env) || env['CHAINPROBE_REQUIRE_NGINX'] === '1') return false;
  const reason = "nginx not found: install Debian's nginx (apt-get install nginx) or set NGINX_PATH to run this test";
  console.log(`# skipped: ${reason}`);
  return reason;
}

export interface NginxOptions {
  /** How many ports nginx listens on. */
  listeners: number;
  /** The inside of the `http {}` block for these ports: servers, zones, upstreams. Listen on 127.0.0.1 only. */
  http(ports: readonly number[]): string;
  /** A backstop against a hang, not a time budget: start-up waits for nginx's own word or its exit. */
  startTimeoutMs?: number;
}

export interface Nginx {
  readonly pid: number;
  readonly prefix: string;
  /** The ports of `listeners`, in the order the config was given them. */
  readonly ports: readonly number[];
  /** The warnings and errors of nginx's log so far (for failure messages). */
  errorLog(): string;
  stop(): Promise<void>;
}

/** The master logs this once its sockets and configuration are in place and it forks its worker. */
const STARTED = /\[notice\] \d+#\d+: start worker process/;
/** nginx's own lines about the sockets it was handed: expected, not worth a failure message. */
const ROUTINE = /\[notice\]/;

function configText(prefix: string, http: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((k) => `  ${k}_temp_path ${join(prefix, 'tmp', k)};`)
    .join('\n');
  // As root, workers would switch to `nobody`, who cannot use our prefix: keep them as we are.
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  return `${user}worker_processes 1;
daemon off;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} notice;
events { worker_connections 1024; }
http {
  access_log off;
${temp}
${http}
}
`;
}

function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * nginx on ports the OS picked: this process listens on them first and nginx inherits the sockets
 * (its `NGINX` variable, the one its binary upgrade uses), so no other process can take a port
 * between choosing it and nginx listening, and no two listeners share one.
 */
export async function startNginx(opts: NginxOptions): Promise<Nginx> {
  const bin = findNginx();
  if (!bin) throw new Error('nginx not found (CHAINPROBE_REQUIRE_NGINX=1): apt-get install nginx, or set NGINX_PATH');
  const reserved = await reservePorts(opts.listeners);
  const prefix = mkdtempSync(join(tmpdir(), 'chainprobe-nginx-'));
  mkdirSync(join(prefix, 'tmp'));
  const conf = join(prefix, 'nginx.conf');
  const logFile = join(prefix, 'error.log');
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const errorLog = () =>
    log()
      .split('\n')
      .filter((l) => l && !ROUTINE.test(l))
      .join('\n');
  let child: ChildProcess;
  try {
    writeFileSync(conf, configText(prefix, opts.http(reserved.ports)));
    // The inherited sockets are the child's descriptors 3, 4, ... in the order of the ports.
    const inherited = reserved.fds.map((_, i) => 3 + i);
    child = spawn(bin, ['-p', prefix, '-c', conf, '-e', logFile], {
      stdio: ['ignore', 'ignore', 'pipe', ...reserved.fds],
      env: { ...process.env, NGINX: inherited.map((fd) => `${fd};`).join('') },
    });
  } finally {
    // nginx has its own copies now; ours would accept connections meant for it.
    await reserved.close();
  }
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const stop = async () => {
    if (!(await exited(child, 0))) {
      child.kill('SIGTERM');
      if (!(await exited(child, 3000))) child.kill('SIGKILL');
      await exited(child, 3000);
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const backstop = opts.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + backstop;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const why = (stderr + errorLog()).trim().split('\n').slice(-3).join(' | ');
      await stop();
      throw new Error(`nginx exited at start-up (code ${child.exitCode ?? child.signalCode}): ${why}`);
    }
    if (STARTED.test(log())) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start within ${backstop} ms: ${errorLog().slice(-300)}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { pid: child.pid!, prefix, ports: reserved.ports, errorLog, stop };
}
