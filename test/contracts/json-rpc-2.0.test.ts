// The native checks (RPC-01..12) against a real JSON-RPC 2.0 server from npm, `json-rpc-2.0`,
// run the way a user runs them (`npm start -- --target <file> --only native`): the library as it
// ships gets no fail (a false fail on a conformant server is the worst defect), and the same
// library behind HTTP glue with known non-conformances gets fail on exactly the rules they break.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ResultsFile } from '../../src/results.js';
import type { TargetFile } from '../../src/types/generated/target.js';
import { runCli } from '../safety/support/cli.js';
import { startJsonRpc20, type JsonRpc20Glue } from './support/json-rpc-2.0-server.js';

const API_KEY = 'jsonrpc20-test-key-5f1c9a';
const NATIVE = {
  protocol: 'chain-a',
  networks: ['mainnet', 'sepolia'] as [string, ...string[]],
  blockNumberMethod: 'eth_blockNumber',
};

type Verdicts = ResultsFile['rules'];
interface NativeRun {
  results: ResultsFile;
  code: number | null;
  /** The RPC rules' roll-up, e.g. { 'RPC-01': 'pass', ... }. */
  rpc: Verdicts;
  /** Every check of a rule, as `verdict: message`. */
  lines: (rule: string) => string[];
}

/** Starts the library's server (with `glue`), writes a target file with only its api section, runs `--only native`. */
async function runNative(t: { diagnostic: (m: string) => void }, glue?: JsonRpc20Glue): Promise<NativeRun> {
  const server = await startJsonRpc20({ apiKey: API_KEY, ...NATIVE, glue });
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-json-rpc-2.0-'));
  try {
    const target: TargetFile = {
      name: glue ? 'json-rpc-2.0 behind faulty glue' : 'json-rpc-2.0',
      api: { baseUrl: server.baseUrl, apiKey: API_KEY, native: { ...NATIVE, optionalNetworks: ['ropsten'] } },
      limits: { maxRequests: 200, maxSeconds: 60, timeoutMs: 5000 },
    };
    const file = join(dir, 'target.json');
    writeFileSync(file, JSON.stringify(target));
    const out = join(dir, 'out');
    const run = await runCli(['--target', file, '--only', 'native', '--out', out]);
    const resultsText = readFileSync(join(out, 'results.json'), 'utf8');
    assert.ok(!resultsText.includes(API_KEY), 'the API key appears in results.json');
    const results = JSON.parse(resultsText) as ResultsFile;
    t.diagnostic(
      `${target.name}: exit ${run.code} in ${Math.round(run.wallMs)} ms, ${server.received()} requests received`,
    );
    const rpc = Object.fromEntries(Object.entries(results.rules).filter(([id]) => id.startsWith('RPC-')));
    const lines = (rule: string) =>
      results.checks.filter((c) => c.rule === rule).map((c) => `${c.verdict}: ${c.message}`);
    return { results, code: run.code, rpc, lines };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The two runs wait mostly on process start-up (tsx, Playwright), so they run side by side.
describe('the test server: an API-key gate in front of the library', () => {
  it('admits the key as Bearer or X-API-Key; anything else gets 401 and no body', async () => {
    const server = await startJsonRpc20({ apiKey: API_KEY, ...NATIVE });
    try {
      const call = async (headers: Record<string, string>) => {
        const res = await fetch(`${server.baseUrl}/chain-a/mainnet/native`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
        });
        return `${res.status} ${(await res.text()).replace(/"0x[0-9a-f]+"/, '"0x…"')}`;
      };
      const ok = '200 {"jsonrpc":"2.0","id":1,"result":"0x…"}';
      assert.equal(await call({ Authorization: `Bearer ${API_KEY}` }), ok);
      assert.equal(await call({ 'X-API-Key': API_KEY }), ok);
      const refused: Record<string, string>[] = [
        {},
        { Authorization: 'Bearer wrong' },
        { 'X-API-Key': 'wrong' },
        { Authorization: API_KEY },
      ];
      for (const h of refused) assert.equal(await call(h), '401 ', JSON.stringify(h));
    } finally {
      await server.close();
    }
  });
});

describe(
  'native checks against json-rpc-2.0 (npm) behind node:http with an API-key gate',
  { concurrency: true },
  () => {
    it('the library as it ships: no fail, and each standard rule judged as it answers', async (t) => {
      const run = await runNative(t);
      const failed = run.results.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error');
      assert.deepEqual(
        failed.map((c) => `${c.verdict} ${c.rule} ${c.id}: ${c.message}`),
        [],
      );
      assert.equal(run.code, 0);
      assert.deepEqual(run.rpc, {
        'RPC-01': 'pass',
        'RPC-02': 'pass',
        'RPC-03': 'pass',
        'RPC-04': 'pass',
        'RPC-05': 'pass',
        'RPC-06': 'pass',
        'RPC-07': 'pass',
        'RPC-08': 'observed',
        'RPC-09': 'pass',
        'RPC-10': 'pass',
        'RPC-11': 'pass',
        'RPC-12': 'pass',
      });
      // ropsten is optional and not served (404 from the gate): observed beside the two that answer.
      assert.deepEqual(
        run.lines('RPC-03').map((l) => l.split(':')[0]),
        ['pass', 'pass', 'observed'],
      );
      // What the library does where the standard leaves room, as the suite words it.
      assert.deepEqual(run.lines('RPC-09'), [
        'pass: no Response object (204, empty body)',
        'pass: no Response object (204, empty body)',
        // The library unwraps a batch left with one answer: RPC-08's to observe, no notification's answer.
        "pass: batch of 1 request(s) and 1 notification(s): one Response object, the request's (200), though not in an array (RPC-08)",
        'pass: batch of 2 notifications: nothing came back (204, empty body)',
      ]);
      assert.deepEqual(run.lines('RPC-08'), [
        'observed: batch of 2 valid requests: 200, an array of 2 answer(s) (2 result(s)), ids 81, 82 in request order',
        'observed: batch of 10 valid requests: 200, an array of 10 answer(s) (10 result(s)), ' +
          'ids 101, 102, 103, 104, 105, 106, 107, 108, 109, 110 in request order',
      ]);
      assert.deepEqual(run.lines('RPC-10'), ['pass: empty batch: one error -32600 with id null (200)']);
      assert.deepEqual(run.lines('RPC-11'), ['pass: one error -32600 with id null per element (2, 200)']);
    });

    it('the same library behind glue that answers notifications with {} and splits batches itself: fail on RPC-09, RPC-10 and RPC-12 only', async (t) => {
      const run = await runNative(t, { notificationBody: '{}', splitBatches: true });
      assert.equal(run.code, 1);
      const failing = Object.entries(run.rpc)
        .filter(([, v]) => v === 'fail')
        .map(([id]) => id);
      assert.deepEqual(failing, ['RPC-09', 'RPC-10', 'RPC-12']);
      // Inside a batch the library drops the notification itself; the glue's {} meets only a batch of notifications.
      assert.deepEqual(run.lines('RPC-09'), [
        'fail: replied to a notification with {} (200)',
        'fail: replied to a notification with {} (200)',
        'pass: batch of 1 request(s) and 1 notification(s): Response objects for the requests only (200, an array of 1)',
        'fail: batch of 2 notifications: answered [] (200), where nothing at all belongs',
      ]);
      assert.deepEqual(run.lines('RPC-10'), ['fail: answered [] to an empty batch (200)']);
      // `{}` is also a malformed Response object; every other answer stays well formed.
      assert.deepEqual(
        run.lines('RPC-12').filter((l) => l.startsWith('fail')),
        ['fail: response without jsonrpc (+2 more)', 'fail: response without jsonrpc (+2 more)'],
      );
      // Splitting batches changes nothing else: [1,2] still gets one -32600 per element.
      assert.deepEqual(run.lines('RPC-11'), ['pass: one error -32600 with id null per element (2, 200)']);
    });
  },
);
