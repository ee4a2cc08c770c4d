// The Node engine against a trivial local server: absolute-schedule pacing, header names in lower
// case, the body cap, timeouts, and no request after an abort.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeEngine } from '../../load/engine/node.js';

interface Hit {
  url: string;
  method: string;
  at: number;
}

const hits: Hit[] = [];
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'X-Ratelimit-Limit': '101',
    'X-Ratelimit-Remaining': '100',
    'X-Ratelimit-Reset': '1',
    'Set-Cookie': ['a=1', 'b=2'],
  });
  res.end('{"ok":true}');
};
const server = createServer((req, res) => {
  hits.push({ url: req.url ?? '', method: req.method ?? '', at: performance.now() });
  handler(req, res);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => {
  server.closeAllConnections();
  server.close();
});

const engineFor = (extra: Partial<ConstructorParameters<typeof NodeEngine>[0]> = {}) =>
  new NodeEngine({ endpoint, token: 'tok-en/with?chars', timeoutMs: 2000, ...extra });

for (const rate of [20, 50]) {
  // How late requests leave is the benchmark's figure (tools/bench/pacing.ts): with other work on
  // the CPU no bound on it holds. Here: every request on its absolute slot or after it, never early.
  test(`pacing on an absolute schedule at ${rate} req/s: no request leaves before its slot; lateness is reported`, async (t) => {
    const engine = engineFor();
    try {
      const n = rate * 2;
      const interval = 1000 / rate;
      const t0 = engine.now() + 20;
      const pending = [];
      for (let i = 0; i < n; i++) {
        await engine.sleepUntil(t0 + i * interval);
        pending.push(engine.send('GET', t0 + i * interval));
      }
      const answers = await Promise.all(pending);
      const pacing = engine.pacing();
      assert.equal(pacing.count, n);
      assert.ok(answers.every((a) => a.status === 200 && a.receivedAt >= a.sentAt));
      answers.forEach((a, i) =>
        assert.ok(a.sentAt >= t0 + i * interval - 0.001, `#${i} left ${t0 + i * interval - a.sentAt} ms early`),
      );
      t.diagnostic(`lateness at ${rate}/s: p50 ${pacing.p50Ms} ms, p99 ${pacing.p99Ms} ms, max ${pacing.maxMs} ms`);
      assert.ok(pacing.p99Ms >= pacing.p50Ms && pacing.maxMs >= pacing.p99Ms);
    } finally {
      await engine.close();
    }
  });
}

test('a least gap holds between actual send times, even when one send is late and the next is already due', async () => {
  const engine = engineFor();
  try {
    const gap = 30;
    const pending = [engine.send('GET', undefined, gap)];
    // The event loop is busy past the next two slots: both are due at once when it frees up.
    const until = performance.now() + 80;
    while (performance.now() < until) {
      /* a busy core */
    }
    pending.push(engine.send('GET', undefined, gap), engine.send('GET', undefined, gap));
    const answers = await Promise.all(pending);
    for (let i = 1; i < answers.length; i++)
      assert.ok(
        answers[i]!.sentAt - answers[i - 1]!.sentAt >= gap,
        `gap ${answers[i]!.sentAt - answers[i - 1]!.sentAt} ms`,
      );
    const g = engine.pacing().gapped!;
    assert.equal(g.count, 2);
    assert.ok(g.minSlackMs >= 0 && g.minGapMs >= gap);
  } finally {
    await engine.close();
  }
});

test('the request: GET and HEAD to /fee_stats with the token in the auth query; header names in lower case', async () => {
  const engine = engineFor();
  try {
    const get = await engine.send('GET');
    const head = await engine.send('HEAD');
    const last = hits.slice(-2);
    assert.deepEqual(
      last.map((h) => h.method),
      ['GET', 'HEAD'],
    );
    assert.equal(last[0]!.url, `/fee_stats?auth=${encodeURIComponent('tok-en/with?chars')}`);
    assert.equal(get.headers['x-ratelimit-limit'], '101');
    assert.equal(get.headers['set-cookie'], 'a=1, b=2');
    assert.equal(get.body, '{"ok":true}');
    assert.equal(head.body, undefined);
    assert.equal(get.request.url, `${endpoint}/fee_stats?auth=${encodeURIComponent('tok-en/with?chars')}`);
  } finally {
    await engine.close();
  }
});

test('bodies are kept up to a cap and counted; past the limit the read stops', async () => {
  const big = 'x'.repeat(200_000);
  handler = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(big);
  };
  const engine = engineFor({ bodyKeepBytes: 100, bodyLimitBytes: 50_000 });
  try {
    const r = await engine.send('GET');
    assert.equal(r.body?.length, 100);
    assert.ok(r.bodyBytes! > 50_000 && r.bodyBytes! <= 200_000);
  } finally {
    await engine.close();
  }
});

test('a request that gets no answer ends with a timeout error, never a hang', async () => {
  handler = () => undefined;
  const engine = engineFor({ timeoutMs: 300 });
  try {
    const r = await engine.send('GET');
    assert.equal(r.status, undefined);
    assert.match(r.error ?? '', /timeout after 300 ms/);
    assert.ok(r.receivedAt - r.sentAt < 2000);
  } finally {
    await engine.close();
  }
});

test('after an abort: waiting ends at once and nothing is sent', async () => {
  handler = (_req, res) => res.end('{}');
  const controller = new AbortController();
  const engine = engineFor({ signal: controller.signal });
  try {
    const before = hits.length;
    const waiting = engine.sleepUntil(engine.now() + 60_000);
    controller.abort();
    const t = performance.now();
    await waiting;
    assert.ok(performance.now() - t < 100);
    const r = await engine.send('GET');
    assert.match(r.error ?? '', /interrupted/);
    assert.equal(hits.length, before);
  } finally {
    await engine.close();
  }
});
