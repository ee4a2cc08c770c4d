// The probes against Debian's nginx in front of the reference's horizon node (test/load/nginx-front.ts):
// `limit_req` without burst is a conformant strict cap (refuses anything under 50 ms after the last
// forwarded request): no rule fails or errors, its refusals are RL-13. `burst=19 nodelay` accepts
// 39 in the first second: RL-10 fails, nothing else does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nginxSkip } from '../support/nginx.js';
import { startNginxFront } from './nginx-front.js';
import { probeHorizon, verdictLines } from './reference-harness.js';

const skip = nginxSkip();

async function probeFront(front: 'strict' | 'nodelay') {
  const f = await startNginxFront();
  try {
    const horizon = {
      endpoint: f[front],
      token: f.token,
      customer: 'dedicated' as const,
      hourlyLimit: 3600,
      perSecondCap: 20,
    };
    return await probeHorizon(horizon, {}, () => f.options.counters.of('horizon'));
  } finally {
    await f.close();
  }
}

const notPassing = (checks: { rule: string; verdict: string }[]) =>
  checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');

test(
  "nginx limit_req rate=20r/s without burst: no RL rule fails or errors; the refusals are the proxy's (RL-13) and counted; paced sends keep its spacing",
  { skip },
  async () => {
    const r = await probeFront('strict');
    const lines = verdictLines(r.outcome);
    assert.deepEqual(
      notPassing(r.outcome.checks).map((c) => `${c.rule} ${c.verdict}`),
      [],
      lines,
    );
    const l = r.outcome.limiter!;
    assert.equal(l.limit, 101);
    const rl13 = r.outcome.checks.find((c) => c.rule === 'RL-13')!;
    assert.equal(rl13.verdict, 'observed');
    assert.match(rl13.message, /the proxy refused \d+ request/);
    // Requests the proxy refused never reached the node: sent = served + refused by the proxy.
    assert.equal(l.requestsSent, r.served + (l.proxyRefusals as number), lines);
    assert.ok((l.pacingGapMs as number) >= 50, `paced gap ${String(l.pacingGapMs)} ms`);
    const gapped = (l.pacing as { gapped?: { minGapMs: number } }).gapped;
    assert.ok(gapped && gapped.minGapMs >= 50, `least actual gap ${gapped?.minGapMs} ms`);
  },
);

test(
  'nginx limit_req burst=19 nodelay (39 accepted in the first second): RL-10 fails and nothing else',
  { skip },
  async () => {
    const r = await probeFront('nodelay');
    assert.deepEqual(
      notPassing(r.outcome.checks).map((c) => `${c.rule} ${c.verdict}`),
      ['RL-10 fail'],
      verdictLines(r.outcome),
    );
  },
);
