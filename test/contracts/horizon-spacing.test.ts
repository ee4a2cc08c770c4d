// The contract checks of the rate-limited horizon node keep one cap interval between its requests
// on the wire (a proxy may enforce the per-second cap as a spacing), however busy the event loop
// that sends them: here it also runs the embedded reference and every other family's plan. The
// moments are those each request's head is handed to its connection (node's sockets' writes), so
// a loaded machine can only widen the gaps, never narrow them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { spacedGapMs } from '../../src/pacing.js';
import { runAgainstReference } from './harness.js';

const REQUEST_LINE = /^(?:GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) \S+ HTTP\/1\.1\r\n/;

interface Head {
  port: () => number | undefined;
  at: number;
}

/**
 * Watches every connection's writes while it runs: when each request head left, and to which port
 * (a connection still connecting sends what it was handed once it connects). Server connections
 * write answers, which are not request heads.
 */
function watchHeads(): { heads: Head[]; stop(): void } {
  const heads: Head[] = [];
  const write = Socket.prototype.write;
  Socket.prototype.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('latin1', 0, 64) : '';
    if (REQUEST_LINE.test(text)) {
      const head: Head = { port: () => this.remotePort, at: performance.now() };
      heads.push(head);
      if (this.connecting) {
        let port: number | undefined;
        head.port = () => port;
        this.once('encrypted' in this ? 'secureConnect' : 'connect', () => {
          port = this.remotePort;
          head.at = performance.now();
        });
      } else {
        const port = this.remotePort;
        head.port = () => port;
      }
    }
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  return { heads, stop: () => void (Socket.prototype.write = write) };
}

test('a whole contract run: the horizon node gets its requests one cap interval apart', async () => {
  const watch = watchHeads();
  let horizonPort = 0;
  let cap = 0;
  try {
    await runAgainstReference({
      only: 'contracts',
      edit: (t) => {
        horizonPort = Number(new URL(t.nodes.horizon!.endpoint).port);
        cap = t.nodes.horizon!.perSecondCap;
        return t;
      },
    });
  } finally {
    watch.stop();
  }
  const mine = watch.heads
    .filter((h) => h.port() === horizonPort)
    .map((h) => h.at)
    .sort((a, b) => a - b);
  const gaps = mine.slice(1).map((t, i) => t - mine[i]!);
  assert.ok(mine.length >= 10, `${mine.length} requests to the horizon node`);
  // The pacing waits spacedGapMs after a head; its clock and the one here read a few µs apart.
  const least = spacedGapMs(cap) - 1;
  assert.ok(
    gaps.every((g) => g >= least),
    `gaps (ms) between the horizon node's requests: ${gaps.map((g) => g.toFixed(1)).join(' ')}; least allowed ${least.toFixed(1)}`,
  );
});

test("the horizon node's wrong tokens go at the cap's spacing, not one round trip after another", async () => {
  // 150 ms per answer, three cap intervals: a plan that waited for each answer would never overlap two.
  const run = await runAgainstReference({ only: 'NAUTH-07', reference: { latency: { baseMs: 150, jitterMs: 0 } } });
  const horizon = new URL(run.target.nodes.horizon!.endpoint).host;
  const sent = run.checks
    .filter((c) => c.rule === 'NAUTH-07')
    .flatMap((c) => c.evidence?.exchanges ?? [])
    .filter((x) => new URL(x.url).host === horizon && x.receivedAt !== undefined)
    .sort((a, b) => a.sentAt - b.sentAt);
  assert.ok(sent.length >= 10, `${sent.length} refusals sent to the horizon node`);
  const overlapping = sent.slice(1).filter((x, i) => x.sentAt < sent[i]!.receivedAt!).length;
  assert.ok(
    overlapping > 0,
    `no refusal left before the one before it was answered: ${sent.map((x) => `${x.sentAt}-${x.receivedAt}`).join(' ')}`,
  );
});
