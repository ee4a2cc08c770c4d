// Each limiter fault, switched on, visibly changes what its rule describes: one row per fault,
// the same scenario on an injected clock run on a conformant and on a faulty limiter (or node),
// with both outcomes written out.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RULES, ruleById } from '../../src/rules/catalogue.js';
import { LIMITER_FAULTS } from '../../reference/faults/limiter.js';
import { createHorizonLimiter, type Admission, type HorizonLimiter } from '../../reference/limiter/pipeline.js';
import { RATE_LIMIT_HEADER } from '../../reference/limiter/gcra.js';
import { startTestNode, type TestNode } from './horizon-client.js';

type View = 'proxy' | { status: 200 | 429; limit: number; remaining: number; reset: number; retryAfter?: number };

const view = (a: Admission): View => (a.by === 'proxy' ? 'proxy' : { status: a.limited ? 429 : 200, ...a.headers });
const statusOf = (a: Admission) => (a.by === 'proxy' ? 'proxy' : a.limited ? 429 : 200);

/** 101 requests at `at` (the whole quota at 3600/h, burst 100). */
const exhaust = (l: HorizonLimiter, at = 0) => Array.from({ length: 101 }, () => l.admit('k', at));

interface LimiterCase {
  fault: string;
  /** What the scenario shows; defaults to 3600/h, burst 100, no proxy cap (the cap has its own rows). */
  scenario: (l: HorizonLimiter) => unknown;
  conformant: unknown;
  faulty: unknown;
  perSecondCap?: number;
}

/** The denied request's retry-after, and what a request sent exactly that many seconds later gets. */
const retryScenario = (l: HorizonLimiter) => {
  exhaust(l);
  const denied = l.admit('k', 0);
  const wait = denied.by === 'limiter' ? denied.headers.retryAfter : undefined;
  return { retryAfter: wait, afterWaiting: wait === undefined ? 'no wait given' : statusOf(l.admit('k', wait * 1000)) };
};

