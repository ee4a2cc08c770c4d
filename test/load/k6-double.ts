// A test double of k6 for the k6 adapter: `sleep` blocks by moving a virtual clock (no answer is
// delivered meanwhile), and `asyncRequest` asks a simulated horizon node, whose answer settles on
// the virtual event loop once the clock has reached its completion, as k6's event loop would: a
// script that awaits an answer still on its way waits (the clock moves on to it), and counts so.
import type { K6Api, K6Response } from '../../load/k6/adapter.js';
import type { SimHorizon } from './sim-horizon.js';
import { VirtualLoop } from './virtual-loop.js';

export const FAKE_EPOCH = 1_767_225_600_000;

export class FakeK6 implements K6Api {
  readonly loop = new VirtualLoop(FAKE_EPOCH);
  readonly urls: string[] = [];
  /** The request headers of each request, in order. */
  readonly headers: Record<string, string>[] = [];
  sleeps = 0;
  /** Virtual ms spent in sleep(). */
  sleptMs = 0;

  constructor(
    private readonly sim: SimHorizon,
    private readonly token: string,
  ) {}

  now(): number {
    return this.loop.clock;
  }

  sleep(seconds: number): void {
    this.sleeps++;
    this.sleptMs += seconds * 1000;
    this.loop.clock += seconds * 1000;
  }

  asyncRequest(
    method: string,
    url: string,
    _body?: null,
    params: { headers?: Record<string, string> } = {},
  ): Promise<K6Response> {
    this.urls.push(url);
    const headers = Object.fromEntries(Object.entries(params.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    this.headers.push(headers);
    const sentAt = this.loop.clock - FAKE_EPOCH;
    // The token in any of the three forms of "Node access", all on the simulator's one bucket.
    const token =
      new URL(url).searchParams.get('auth') ??
      headers['x-auth-token'] ??
      headers['authorization']?.replace(/^Bearer /, '');
    const authorized = token === this.token && new URL(url).pathname.endsWith('/fee_stats');
    const a = authorized
      ? this.sim.request(sentAt, method)
      : { status: 401, headers: {}, decidedAt: sentAt, doneAt: sentAt + 1 };
    return this.loop.at(FAKE_EPOCH + a.doneAt, () => ({
      status: a.status,
      headers: a.headers,
      body: method === 'HEAD' ? null : '{"last_ledger":"1"}',
      error: '',
      timings: { blocked: 0, connecting: 0, tls_handshaking: 0, duration: a.doneAt - sentAt },
    }));
  }
}

/**
 * The exit code k6 gives for these thresholds over these metric samples: 99 when any threshold is
 * crossed, else 0. Only what the entry scripts declare is understood: `rate<op><number>` on a Rate.
 */
export function k6ExitCode(thresholds: Record<string, string[]>, metrics: Record<string, number[]>): 0 | 99 {
  for (const [metric, exprs] of Object.entries(thresholds)) {
    const samples = metrics[metric] ?? [];
    // k6 does not judge a threshold on a metric with no samples.
    if (samples.length === 0) continue;
    const rate = samples.reduce((a, b) => a + b, 0) / samples.length;
    for (const expr of exprs) {
      const m = /^rate\s*(==|!=|<=|>=|<|>)\s*([\d.]+)$/.exec(expr);
      if (!m) throw new Error(`the k6 double does not understand threshold "${expr}"`);
      const v = Number(m[2]);
      const ok = { '==': rate === v, '!=': rate !== v, '<=': rate <= v, '>=': rate >= v, '<': rate < v, '>': rate > v }[
        m[1] as '=='
      ];
      if (!ok) return 99;
    }
  }
  return 0;
}
