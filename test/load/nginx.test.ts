// The probes against Debian's nginx in front of the reference's horizon node (test/load/nginx-front.ts).
// `limit_req` without burst is a conformant strict cap (refuses anything under 50 ms after the last
// forwarded request) in front of a node that reads the token only from `auth`, the key of its zone:
// no rule fails or errors, its refusals are RL-13. In front of a node that also takes the token in
// a header, nginx counts those requests under an empty key, which it does not limit: the cap can be
// stepped around, RL-14 fails and nothing else. `burst=19 nodelay` accepts 39 in the first second:
// RL-10 fails, which makes RL-14's cap part moot (`skipped`, saying so: there is no cap to step
// around), while its varied requests at the empty bucket are judged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nginxSkip } from '../support/nginx.js';
import { startNginxFront } from './nginx-front.js';
import { probeHorizon, verdictLines } from './reference-harness.js';
import { DEFAULT_PLAN } from '../../load/plan.js';
import { QUERY_ONLY_VARIANT } from '../../reference/nodes/horizon.js';
import { judgeSteady, timelineStallMs } from '../support/stalls.js';

const skip = nginxSkip();

/** `queryOnly`: the node reads the token only from `auth`, as nginx's zone key does. */
async function probeFront(front: 'strict' | 'nodelay', node: 'queryOnly' | 'allForms') {
  const f = await startNginxFront(node === 'queryOnly' ? { variants: new Set([QUERY_ONLY_VARIANT]) } : {});
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

const notPassing = (checks: { id: string; rule: string; verdict: string }[]) =>
  checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');

test(
  'nginx limit_req rate=20r/s without burst, keyed on auth, before a node that reads only auth: no RL rule fails or errors; ' +
    "the refusals are the proxy's (RL-13) and counted; paced sends keep its spacing",
  { skip },
  async (t) => {
    const r = await probeFront('strict', 'queryOnly');
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
    // Requests the proxy refused never reached the node: sent = served + nginx's 429s (the node's
    // carry its rate-limit headers). A request left without an answer (a stress run had one) may or
    // may not have reached it.
    const byProxy = r.outcome.timeline.filter((e) => e.status === 429 && e.limit === undefined).length;
    const unanswered = r.outcome.timeline.filter((e) => e.status === undefined).length;
    const counts =
      `sent ${l.requestsSent}, served ${r.served}, nginx's 429s ${byProxy}, ` +
      `counted as the proxy's ${String(l.proxyRefusals)}, unanswered ${unanswered}`;
    assert.ok(
      l.requestsSent >= r.served + byProxy && l.requestsSent <= r.served + byProxy + unanswered,
      `${counts}\n${lines}`,
    );
    // The probes count a headerless 429 as the proxy's only where the model says quota surely
    // remained; where timing leaves the bucket possibly empty it is "either" (a stress run counted
    // 19 and missed one request: 147 sent, 127 served). Never more than nginx refused; all of them
    // on a run held up no more than the plan's margin.
    assert.ok((l.proxyRefusals as number) <= byProxy, counts);
    judgeSteady(
      t,
      timelineStallMs(r.outcome.timeline),
      () => assert.equal(l.proxyRefusals, byProxy, counts),
      DEFAULT_PLAN.marginMs,
    );
    assert.ok((l.pacingGapMs as number) >= 50, `paced gap ${String(l.pacingGapMs)} ms`);
    const gapped = (l.pacing as { gapped?: { minGapMs: number } }).gapped;
    assert.ok(gapped && gapped.minGapMs >= 50, `least actual gap ${gapped?.minGapMs} ms`);
  },
);

test(
  'nginx limit_req without burst, keyed on auth, before a node that also takes header tokens: RL-14 fails (header requests past the cap) and nothing else',
  { skip },
  async (t) => {
    const r = await probeFront('strict', 'allForms');
    const lines = verdictLines(r.outcome);
    const cap = r.outcome.checks.find((c) => c.id === 'rl.integrity[cap]')!;
    t.diagnostic(`${cap.verdict}: ${cap.message}`);
    // The catch needs the burst sent at its pace: judged on a run the machine did not hold up. Its
    // margin is small (24-25 accepted in one second against the cap of 20 on a quiet machine, with
    // requests held up about 30 ms): an answer counts in a window only if its whole interval does,
    // and a stress run whose requests were held up 88 ms had lost all five (20 accepted).
    const CATCH_MARGIN_MS = 50;
    judgeSteady(
      t,
      timelineStallMs(r.outcome.timeline),
      () => {
        assert.deepEqual(
          notPassing(r.outcome.checks).map((c) => c.id),
          ['rl.integrity[cap]'],
          lines,
        );
        assert.equal(cap.verdict, 'fail', lines);
        assert.match(
          cap.message,
          /^\d+ requests were accepted within \d+ ms, over the cap of 20: \d+ plain and \d+ varied \(the token as /,
        );
      },
      CATCH_MARGIN_MS,
    );
    assert.deepEqual(
      r.outcome.checks.filter((c) => c.verdict === 'fail' && c.id !== 'rl.integrity[cap]').map((c) => c.id),
      [],
      lines,
    );
    // Its quota still holds: the header requests are the token's at the empty bucket.
    assert.equal(r.outcome.checks.find((c) => c.id === 'rl.integrity[bucket]')?.verdict, 'pass', lines);
  },
);

test(
  'nginx limit_req burst=19 nodelay (39 accepted in the first second): RL-10 fails; ' +
    "RL-14's cap part is skipped as moot (not an error), its varied requests at the empty bucket are judged; nothing else",
  { skip },
  async (t) => {
    const r = await probeFront('nodelay', 'allForms');
    const lines = verdictLines(r.outcome);
    judgeSteady(t, timelineStallMs(r.outcome.timeline), () => {
      assert.deepEqual(
        notPassing(r.outcome.checks).map((c) => `${c.id} ${c.verdict}`),
        ['rl.cap fail'],
        lines,
      );
      const cap = r.outcome.checks.find((c) => c.id === 'rl.integrity[cap]')!;
      assert.equal(cap.verdict, 'skipped', lines);
      assert.match(
        cap.message,
        new RegExp(
          '^skipped: \\d+ plain requests were accepted within one second: the cap does not hold for the plain ' +
            'request either \\(RL-10 fails\\), so whether varied ones step around it is moot$',
        ),
      );
      assert.equal(r.outcome.checks.find((c) => c.id === 'rl.integrity[bucket]')?.verdict, 'pass', lines);
    });
    assert.deepEqual(
      r.outcome.checks.filter((c) => c.verdict === 'fail' && c.id !== 'rl.cap').map((c) => c.id),
      [],
      lines,
    );
  },
);
