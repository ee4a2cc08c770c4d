// The auth surface table reads the checks' authProbe evidence: one cell per (row, form), the
// right credential's answer, the wrong ones' refusals, and failing cells linked to their evidence.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authSurface, authSurfaceSection } from '../../reports/auth-surface.js';
import { AUTH_PROBE_FIELD, authRequestCount, type AuthProbe } from '../../src/auth/surface.js';
import { Recorder } from '../../src/record/recorder.js';
import { Redactor } from '../../src/record/redact.js';
import { buildResults } from '../../src/results.js';
import type { CheckResult } from '../../src/verdict.js';

const KEY = 'ref-new-key-7f3a9c2e41d84b6f';
const SEED = 1234;
const recorder = new Recorder(new Redactor([KEY], SEED));

function probeCheck(
  p: AuthProbe,
  verdict: CheckResult['verdict'],
  url = 'http://127.0.0.1:1/universal/v1/p/n/sync/block_number',
): CheckResult {
  const exchange = recorder.record({
    method: 'GET',
    url,
    requestHeaders: { Authorization: `Bearer ${KEY.toUpperCase()}` },
    status: p.data ? 200 : 403,
    responseBody: p.data ? '{"block_number":7}' : '{"error":"no"}',
    sentAt: 0,
    receivedAt: 1,
  });
  return {
    id: `auth.x[${p.probe}:${p.form}]`,
    rule: p.probe === 'empty' ? 'AUTH-07' : 'AUTH-08',
    verdict,
    message: `${p.probe} ${p.form}`,
    evidence: { exchanges: [exchange], [AUTH_PROBE_FIELD]: p },
  };
}

const row = 'universal[p/n] @ base URL';
const checks: CheckResult[] = [
  probeCheck({ row, form: 'bearer', probe: 'right', documented: true, data: true }, 'pass'),
  probeCheck({ row, form: 'bearer', probe: 'case-changed', expect: 'refuse', data: true }, 'fail'),
  probeCheck({ row, form: 'bearer', probe: 'empty', expect: 'refuse', data: false }, 'pass'),
  probeCheck({ row, form: 'apikey-query', probe: 'right', documented: false, data: true }, 'observed'),
  probeCheck({ row, form: 'apikey-query', probe: 'whitespace', expect: 'observe', data: true }, 'observed'),
  probeCheck({ row, form: 'none', probe: 'none', expect: 'refuse', data: false }, 'pass'),
  probeCheck(
    { row: 'blockRest block by height', form: 'auth-query', probe: 'right', documented: true, data: false },
    'fail',
  ),
  probeCheck({ row: 'chainB WebSocket', form: 'ws-bearer', probe: 'right', documented: false, data: true }, 'observed'),
  probeCheck({ row: 'chainB gRPC', form: 'grpc-metadata', probe: 'right', documented: true, data: true }, 'pass'),
  { id: 'other', rule: 'NFT-01', verdict: 'pass', message: 'not an auth check', evidence: {} },
];

test('cells: right credential documented/observed, wrong ones refused or not, request count', () => {
  const s = authSurface(checks);
  assert.equal(s.requests, 9);
  assert.equal(authRequestCount(checks), 9);
  assert.deepEqual(s.rows, [row, 'blockRest block by height', 'chainB WebSocket', 'chainB gRPC']);
  assert.deepEqual(
    authSurface([...checks].reverse()).rows.slice(0, 2),
    s.rows.slice(0, 2),
    'rows follow the description, not the order the checks finished in',
  );
  // WebSocket headers and gRPC metadata share the columns of the HTTP forms of the same name.
  assert.deepEqual(s.columns, ['none', 'bearer', 'apikey-query', 'x-auth-token', 'auth-query']);
  assert.equal(s.cells.get('chainB WebSocket')!.get('bearer')!.right?.form, 'ws-bearer');
  assert.equal(s.cells.get('chainB gRPC')!.get('x-auth-token')!.right?.form, 'grpc-metadata');
  const bearer = s.cells.get(row)!.get('bearer')!;
  assert.equal(bearer.right?.documented, true);
  assert.equal(bearer.wrong.length, 2);
});

test('the section: a failing cell links to the redacted evidence with a curl line; no credential value anywhere', () => {
  const results = buildResults({
    target: 't',
    startedAt: new Date(0),
    finishedAt: new Date(1),
    checks,
    limiter: null,
    extra: { seed: SEED },
  });
  const html = authSurfaceSection(results);
  assert.match(html, /data-auth-requests="9"/);
  // Cells name a wrong credential in plain words, never by its internal kind.
  assert.doesNotMatch(html, />case-changed</);
  assert.match(html, />letter case changed</);
  assert.match(html, /--seed 1234/);
  const failing = /<td class="as-fail" data-auth-cell="bearer"[^>]*>(.*?)<\/td>/.exec(html);
  assert.ok(failing, 'the Bearer cell fails');
  assert.match(failing[1]!, /accepted \(documented\)/);
  assert.match(failing[1]!, /1 of 2 wrong credential\(s\) got data/);
  const anchor = /href="#(auth-ev-\d+)"/.exec(failing[1]!)![1]!;
  const evidence = new RegExp(`<div class="auth-evidence" id="${anchor}"[\\s\\S]*?</div>`).exec(html)![0];
  assert.match(evidence, /curl -sS -i -H &quot;Authorization: Bearer \$CHAINPROBE_CREDENTIAL&quot;/);
  assert.match(evidence, /status 200/);
  assert.match(evidence, /block_number/);
  assert.match(
    html,
    /data-auth-cell="apikey-query" data-auth-state="ok" data-label="apiKey=">accepted \(observed\)<br><span class="muted">open, got data: surrounded by whitespace/,
  );
  assert.match(
    html,
    /data-auth-cell="auth-query" data-auth-state="refused" data-label="auth=">refused with the right credential/,
  );
  assert.ok(!html.includes(KEY) && !html.includes(KEY.toUpperCase()), 'a credential value in the section');
  assert.equal(
    authSurfaceSection(
      buildResults({
        target: 't',
        startedAt: new Date(0),
        finishedAt: new Date(1),
        checks: checks.slice(-1),
        limiter: null,
      }),
    ),
    '',
  );
});