const LIMITER_CASES: LimiterCase[] = [
  {
    fault: 'rl-limit-drifts',
    scenario: (l) => Array.from({ length: 4 }, () => l.admit('k', 0)).map((a) => a.by === 'limiter' && a.headers.limit),
    conformant: [101, 101, 101, 101],
    faulty: [101, 111, 101, 111],
  },
  {
    fault: 'rl-reset-static',
    scenario: (l) => Array.from({ length: 5 }, () => l.admit('k', 0)).map((a) => a.by === 'limiter' && a.headers.reset),
    conformant: [1, 2, 3, 4, 5],
    faulty: [1, 1, 1, 1, 1],
  },
  {
    fault: 'rl-head-free',
    // GET, HEAD, GET at one instant: the HEAD shows what a counted request would, the GET after it tells.
    scenario: (l) =>
      (['GET', 'HEAD', 'GET'] as const).map((m) => {
        const a = l.admit('k', 0, m);
        return a.by === 'limiter' && { remaining: a.headers.remaining, reset: a.headers.reset };
      }),
    conformant: [
      { remaining: 100, reset: 1 },
      { remaining: 99, reset: 2 },
      { remaining: 98, reset: 3 },
    ],
    faulty: [
      { remaining: 100, reset: 1 },
      { remaining: 99, reset: 2 },
      { remaining: 99, reset: 2 },
    ],
  },
  {
    fault: 'rl-recovery-stuck',
    // Pause as long as the last Reset (101 s): the quota should be full again.
    scenario: (l) => {
      exhaust(l);
      return view(l.admit('k', 101_000));
    },
    conformant: { status: 200, limit: 101, remaining: 100, reset: 1 },
    // Only 2 s of the pause are credited: TAT 101 s -> 102 s on a clock at 2 s.
    faulty: { status: 200, limit: 101, remaining: 1, reset: 100 },
  },
  {
    fault: 'rl-fixed-window',
    scenario: (l) => {
      const first = view(exhaust(l)[0]!);
      return { first, oneTLater: view(l.admit('k', 1000)), nextWindow: view(l.admit('k', 101_000)) };
    },
    conformant: {
      first: { status: 200, limit: 101, remaining: 100, reset: 1 },
      oneTLater: { status: 200, limit: 101, remaining: 0, reset: 101 },
      nextWindow: { status: 200, limit: 101, remaining: 99, reset: 2 },
    },
    faulty: {
      // Reset counts down to the end of the window [0, 101 s) opened by the first request.
      first: { status: 200, limit: 101, remaining: 100, reset: 101 },
      oneTLater: { status: 429, limit: 101, remaining: 0, reset: 100, retryAfter: 100 },
      // The window [101 s, 202 s) starts over: full quota at once.
      nextWindow: { status: 200, limit: 101, remaining: 100, reset: 101 },
    },
  },
  {
    fault: 'rl-retry-after-missing',
    scenario: retryScenario,
    conformant: { retryAfter: 1, afterWaiting: 200 },
    faulty: { retryAfter: undefined, afterWaiting: 'no wait given' },
  },
  {
    fault: 'rl-retry-after-ms',
    scenario: retryScenario,
    conformant: { retryAfter: 1, afterWaiting: 200 },
    faulty: { retryAfter: 1000, afterWaiting: 200 },
  },
  {
    fault: 'rl-retry-after-short',
    scenario: retryScenario,
    conformant: { retryAfter: 1, afterWaiting: 200 },
    faulty: { retryAfter: 0, afterWaiting: 429 },
  },
  {
    fault: 'rl-remaining-overstated',
    scenario: (l) => {
      const last = exhaust(l).at(-1)!;
      return { lastRemaining: last.by === 'limiter' && last.headers.remaining, next: statusOf(l.admit('k', 0)) };
    },
    conformant: { lastRemaining: 0, next: 429 },
    faulty: { lastRemaining: 1, next: 429 },
  },
  {
    fault: 'rl-wrong-hourly-rate',
    scenario: (l) => {
      exhaust(l);
      return {
        emissionNs: l.params.emissionNs,
        afterOneSecond: statusOf(l.admit('k', 1000)),
        after1200ms: statusOf(l.admit('k', 1200)),
      };
    },
    conformant: { emissionNs: 1_000_000_000n, afterOneSecond: 200, after1200ms: 429 },
    faulty: { emissionNs: 1_200_000_000n, afterOneSecond: 429, after1200ms: 200 },
  },
  {
    // 30 requests 20 ms apart from 0.6 s: a sliding second forwards 20, a count per calendar second
    // starts over at 1 s.
    fault: 'rl-cap-calendar-second',
    perSecondCap: 20,
    scenario: (l) =>
      Array.from({ length: 30 }, (_, i) => l.admit('k', 600 + i * 20)).filter((a) => a.by === 'limiter').length,
    conformant: 20,
    faulty: 30,
  },
  {
    // 30 requests at 40 a second: a token bucket of 20 refills while they come.
    fault: 'rl-cap-token-bucket',
    perSecondCap: 20,
    scenario: (l) =>
      Array.from({ length: 30 }, (_, i) => l.admit('k', i * 25)).filter((a) => a.by === 'limiter').length,
    conformant: 20,
    faulty: 30,
  },
  ...(['rl-cap-25', 'rl-no-cap'] as const).map((fault): LimiterCase => ({
    fault,
    perSecondCap: 20,
    scenario: (l) => Array.from({ length: 30 }, () => l.admit('k', 0)).filter((a) => a.by === 'limiter').length,
    conformant: 20,
    faulty: fault === 'rl-cap-25' ? 25 : 30,
  })),
  {
    fault: 'rl-burst-short',
    scenario: (l) => {
      const answers = exhaust(l);
      const firstDenial = answers.find((a) => a.by === 'limiter' && a.limited) ?? l.admit('k', 0);
      return {
        acceptedBeforeFirst429: answers.filter((a) => statusOf(a) === 200).length,
        firstDenial: view(firstDenial),
      };
    },
    conformant: {
      acceptedBeforeFirst429: 101,
      firstDenial: { status: 429, limit: 101, remaining: 0, reset: 101, retryAfter: 1 },
    },
    faulty: {
      acceptedBeforeFirst429: 96,
      firstDenial: { status: 429, limit: 101, remaining: 5, reset: 96, retryAfter: 1 },
    },
  },
  {
    fault: 'rl-reset-off',
    scenario: (l) => {
      const answers = exhaust(l);
      return [0, 10, 100].map((i) => {
        const a = answers[i]!;
        return a.by === 'limiter' && { remaining: a.headers.remaining, reset: a.headers.reset };
      });
    },
    conformant: [
      { remaining: 100, reset: 1 },
      { remaining: 90, reset: 11 },
      { remaining: 0, reset: 101 },
    ],
    faulty: [
      { remaining: 100, reset: 1 },
      { remaining: 90, reset: 16 },
      { remaining: 0, reset: 151 },
    ],
  },
  {
    fault: 'rl-reset-epoch',
    // Three requests on a Unix clock (ms): Reset is the second the bucket is full again, not the seconds until then.
    scenario: (l) =>
      [0, 0, 0].map(() => {
        const a = l.admit('k', 1_767_225_600_000);
        return a.by === 'limiter' && a.headers.reset;
      }),
    conformant: [1, 2, 3],
    faulty: [1_767_225_601, 1_767_225_602, 1_767_225_603],
  },
  ...(['rl-replayed-refusal', 'rl-replayed-refusal-stale'] as const).map((fault): LimiterCase => ({
    fault,
    // Exhausted at 0, refused at 0.5 s (retry-after 1 s); at 1 s the bucket takes one again.
    scenario: (l) => {
      exhaust(l);
      return [500, 1000, 1001, 2600].map((t) => statusOf(l.admit('k', t)));
    },
    conformant: [429, 200, 429, 200],
    faulty: fault === 'rl-replayed-refusal' ? [429, 429, 200, 200] : [429, 429, 429, 200],
  })),
];

