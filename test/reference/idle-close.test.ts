// The variant http-idle-close: every HTTP server of the reference closes a keep-alive connection
// once it has been idle a while (300 ms), and no answer carries a Keep-Alive hint saying when. By
// default the servers keep it for seconds and say so (`Keep-Alive: timeout=5`, 30 on the horizon node).
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { test } from 'node:test';
import { IDLE_CLOSE_VARIANT } from '../../reference/http/kit.js';
import { startReference } from '../../reference/start.js';

/** One GET on a keep-alive connection: the Keep-Alive header, and whether the server closed the connection within `waitMs`. */
async function idleAfterOne(url: string, waitMs: number): Promise<{ keepAlive: string; closed: boolean }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await new Promise((resolve, reject) => {
      const req = request(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          const keepAlive = String(res.headers['keep-alive'] ?? 'none');
          const timer = setTimeout(() => resolve({ keepAlive, closed: false }), waitMs);
          req.socket?.once('close', () => {
            clearTimeout(timer);
            resolve({ keepAlive, closed: true });
          });
        });
      });
      req.on('error', reject);
      req.end();
    });
  } finally {
    agent.destroy();
  }
}

// The wait for the close is long (a loaded machine is slower, the test ends at the close); the
// default case waits a second of its 5 s or more.
for (const [name, variants, hint, closed, waitMs] of [
  ['http-idle-close: no hint, the idle connection is closed', [IDLE_CLOSE_VARIANT], /^none$/, true, 10_000],
  ['default: a Keep-Alive hint of seconds, still open a second later', [], /^timeout=\d+$/, false, 1_000],
] as const) {
  test(name, async () => {
    const ref = await startReference({ variants: new Set(variants) });
    try {
      const { apiKey, baseUrl } = ref.target.api!;
      const horizon = ref.target.nodes.horizon;
      for (const url of [
        `${baseUrl}/universal/v1/chain-a/mainnet/sync/block_number?apiKey=${apiKey}`,
        `${horizon.endpoint}/fee_stats?auth=${horizon.token}`,
      ]) {
        const seen = await idleAfterOne(url, waitMs);
        assert.match(seen.keepAlive, hint, url.replace(/\?.*/, ''));
        assert.equal(seen.closed, closed, url.replace(/\?.*/, ''));
      }
    } finally {
      await ref.close();
    }
  });
}
