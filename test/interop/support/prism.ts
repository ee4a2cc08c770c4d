// Prism's validation proxy (@stoplight/prism-cli) between chainprobe and one upstream: started on a
// port the OS picks (`-p 0`, read back from its "listening" line), its log kept, its violations
// parsed out of it, and stopped by the id of the process this module started.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface Violation {
  /** `request` or `response`, and the location Prism names (`response.body.data...`). */
  side: 'request' | 'response';
  where: string;
  message: string;
  /** The log line, without colours. */
  line: string;
}

export interface PrismProxy {
  url: string;
  /** Every log line so far, without colours. */
  lines(): string[];
  violations(): Violation[];
  /** Requests Prism received. */
  received(): number;
  stop(): Promise<void>;
}

const ANSI = /\u001b\[[0-9;]*m/g;

export function prismBin(): string {
  const pkg = createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json');
  return join(dirname(pkg), 'dist', 'index.js');
}

/** `Violation: response.body Response body must have...` -> its side, location and text. */
export function parseViolation(line: string): Violation | undefined {
  const m = /Violation: ((request|response)\S*) (.*)$/.exec(line);
  if (!m) return undefined;
  return { side: m[2] as 'request' | 'response', where: m[1]!, message: m[3]!.trim(), line: line.trim() };
}

export async function startPrismProxy(document: string, upstream: string, timeoutMs = 60_000): Promise<PrismProxy> {
  const child = spawn(
    process.execPath,
    [prismBin(), 'proxy', document, upstream, '--port', '0', '--host', '127.0.0.1', '--errors', 'false'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } },
  );
  const lines: string[] = [];
  let rest = '';
  const take = (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const l of parts) lines.push(l.replace(ANSI, ''));
  };
  child.stdout.setEncoding('utf8').on('data', take);
  child.stderr.setEncoding('utf8').on('data', take);
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  };
  const started = Date.now();
  let url: string | undefined;
  while (!url) {
    url = lines.map((l) => /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(l)?.[1]).find(Boolean);
    if (url) break;
    if (child.exitCode !== null || Date.now() - started > timeoutMs) {
      await stop();
      throw new Error(`prism did not start within ${timeoutMs} ms:\n${lines.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    lines: () => [...lines],
    violations: () => lines.flatMap((l) => parseViolation(l) ?? []),
    received: () => lines.filter((l) => /Request received/.test(l)).length,
    stop,
  };
}
