// Parameter estimation from the headers: Limit, and T with its uncertainty, from synthetic runs of
// the independent simulator (exact, jittery, other rates) and from answers no GCRA explains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coarseT, estimateEmissionInterval, estimateLimit, tFromAnswer } from '../../load/model/estimate.js';
import type { ReplayInput } from '../../load/model/replay.js';
import { SimHorizon, type SimFault } from './sim-horizon.js';

/** A run shaped like the probes' plan: quick run, pause, burst, drain under the cap, recovery. */
function planLikeRun(
  hourlyLimit: number,
  delay: (i: number) => { in: number; out: number },
  faults: SimFault[] = [],
): ReplayInput[] {
  const sim = new SimHorizon({ hourlyLimit, burst: 100, perSecondCap: 20, delay, faults: new Set(faults) });
  const out: ReplayInput[] = [];
  const send = (t: number) => {
    const a = sim.request(t, 'GET');
    const h = a.headers;
    const num = (k: string) => (h[k] === undefined ? undefined : Number(h[k]));
    const x: ReplayInput = {
      sentAt: t,
      receivedAt: a.doneAt,
      outcome: a.status === 200 ? 'accepted' : h['X-Ratelimit-Limit'] ? 'denied' : 'bypassed',
      remaining: num('X-Ratelimit-Remaining'),
      reset: num('X-Ratelimit-Reset'),
      retryAfter: num('Retry-After'),
    };
    out.push(x);
    return x;
  };
  let t = 0;
  for (let i = 0; i < 3; i++) t = send(t + 5).receivedAt;
  const last = out[out.length - 1]!;
  t = send(last.receivedAt + last.reset! * 1000 + 25).receivedAt;
  for (let i = 0; i < 30; i++) send(t + 10 + i * 25);
  const t0 = out[out.length - 1]!.receivedAt + 1000;
  for (let i = 0; i < 200; i++) if (send(t0 + i * 53).outcome === 'denied') break;
  const d = out[out.length - 1]!;
  const ok = send(d.receivedAt + 3_600_000 / hourlyLimit + 25);
  send(ok.receivedAt + 5);
  return out;
}

const exact = () => ({ in: 0.2, out: 0.3 });
const jitter = (seed: number) => (i: number) => ({ in: 40, out: 40 + (((i + seed) * 7919) % 80) });

const cases = [
  { name: 'dedicated 3600/h, exact', hourly: 3600, delay: exact, within: 0.02 },
  { name: 'dedicated 3600/h, 80±40 ms jitter', hourly: 3600, delay: jitter(1), within: 0.02 },
  { name: 'shared 2000/h, exact', hourly: 2000, delay: exact, within: 0.02 },
  { name: 'shared 2000/h, 80±40 ms jitter', hourly: 2000, delay: jitter(2), within: 0.02 },
  { name: 'a raised 36000/h, jitter', hourly: 36000, delay: jitter(3), within: 0.02 },
];

for (const c of cases) {
  test(`T is recovered within 2% with a stated uncertainty: ${c.name}`, () => {
    const inputs = planLikeRun(c.hourly, c.delay);
    const { limit } = estimateLimit(inputs.map(() => 101));
    const est = estimateEmissionInterval(inputs, limit!, { start: 'unknown' })!;
    const T = 3_600_000 / c.hourly;
    assert.equal(est.method, 'all-headers');
    assert.ok(est.consistent);
    assert.ok(Math.abs(est.emissionIntervalMs - T) / T < c.within, `T ${est.emissionIntervalMs} vs ${T}`);
    // The band must contain the truth, and the stated uncertainty must cover the error.
    assert.ok(est.band.lo <= T && T <= est.band.hi + 1e-6, `band ${est.band.lo}..${est.band.hi}`);
    assert.ok(Math.abs(est.emissionIntervalMs - T) <= est.uncertaintyMs);
  });
}

test('a header that lies: T still comes from the other header, and the estimate says so', () => {
  const inputs = planLikeRun(3600, exact, ['reset-static']);
  const est = estimateEmissionInterval(inputs, 101, { start: 'unknown' })!;
  assert.equal(est.method, 'remaining-only');
  assert.equal(est.consistent, false);
  assert.ok(Math.abs(est.emissionIntervalMs - 1000) < 20, `${est.emissionIntervalMs}`);
});

test('answers no GCRA explains (a fixed window) are reported as not consistent', () => {
  const inputs = planLikeRun(3600, exact, ['fixed-window']);
  const est = estimateEmissionInterval(inputs, 101, { start: 'unknown' });
  assert.ok(est && !est.consistent && est.unexplained > 0);
});

test('Limit is the most common header value; each answer alone bounds T', () => {
  assert.deepEqual(estimateLimit([101, 101, undefined, 111, 101]), { limit: 101, values: [101, 111] });
  assert.deepEqual(tFromAnswer(100, 1, 101), { lo: 0, hi: 1000 });
  const iv = tFromAnswer(0, 101, 101)!;
  assert.ok(iv.lo < 1000 && iv.hi >= 1000 && iv.hi - iv.lo < 25);
  const inputs = planLikeRun(3600, exact);
  const c = coarseT(inputs, 101)!;
  assert.ok(c.lo <= 1000 && c.hi >= 1000 && c.hi - c.lo < 25);
});
