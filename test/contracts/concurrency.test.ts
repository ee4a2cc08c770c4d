// limits.concurrency bounds the contract requests in flight at once to one host over the whole run
// in the command's one process, and independent requests do go out together up to it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Exchange } from '../../src/record/recorder.js';
import { runAgainstReference } from './harness.js';

/** The most exchanges in flight at once per host, from their recorded send and answer times. */
function mostInFlight(exchanges: readonly Exchange[]): Map<string, number> {
  const byHost = new Map<string, [number, number][]>();
  for (const x of exchanges) {
    if (x.receivedAt === undefined) continue;
    const host = new URL(x.url).host;
    byHost.set(host, [...(byHost.get(host) ?? []), [x.sentAt, +1], [x.receivedAt, -1]]);
  }
  const out = new Map<string, number>();
  for (const [host, edges] of byHost) {
    // An answer and a send in the same millisecond: the answer first (the slot was free again).
    edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let most = 0;
    for (const [, d] of edges) most = Math.max(most, (now += d));
    out.set(host, most);
  }
  return out;
}

test('limits.concurrency 4: at most 4 auth requests in flight to the API host, and more than one', async () => {
  const run = await runAgainstReference({
    reference: { latency: { baseMs: 30, jitterMs: 0 } },
    only: 'AUTH-01,AUTH-07,AUTH-08,UNI-01,NFT-01',
    edit: (t) => ({ ...t, limits: { ...t.limits, concurrency: 4 } }),
  });
  const seen = new Map<string, Exchange>();
  for (const c of run.checks) for (const x of c.evidence?.exchanges ?? []) seen.set(`${x.seq}:${x.sentAt}:${x.url}`, x);
  const most = mostInFlight([...seen.values()]);
  const api = new URL(run.target.api!.baseUrl!).host;
  assert.ok((most.get(api) ?? 0) <= 4, `${most.get(api)} requests in flight to the API host`);
  assert.ok((most.get(api) ?? 0) >= 2, 'independent requests go out together');
  assert.deepEqual(
    run.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => c.id),
    [],
  );
});
