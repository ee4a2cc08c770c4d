// The horizon-style node over real HTTP on an injected clock: fee_stats by GET and HEAD, the
// limiter headers with the wire spellings of a Go server, 429s, auth, the proxy cap, latency.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestNode, type Answer, type TestNode } from './horizon-client.js';
import { CAP_503_VARIANT, QUERY_ONLY_VARIANT } from '../../reference/nodes/horizon.js';
import { RATE_LIMIT_HEADER } from '../../reference/limiter/gcra.js';

const LIMIT_NAMES = [RATE_LIMIT_HEADER.limit, RATE_LIMIT_HEADER.remaining, RATE_LIMIT_HEADER.reset];

/** The limiter's view of an answer: status and the three headers (plus retry-after if sent). */
function limiterView(a: Answer): Record<string, string | number> {
  const v: Record<string, string | number> = { status: a.status };
  for (const name of [...LIMIT_NAMES, RATE_LIMIT_HEADER.retryAfter]) {
    const value = a.headers[name.toLowerCase()];
    if (value !== undefined) v[name] = value;
  }
  return v;
}

async function withNode(
  partial: Parameters<typeof startTestNode>[0],
  fn: (n: TestNode) => Promise<void>,
): Promise<void> {
  const n = await startTestNode(partial);
  try {
    await fn(n);
  } finally {
    await n.close();
  }
}

describe('horizon node: fee_stats', () => {
  test('GET answers horizon-style fee stats JSON with the limiter headers, spelled as Go sends them', () =>
    withNode({}, async (n) => {
      const a = await n.call('GET', n.authed());
      assert.equal(a.status, 200);
      assert.match(a.headers['content-type'] ?? '', /^application\/json/);
      for (const name of LIMIT_NAMES) assert.ok(a.rawNames.includes(name), `${name} spelled exactly`);
      assert.deepEqual(limiterView(a), {
        status: 200,
        'X-Ratelimit-Limit': '101',
        'X-Ratelimit-Remaining': '100',
        'X-Ratelimit-Reset': '1',
      });
      const body = JSON.parse(a.body) as Record<string, Record<string, string>>;
      for (const field of ['last_ledger', 'last_ledger_base_fee', 'ledger_capacity_usage', 'fee_charged', 'max_fee'])
        assert.ok(field in body, field);
      assert.match(String(body.last_ledger), /^\d+$/);
      assert.equal(body.fee_charged?.min, '100');
    }));

  test('HEAD answers the same status and headers with no body, and is counted like GET', () =>
    withNode({}, async (n) => {
      const get = await n.call('GET', n.authed());
      const head = await n.call('HEAD', n.authed());
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], get.headers['content-length']);
      assert.equal(head.headers['content-type'], get.headers['content-type']);
      assert.deepEqual(limiterView(head), {
        status: 200,
        'X-Ratelimit-Limit': '101',
        'X-Ratelimit-Remaining': '99',
        'X-Ratelimit-Reset': '2',
      });
      const third = await n.call('HEAD', n.authed());
      assert.deepEqual(limiterView(third), {
        status: 200,
        'X-Ratelimit-Limit': '101',
        'X-Ratelimit-Remaining': '98',
        'X-Ratelimit-Reset': '3',
      });
    }));

  test('after Remaining 0: 429 with the three headers, Retry-After and a JSON body; HEAD too', () =>
    withNode({ burst: 2 }, async (n) => {
      for (let i = 0; i < 3; i++) await n.call('HEAD', n.authed());
      const get = await n.call('GET', n.authed());
      assert.deepEqual(limiterView(get), {
        status: 429,
        'X-Ratelimit-Limit': '3',
        'X-Ratelimit-Remaining': '0',
        'X-Ratelimit-Reset': '3',
        'Retry-After': '1',
      });
      assert.ok(get.rawNames.includes('Retry-After'));
      assert.deepEqual(JSON.parse(get.body), {
        error: { code: 'rate_limit_exceeded', message: 'rate limit exceeded; see retry-after' },
      });
      const head = await n.call('HEAD', n.authed());
      assert.deepEqual(limiterView(head), limiterView(get));
      assert.equal(head.body, '');
      n.clock.ms = 1000;
      assert.equal((await n.call('HEAD', n.authed())).status, 200, 'one T later a request fits again');
    }));

  test('a paced client sees the 2000/h numbers (T = 1.8 s)', () =>
    withNode({ customer: 'shared' }, async (n) => {
      const resets: string[] = [];
      for (let i = 0; i < 3; i++) resets.push((await n.call('HEAD', n.authed())).headers['x-ratelimit-reset'] ?? '');
      assert.deepEqual(resets, ['2', '4', '6']);
    }));
});

