// Test helper: a horizon node on an injected clock and a raw HTTP client that keeps header
// spellings as sent (fetch lower-cases them), for the horizon and limiter fault tests.
import { Agent, request } from 'node:http';
import { startHorizonNode } from '../../reference/nodes/horizon.js';
import { defaultOptions, type ReferenceOptions } from '../../reference/options.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';

export interface Answer {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Names exactly as on the wire. */
  rawNames: string[];
  body: string;
}

export interface TestNode {
  opts: ReferenceOptions;
  /** The injected clock, ms; tests move it. */
  clock: { ms: number };
  call(method: string, path: string, headers?: Record<string, string>): Promise<Answer>;
  /** `path` with the node's token as the `auth` query. */
  authed(path?: string): string;
  close(): Promise<void>;
}

export async function startTestNode(partial: Partial<ReferenceOptions> = {}): Promise<TestNode> {
  const clock = { ms: 0 };
  const opts = defaultOptions({ now: () => clock.ms, ...partial });
  const node = await startHorizonNode(opts);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = (method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request(`${node.endpoint}${path}`, { method, headers, agent, timeout: SLOW_MACHINE_MS }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const rawNames = res.rawHeaders.filter((_, i) => i % 2 === 0);
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) h[k] = Array.isArray(v) ? v.join(', ') : String(v);
          resolve({ status: res.statusCode ?? 0, headers: h, rawNames, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on('error', reject);
      req.end();
    });
  return {
    opts,
    clock,
    call,
    authed: (path = '/fee_stats') => `${path}?auth=${encodeURIComponent(opts.credentials.horizonToken)}`,
    close: async () => {
      agent.destroy();
      await node.close();
    },
  };
}
