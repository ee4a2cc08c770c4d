// --har: the run's exchanges as HAR 1.2, valid against the HAR 1.2 JSON Schemas of the `har-schema`
// package, built from recorded (redacted) exchanges only. A table of recorded exchanges checks the
// mapping; a short run against the embedded reference checks what a run writes, and that no
// credential value of the target appears in it (the full run is scanned by test/safety/canary.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildHar, type HarExchange } from '../../reports/har.js';
import { BODY_EXCERPT_CHARS, Recorder } from '../../src/record/recorder.js';
import { REDACTED_SUFFIX, Redactor } from '../../src/record/redact.js';
import { startReference } from '../../reference/start.js';
import { resolveTarget, secretsOf } from '../../src/target-file/load.js';
import { parseSelectors } from '../../src/select.js';
import { runChainprobe } from '../../run/pipeline.js';
import { harProblems } from './support/har-schema.js';

type Json = Record<string, any>;

const SECRET = 'har-test-secret-0123456789';

function recorded(): HarExchange[] {
  const rec = new Recorder(new Redactor([SECRET]));
  const t = Date.parse('2026-01-01T00:00:00.000Z');
  const xs = [
    rec.record({
      method: 'get',
      url: `http://127.0.0.1:8080/nft/v1/a/b/asset?contract_address=0x1&token_id=7&apiKey=${SECRET}`,
      requestHeaders: { Authorization: `Bearer ${SECRET}` },
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: '{"asset":{}}',
      sentAt: t,
      receivedAt: t + 12.5,
      purpose: 'nft.asset[bearer]',
    }),
    rec.record({
      method: 'POST',
      url: 'http://127.0.0.1:8080/a/b/native',
      requestHeaders: { 'Content-Type': 'application/json' },
      requestBody: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
      status: 200,
      responseHeaders: {},
      responseBody: 'x'.repeat(BODY_EXCERPT_CHARS + 10),
      sentAt: t + 20,
      receivedAt: t + 25,
    }),
    rec.record({
      method: 'HEAD',
      url: 'http://127.0.0.1:9/fee_stats?auth=zzzzzzzzzzzz',
      sentAt: t + 5,
      error: 'connect ECONNREFUSED',
    }),
    rec.record({
      method: 'GRPC',
      url: 'grpc://127.0.0.1:9090/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      requestHeaders: { 'x-auth-token': SECRET },
      responseHeaders: { 'grpc-status': '0' },
      sentAt: t + 30,
      receivedAt: t + 31,
    }),
  ];
  return xs.map((x, i) => ({ ...x, stage: i === 2 ? 'probes' : 'contracts' }));
}

test('recorded exchanges become a valid HAR 1.2: requests, responses, bodies, errors, pages, oldest first', () => {
  const har = buildHar(recorded()) as Json;
  assert.deepEqual(harProblems(har), []);
  const { log } = har;
  assert.equal(log.version, '1.2');
  assert.deepEqual(
    log.pages.map((p: Json) => p.id),
    ['contracts', 'probes'],
  );
  assert.deepEqual(
    log.entries.map((e: Json) => [e.request.method, e.pageref, e.response.status]),
    [
      ['GET', 'contracts', 200],
      ['HEAD', 'probes', 0],
      ['POST', 'contracts', 200],
      ['GRPC', 'contracts', 0],
    ],
  );
  const [asset, failed, post, grpc] = log.entries as [Json, Json, Json, Json];
  assert.equal(asset.time, 12.5);
  assert.equal(asset.comment, 'nft.asset[bearer]');
  assert.deepEqual(
    asset.request.queryString.map((q: Json) => q.name),
    ['contract_address', 'token_id', 'apiKey'],
  );
  assert.ok(asset.request.queryString[2].value.endsWith(REDACTED_SUFFIX));
  assert.ok(asset.request.url.endsWith(encodeURIComponent(REDACTED_SUFFIX)), asset.request.url);
  assert.deepEqual(asset.response.content, { size: 12, mimeType: 'application/json', text: '{"asset":{}}' });
  assert.equal(failed._chainprobe.error, 'connect ECONNREFUSED');
  assert.equal(failed.response.content.mimeType, 'x-unknown');
  assert.equal(post.request.postData.mimeType, 'application/json');
  assert.equal(post.response.content.size, BODY_EXCERPT_CHARS + 10);
  assert.match(post.response.content.comment, /cut/);
  assert.equal(grpc.request.httpVersion, 'HTTP/2');
  // The secret went through the recorder's redactor: nowhere in the HAR.
  assert.ok(!JSON.stringify(har).includes(SECRET.slice(4)));
});

test('the HAR schema is not a rubber stamp: a broken entry is refused', () => {
  const har = buildHar(recorded()) as Json;
  delete har.log.entries[0].response.status;
  har.log.entries[1].startedDateTime = 'yesterday';
  const problems = harProblems(har).join('\n');
  assert.match(problems, /entries\/0\/response: must have required property 'status'/);
  assert.match(problems, /entries\/1\/startedDateTime: must match/);
});

test('a run with --har writes a valid HAR of its contract and probe exchanges, with no credential value in it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-har-'));
  const ref = await startReference();
  try {
    const target = resolveTarget(ref.target, {});
    const file = join(dir, 'nested', 'run.har');
    const outcome = await runChainprobe({
      target,
      selection: parseSelectors('NFT-01,NODE-07,NAUTH-04,NODE-02,NODE-06,RL-02'),
      outDir: join(dir, 'out'),
      har: file,
    });
    const text = readFileSync(file, 'utf8');
    const har = JSON.parse(text) as Json;
    const entries = har.log.entries as Json[];
    t.diagnostic(
      `${entries.length} entries, ${text.length} characters; run exit ${outcome.exitCode}; ` +
        `the reference counted ${JSON.stringify(ref.options.counters.snapshot())}`,
    );
    assert.deepEqual(harProblems(har), []);
    assert.ok(outcome.files.includes(file));
    // One page per stage, in the order their first requests went (side by side, the probes' may go first).
    assert.deepEqual(har.log.pages.map((p: Json) => p.id).sort(), ['contracts', 'probes']);
    const schemes = new Set(entries.map((e) => new URL(e.request.url).protocol));
    assert.deepEqual([...schemes].sort(), ['grpc:', 'http:', 'ws:']);
    const probes = entries.filter((e) => e.pageref === 'probes');
    assert.ok(probes.length > 0, 'no probe entries');
    assert.ok(probes.every((e) => e.request.url.includes('/fee_stats')));
    assert.ok(entries.some((e) => e.request.method === 'HEAD' && e.request.url.includes('/fee_stats')));
    // Every request the run sent is there once: as many entries as the reference received requests.
    assert.equal(entries.length, ref.options.counters.total());
    for (const secret of secretsOf(target)) assert.ok(!text.includes(secret), 'a credential value is in the HAR');
    assert.ok(text.includes(REDACTED_SUFFIX), 'no masked credential: were the credentials sent?');
  } finally {
    await ref.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
