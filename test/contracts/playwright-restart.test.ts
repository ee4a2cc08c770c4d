// Playwright starts a new worker after every failing test, and its worker fixtures start from
// nothing. The Playwright host's workers share the run's folder (contracts/playwright/run-folder.ts):
// a family's plan goes once in the run, and a new worker starts its share of limits.maxRequests
// where its slot's earlier workers left it. Shown here with two hosts in one process, counted by the
// reference's own servers. And the share itself: every worker of every shard takes one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerHost, workerSlot, type HostSettings } from '../../contracts/playwright/host.js';
import { newRunFolder } from '../../contracts/playwright/run-folder.js';
import { startReference, type RunningReference } from '../../reference/start.js';
import { parseSelectors } from '../../src/select.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { withSlowMachineTimeout } from '../support/backstops.js';

let ref: RunningReference;
before(async () => {
  ref = await startReference({ faults: new Set(['universal-goes-backwards']) });
});
after(() => ref?.close());

/** A worker's host as Playwright's fixture makes it: `worker` is its workerIndex, slot 0 (one worker). */
async function inWorker<T>(settings: HostSettings, worker: number, fn: (host: WorkerHost) => Promise<T>): Promise<T> {
  const host = new WorkerHost(settings, { workers: 1, slot: 0, worker });
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

test("a worker after a failing test neither sends its family again nor spends the earlier workers' budget again", async () => {
  const folder = newRunFolder();
  try {
    const target = withSlowMachineTimeout(resolveTarget(ref.target, {}));
    const settings: HostSettings = {
      target,
      selection: parseSelectors('universal,nft'),
      seed: 7,
      startedAt: Date.now(),
      runDir: folder.dir,
    };
    const served = () => ref.options.counters.total();
    const first = await inWorker(settings, 0, (h) => h.checksOf('UNI-02'));
    assert.ok(
      first.some((c) => c.verdict === 'fail'),
      'the fault fails UNI-02: Playwright would start a new worker',
    );
    const spent = served();
    assert.ok(spent > 0);

    // The next worker: UNI-01 is judged over the same send, and nothing reaches the servers.
    const uni01 = await inWorker(settings, 1, (h) => h.checksOf('UNI-01'));
    assert.ok(uni01.length > 0 && uni01.every((c) => c.verdict === 'pass'), JSON.stringify(uni01));
    assert.equal(served(), spent, 'the universal plan was not sent again');
    assert.deepEqual(
      await inWorker(settings, 2, (h) => h.checksOf('UNI-02')),
      JSON.parse(JSON.stringify(first)),
      'the same checks, as JSON (what a reporter gets), from the run folder',
    );

    // A budget of what the first worker spent and 3 more: the worker after it has 3 requests left.
    const tight = { ...settings, target: { ...target, limits: { ...target.limits, maxRequests: spent + 3 } } };
    const nft = await inWorker(tight, 3, (h) => h.checksOf('NFT-09'));
    assert.ok(served() - spent <= 3, `${served() - spent} requests after the first worker's ${spent}`);
    assert.ok(
      nft.some((c) => c.verdict === 'error' && /maxRequests/.test(c.message)),
      nft.map((c) => `${c.verdict} ${c.message}`).join('; '),
    );
  } finally {
    folder.remove();
  }
});

test("a worker's share of the target's limits: one of every worker of every shard (shards run at once)", () => {
  const info = (workers: number, shard: { total: number; current: number } | null) => ({
    config: { workers, shard },
    parallelIndex: 1,
    workerIndex: 5,
  });
  assert.deepEqual(workerSlot(info(2, null)), { workers: 2, slot: 1, worker: 5 });
  assert.deepEqual(workerSlot(info(2, { total: 4, current: 3 })), { workers: 8, slot: 1, worker: 5 });
  assert.deepEqual(workerSlot(info(1, { total: 1, current: 1 })), { workers: 1, slot: 1, worker: 5 });
});