describe('horizon node: auth', () => {
  test('missing token 401, wrong token 403, JSON, no limiter headers, no quota used', () =>
    withNode({}, async (n) => {
      const missing = await n.call('GET', '/fee_stats');
      const wrong = await n.call('HEAD', '/fee_stats?auth=not-the-token');
      assert.equal(missing.status, 401);
      assert.equal(wrong.status, 403);
      assert.equal(typeof JSON.parse(missing.body), 'object');
      for (const a of [missing, wrong])
        for (const name of LIMIT_NAMES) assert.equal(a.headers[name.toLowerCase()], undefined);
      const ok = await n.call('HEAD', n.authed());
      assert.equal(ok.headers['x-ratelimit-remaining'], '100');
    }));

  test('Bearer and X-Auth-Token are accepted too, on the same quota', () =>
    withNode({}, async (n) => {
      const token = n.opts.credentials.horizonToken;
      const bearer = await n.call('HEAD', '/fee_stats', { Authorization: `Bearer ${token}` });
      const xAuth = await n.call('HEAD', '/fee_stats', { 'X-Auth-Token': token });
      assert.deepEqual([bearer.status, xAuth.status], [200, 200]);
      assert.deepEqual(
        [bearer.headers['x-ratelimit-remaining'], xAuth.headers['x-ratelimit-remaining']],
        ['100', '99'],
      );
    }));

  test(`variant ${QUERY_ONLY_VARIANT}: the header forms are refused as no token, the auth query works`, () =>
    withNode({ variants: new Set([QUERY_ONLY_VARIANT]) }, async (n) => {
      const token = n.opts.credentials.horizonToken;
      const bearer = await n.call('HEAD', '/fee_stats', { Authorization: `Bearer ${token}` });
      const xAuth = await n.call('HEAD', '/fee_stats', { 'X-Auth-Token': token });
      assert.deepEqual([bearer.status, xAuth.status], [401, 401]);
      const query = await n.call('HEAD', n.authed());
      assert.deepEqual([query.status, query.headers['x-ratelimit-remaining']], [200, '100']);
    }));

  test('fault node-missing-token-accepted reaches this node too: no token gets data, on its own quota', () =>
    withNode({ faults: new Set(['node-missing-token-accepted']) }, async (n) => {
      await n.call('HEAD', n.authed());
      const none = await n.call('GET', '/fee_stats');
      assert.deepEqual(limiterView(none), {
        status: 200,
        'X-Ratelimit-Limit': '101',
        'X-Ratelimit-Remaining': '100',
        'X-Ratelimit-Reset': '1',
      });
      assert.equal((await n.call('GET', '/fee_stats?auth=not-the-token')).status, 403);
    }));

  test('unknown path 404 and other methods 405, both JSON', () =>
    withNode({}, async (n) => {
      assert.equal((await n.call('GET', n.authed('/ledgers'))).status, 404);
      const post = await n.call('POST', n.authed());
      assert.equal(post.status, 405);
      assert.equal(post.headers.allow, 'GET, HEAD');
    }));

  test('every request is counted, refused ones included', () =>
    withNode({}, async (n) => {
      await n.call('GET', '/fee_stats');
      await n.call('HEAD', n.authed());
      assert.equal(n.opts.counters.of('horizon'), 2);
    }));
});

describe('horizon node: the proxy cap', () => {
  test('the 21st request in one second gets the proxy 429: retry-after 1, no limiter headers, no quota used', () =>
    withNode({}, async (n) => {
      const answers: Answer[] = [];
      for (let i = 0; i < 21; i++) answers.push(await n.call('HEAD', n.authed()));
      assert.equal(answers[19]?.headers['x-ratelimit-remaining'], '81');
      const capped = answers[20]!;
      assert.deepEqual(limiterView(capped), { status: 429, 'Retry-After': '1' });
      const get = await n.call('GET', n.authed());
      assert.equal(get.status, 429);
      assert.equal(typeof JSON.parse(get.body), 'object');
      n.clock.ms = 1000;
      // TAT 20 s from 20 counted requests: ttl 20 s at t = 1 s.
      assert.deepEqual(limiterView(await n.call('HEAD', n.authed())), {
        status: 200,
        'X-Ratelimit-Limit': '101',
        'X-Ratelimit-Remaining': '81',
        'X-Ratelimit-Reset': '20',
      });
    }));

  test(`variant ${CAP_503_VARIANT}: the proxy answers 503 instead`, () =>
    withNode({ variants: new Set([CAP_503_VARIANT]), perSecondCap: 1 }, async (n) => {
      await n.call('HEAD', n.authed());
      assert.deepEqual(limiterView(await n.call('HEAD', n.authed())), { status: 503, 'Retry-After': '1' });
    }));
});

describe('horizon node: latency', () => {
  test('latency delays the answer; the limiter decides at arrival', () =>
    withNode({ latency: { baseMs: 60, jitterMs: 0 } }, async (n) => {
      await n.call('HEAD', n.authed());
      // The clock jumps 10 s as soon as the request arrives: deciding at answer time would show full quota.
      n.opts.counters.onHit(() => void (n.clock.ms += 10_000));
      const started = performance.now();
      const a = await n.call('HEAD', n.authed());
      assert.ok(performance.now() - started >= 50, 'answer delayed');
      assert.deepEqual(limiterView(a), {
        status: 200,
        'X-Ratelimit-Limit': '101',
        'X-Ratelimit-Remaining': '99',
        'X-Ratelimit-Reset': '2',
      });
    }));
});
