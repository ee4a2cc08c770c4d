// The contract checks of the rate-limited horizon node keep one cap interval between its requests
// on the wire (a proxy may enforce the per-second cap as a spacing), however busy the event loop
// that sends them: here it also runs the embedded reference and every other family's plan. The
// moments are those undici writes each request's head to its connection (its diagnostics channel,
// in the same call as the write), so a loaded machine can only widen the gaps, never narrow them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { spacedGapMs } from '../../src/pacing.js';
import { runAgainstReference } from './harness.js';

const CHANNEL = 'undici:client:sendHeaders';

test('a whole contract run: the horizon node gets its requests one cap interval apart', async () => {
  const heads: { origin: string; at: number }[] = [];
  const onHead = (message: unknown) =>
    heads.push({ origin: String((message as { request: { origin: string } }).request.origin), at: performance.now() });
  subscribe(CHANNEL, onHead);
  let horizon = '';
  let cap = 0;
  try {
    await runAgainstReference({
      only: 'contracts',
      edit: (t) => {
        horizon = new URL(t.nodes.horizon!.endpoint).origin;
        cap = t.nodes.horizon!.perSecondCap;
        return t;
      },
    });
  } finally {
    unsubscribe(CHANNEL, onHead);
  }
  const mine = heads.filter((h) => h.origin === horizon).map((h) => h.at);
  const gaps = mine.slice(1).map((t, i) => t - mine[i]!);
  assert.ok(mine.length >= 10, `${mine.length} requests to the horizon node`);
  // The pacing waits spacedGapMs after a head; its clock and the one here read a few µs apart.
  const least = spacedGapMs(cap) - 1;
  assert.ok(
    gaps.every((g) => g >= least),
    `gaps (ms) between the horizon node's requests: ${gaps.map((g) => g.toFixed(1)).join(' ')}; least allowed ${least.toFixed(1)}`,
  );
});