const limiterWith = (faults: string[], perSecondCap = Infinity) =>
  createHorizonLimiter({ faults: new Set(faults), hourlyLimit: 3600, burst: 100, perSecondCap });

describe('limiter faults (pure pipeline, injected clock)', () => {
  for (const c of LIMITER_CASES) {
    test(`${c.fault} (${LIMITER_FAULTS.find((f) => f.name === c.fault)?.rule})`, () => {
      assert.deepEqual(c.scenario(limiterWith([], c.perSecondCap)), c.conformant, 'conformant');
      assert.deepEqual(c.scenario(limiterWith([c.fault], c.perSecondCap)), c.faulty, 'faulty');
    });
  }
});

interface NodeCase {
  fault: string;
  scenario: (n: TestNode) => Promise<unknown>;
  conformant: unknown;
  faulty: unknown;
}

const limiterHeaderNames = (headers: Record<string, string>) =>
  [RATE_LIMIT_HEADER.limit, RATE_LIMIT_HEADER.remaining, RATE_LIMIT_HEADER.reset, RATE_LIMIT_HEADER.retryAfter].filter(
    (h) => headers[h.toLowerCase()] !== undefined,
  );

/** Burst 2 (Limit 3): three requests use the token's quota, the plain fourth is refused. */
async function exhausted(n: TestNode): Promise<number> {
  for (let i = 0; i < 3; i++) await n.call('GET', n.authed());
  return (await n.call('GET', n.authed())).status;
}

const outcome = (a: { status: number; headers: Record<string, string> }) => ({
  status: a.status,
  remaining: a.headers['x-ratelimit-remaining'] ?? 'none',
});

/** RL-14: with the token's bucket empty, a request that varies one thing must not find another. */
const KEY_CASES = (): NodeCase[] => [
  {
    fault: 'rl-key-query-string',
    scenario: async (n) => ({
      plain: await exhausted(n),
      extraParam: outcome(await n.call('GET', `${n.authed()}&_=1`)),
      header: outcome(await n.call('GET', '/fee_stats', { 'X-Auth-Token': n.opts.credentials.horizonToken })),
    }),
    conformant: { plain: 429, extraParam: { status: 429, remaining: '0' }, header: { status: 429, remaining: '0' } },
    faulty: { plain: 429, extraParam: { status: 200, remaining: '2' }, header: { status: 200, remaining: '2' } },
  },
  {
    fault: 'rl-key-forwarded-for',
    scenario: async (n) => ({
      plain: await exhausted(n),
      forwarded: outcome(await n.call('GET', n.authed(), { 'X-Forwarded-For': '198.51.100.7' })),
      realIp: outcome(await n.call('GET', n.authed(), { 'X-Real-IP': '198.51.100.8' })),
    }),
    conformant: { plain: 429, forwarded: { status: 429, remaining: '0' }, realIp: { status: 429, remaining: '0' } },
    faulty: { plain: 429, forwarded: { status: 200, remaining: '2' }, realIp: { status: 429, remaining: '0' } },
  },
  {
    fault: 'rl-key-query-only',
    scenario: async (n) => ({
      plain: await exhausted(n),
      header: outcome(await n.call('GET', '/fee_stats', { 'X-Auth-Token': n.opts.credentials.horizonToken })),
      bearer: outcome(
        await n.call('GET', '/fee_stats', { Authorization: `Bearer ${n.opts.credentials.horizonToken}` }),
      ),
    }),
    conformant: { plain: 429, header: { status: 429, remaining: '0' }, bearer: { status: 429, remaining: '0' } },
    faulty: { plain: 429, header: { status: 200, remaining: 'none' }, bearer: { status: 200, remaining: 'none' } },
  },
];

