// Debian's nginx as a real proxy in tests: our own prefix and config, 127.0.0.1 only, ports chosen
// free, stopped by pid. A missing nginx skips the test with a line saying how to enable it, unless
// CHAINPROBE_REQUIRE_NGINX=1 (set by .ci/run), where the test runs and fails on the missing binary.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface NginxOptions {
  /** The inside of the `http {}` block: servers, zones, upstreams. Listen on 127.0.0.1 only. */
  http: string;
  /** Ports the config listens on; start-up waits until each accepts a connection. */
  ports: number[];
  startTimeoutMs?: number;
}

export interface Nginx {
  readonly pid: number;
  readonly prefix: string;
  /** The error log so far (for failure messages). */
  errorLog(): string;
  stop(): Promise<void>;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function configText(prefix: string, http: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((k) => `  ${k}_temp_path ${join(prefix, 'tmp', k)};`)
    .join('\n');
  // As root, workers would switch to `nobody`, who cannot use our prefix: keep them as we are.
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  return `${user}worker_processes 1;
daemon off;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;
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

export async function startNginx(opts: NginxOptions): Promise<Nginx> {
  const bin = findNginx();
  if (!bin) throw new Error('nginx not found (CHAINPROBE_REQUIRE_NGINX=1): apt-get install nginx, or set NGINX_PATH');
  const prefix = mkdtempSync(join(tmpdir(), 'chainprobe-nginx-'));
  mkdirSync(join(prefix, 'tmp'));
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, configText(prefix, opts.http));
  const logFile = join(prefix, 'error.log');
  const errorLog = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  let stderr = '';
  const child = spawn(bin, ['-p', prefix, '-c', conf, '-e', logFile], { stdio: ['ignore', 'ignore', 'pipe'] });
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
  const deadline = Date.now() + (opts.startTimeoutMs ?? 10_000);
  for (;;) {
    if (child.exitCode !== null) {
      const why = (stderr + errorLog()).trim().split('\n').slice(-3).join(' | ');
      await stop();
      throw new Error(`nginx exited at start-up (code ${child.exitCode}): ${why}`);
    }
    const ready = await Promise.all(opts.ports.map(canConnect));
    if (ready.every(Boolean)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not listen on ${opts.ports.join(', ')} within ${opts.startTimeoutMs ?? 10_000} ms`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { pid: child.pid!, prefix, errorLog, stop };
}