const NODE_CASES: NodeCase[] = [
  {
    fault: 'rl-no-headers-on-429',
    scenario: async (n) => {
      for (let i = 0; i < 3; i++) await n.call('HEAD', n.authed());
      const denied = await n.call('GET', n.authed());
      return { status: denied.status, headers: limiterHeaderNames(denied.headers) };
    },
    conformant: {
      status: 429,
      headers: ['X-Ratelimit-Limit', 'X-Ratelimit-Remaining', 'X-Ratelimit-Reset', 'Retry-After'],
    },
    faulty: { status: 429, headers: ['Retry-After'] },
  },
  {
    fault: 'rl-no-headers-on-head',
    scenario: async (n) => {
      const head = await n.call('HEAD', n.authed());
      const get = await n.call('GET', n.authed());
      return { head: limiterHeaderNames(head.headers), getRemaining: get.headers['x-ratelimit-remaining'] };
    },
    conformant: { head: ['X-Ratelimit-Limit', 'X-Ratelimit-Remaining', 'X-Ratelimit-Reset'], getRemaining: '1' },
    // HEAD still used quota: GET shows the same Remaining.
    faulty: { head: [], getRemaining: '1' },
  },
  ...KEY_CASES(),
  {
    fault: 'fee-stats-not-json',
    scenario: async (n) => {
      const a = await n.call('GET', n.authed());
      let json = true;
      try {
        JSON.parse(a.body);
      } catch {
        json = false;
      }
      return { status: a.status, type: a.headers['content-type'], json, remaining: a.headers['x-ratelimit-remaining'] };
    },
    conformant: { status: 200, type: 'application/json; charset=utf-8', json: true, remaining: '2' },
    faulty: { status: 200, type: 'text/plain; charset=utf-8', json: false, remaining: '2' },
  },
];

describe('horizon node faults (HTTP, injected clock)', () => {
  for (const c of NODE_CASES) {
    test(`${c.fault} (${LIMITER_FAULTS.find((f) => f.name === c.fault)?.rule})`, async () => {
      for (const [faults, expected, label] of [
        [[], c.conformant, 'conformant'],
        [[c.fault], c.faulty, 'faulty'],
      ] as const) {
        const n = await startTestNode({ faults: new Set(faults), burst: 2 });
        try {
          assert.deepEqual(await c.scenario(n), expected, label);
        } finally {
          await n.close();
        }
      }
    });
  }
});

describe('limiter fault catalogue', () => {
  test('every fault names a known rule and has a test row above', () => {
    const tested = new Set([...LIMITER_CASES, ...NODE_CASES].map((c) => c.fault));
    for (const f of LIMITER_FAULTS) {
      assert.ok(ruleById(f.rule), f.rule);
      assert.ok(tested.has(f.name), `${f.name} has a test`);
    }
    assert.equal(new Set(LIMITER_FAULTS.map((f) => f.name)).size, LIMITER_FAULTS.length, 'names unique');
  });

  test('every must rule of the rate-limit section has at least one fault', () => {
    const covered = new Set(LIMITER_FAULTS.map((f) => f.rule));
    const missing = RULES.filter((r) => r.section === 'RL' && r.kind === 'must' && !covered.has(r.id)).map((r) => r.id);
    assert.deepEqual(missing, []);
  });
});
