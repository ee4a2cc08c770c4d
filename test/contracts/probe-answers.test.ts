// The horizon node's contract calls judged on the rate-limit probes' answers (contracts/probe-answers.ts
// and Session.answers): only the very request a probe sent is answered by it, once; anything that
// differs (another form, a near-miss token, a header, a query, a body, another path) is sent as before.
// The probes keep only complete answers that are data or an auth refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { probeAnswered } from '../../contracts/probe-answers.js';
import type { CallSpec } from '../../contracts/api.js';
import type { ProbeAnswer } from '../../src/stages.js';
import type { Exchange } from '../../src/record/recorder.js';
import { Session } from '../../load/session.js';
import type { Engine, EngineResponse, ProbeMethod, SendOptions } from '../../load/engine/types.js';
import { tokenForm, extraParam, PLAIN_FORM } from '../../load/variations.js';
import { k6Config, K6_ENV } from '../../load/k6/config.js';
import { runK6Probes } from '../../load/k6/run.js';
import { FakeK6 } from '../load/k6-double.js';
import { SimHorizon } from '../load/sim-horizon.js';
import type { IntegrityRow } from '../../load/checks/integrity.js';
import { seededRandom } from '../../src/random.js';
import { FEE_STATS_HEADERS } from '../../src/service/fee-stats.js';

const HORIZON = { endpoint: 'http://127.0.0.1:9/node/', token: 'tok-123456' };
const URL_OF = 'http://127.0.0.1:9/node/fee_stats';

const exchange = (purpose: string): Exchange => ({
  seq: 1,
  purpose,
  method: 'GET',
  url: `${URL_OF}?auth=[redacted]`,
  requestHeaders: {},
  responseHeaders: {},
  sentAt: 0,
});

const answer = (method: 'GET' | 'HEAD', form: string, status = 200): ProbeAnswer => ({
  method,
  form,
  status,
  headers: { 'content-type': 'application/json' },
  body: method === 'HEAD' ? '' : '{"last_ledger":"1"}',
  bytes: method === 'HEAD' ? 0 : 19,
  exchange: exchange(`drain: ${method} ${form}`),
});

const call = (over: Partial<CallSpec> = {}): CallSpec => ({
  purpose: 'node.feeStats[auth-query]',
  method: 'GET',
  url: URL_OF,
  headers: { ...FEE_STATS_HEADERS },
  auth: { form: 'auth-query', secret: HORIZON.token },
  ...over,
});

test('a probe answer serves the same request once, and nothing else', () => {
  const answered = probeAnswered(
    [answer('GET', 'auth-query'), answer('HEAD', 'auth-query'), answer('GET', 'bearer', 401)],
    HORIZON,
  );
  const rows: [string, CallSpec, 'probe' | 'send'][] = [
    ['another path', call({ url: 'http://127.0.0.1:9/node/ledgers' }), 'send'],
    ['a query besides the token', call({ url: `${URL_OF}?x=1` }), 'send'],
    ['a near miss of the token', call({ auth: { form: 'auth-query', secret: 'tok-12345' } }), 'send'],
    ['the token twice', call({ auth: { form: 'auth-query', secret: [HORIZON.token, HORIZON.token] } }), 'send'],
    ['no token', call({ auth: undefined }), 'send'],
    ['a header besides it', call({ headers: { ...FEE_STATS_HEADERS, 'x-extra': '1' } }), 'send'],
    ['no Accept header', call({ headers: {} }), 'send'],
    ['Accept in another case', call({ headers: { Accept: 'application/json' } }), 'probe'],
    ['a POST', call({ method: 'POST', body: '{}' }), 'send'],
    ['a form no probe sent', call({ auth: { form: 'x-auth-token', secret: HORIZON.token } }), 'send'],
    ['the plain GET again: each answer serves once', call(), 'send'],
    ['the HEAD', call({ method: 'HEAD' }), 'probe'],
    ['the bearer form (refused)', call({ auth: { form: 'bearer', secret: HORIZON.token } }), 'probe'],
  ];
  for (const [what, spec, expected] of rows) {
    const got = answered(spec);
    assert.equal(got ? 'probe' : 'send', expected, what);
  }
});

test("the call result is the probe's answer: status, body parsed, its recorded exchange", () => {
  const a = answer('GET', 'bearer', 401);
  const got = probeAnswered([answer('GET', 'auth-query'), a], HORIZON);
  const ok = got(call())!;
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.json, { last_ledger: '1' });
  assert.equal(ok.exchange.purpose, 'drain: GET auth-query');
  const refused = got(call({ auth: { form: 'bearer', secret: HORIZON.token } }))!;
  assert.equal(refused.ok, false);
  assert.equal(refused.status, 401);
  assert.equal(refused.exchange, a.exchange);
});

/** An engine that answers each request from a list, in order. */
function cannedEngine(replies: Partial<EngineResponse>[]): Engine {
  let t = 0;
  return {
    name: 'canned',
    epochMs: 0,
    now: () => t,
    sleepUntil: async (at) => void (t = Math.max(t, at)),
    send: async (method: ProbeMethod, _at?: number, _gap?: number, opts?: SendOptions) => {
      const r = replies.shift()!;
      t += 60;
      return {
        sentAt: t - 1,
        receivedAt: t,
        headers: {},
        request: { method, url: `${URL_OF}?auth=${HORIZON.token}`, headers: opts?.variation?.form ? { x: '1' } : {} },
        ...r,
      };
    },
    pacing: () => ({ count: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 }),
    close: async () => undefined,
  };
}

test('the probes keep the first complete data or auth-refusal answer per method and token form', async () => {
  const body = '{"last_ledger":"1"}';
  const session = new Session({
    engine: cannedEngine([
      { status: 429, body: '' }, // not "for what it is": never kept
      { status: 200, body, bodyBytes: body.length },
      { status: 200, body: '{"other":1}', bodyBytes: 11 }, // the second of its kind
      { status: 200, body: '{"cut', bodyBytes: 5000 }, // cut at the engine's cap
      { status: 401, body: '{"error":"no"}', bodyBytes: 14 },
      { status: 200, body, bodyBytes: body.length }, // a query parameter varied: not the contract's request
      { status: undefined, error: 'UND_ERR_SOCKET', body: '' },
      { status: 200, bodyBytes: 0 },
    ]),
    budget: { take: () => undefined, fits: () => true, shortfall: () => undefined, msLeft: () => 60_000 },
    record: (x) => ({ ...x, seq: 0, requestHeaders: {}, responseHeaders: {} }) as Exchange,
    aborted: () => false,
    progress: () => undefined,
  });
  const rnd = seededRandom(1);
  await session.send('GET', 'a');
  await session.send('GET', 'b');
  await session.send('GET', 'c');
  await session.send('GET', 'd', undefined, tokenForm('x-auth-token'));
  await session.send('GET', 'e', undefined, tokenForm('bearer'));
  await session.send('GET', 'f', undefined, extraParam(rnd));
  await session.send('HEAD', 'g');
  await session.send('HEAD', 'h');
  assert.deepEqual(
    [...session.answers.values()].map((a) => `${a.method} ${a.form} ${a.status} ${a.body}`),
    [`GET auth-query 200 ${body}`, 'GET bearer 401 {"error":"no"}', 'HEAD auth-query 200 '],
  );
});

test('a run of the probes answers fee_stats in every token form with data while quota is left, so no contract call waits for quota after them', async () => {
  const token = 'lead-in-token-5a4b3c2d1e';
  const sim = new SimHorizon({ hourlyLimit: 3600, burst: 100, perSecondCap: 20 });
  const env = { [K6_ENV.endpoint]: 'http://127.0.0.1:9', [K6_ENV.token]: token };
  const { outcome } = await runK6Probes(new FakeK6(sim, token), k6Config(env));
  const got = (outcome.answers ?? []).map((a) => `${a.method} ${a.form} ${a.status}`).sort();
  assert.deepEqual(got, ['GET auth-query 200', 'GET bearer 200', 'GET x-auth-token 200', 'HEAD auth-query 200']);
  // The header forms went first in the drain's lead-in, in place of plain requests, and RL-14 shows them there.
  for (const a of outcome.answers!.filter((x) => x.form !== PLAIN_FORM))
    assert.match(a.exchange.purpose ?? '', /before the burst: the token as/, a.form);
  const rows = (outcome.limiter!.integrity as IntegrityRow[]).filter((r) => r.when === 'quota left');
  assert.deepEqual(rows.map((r) => `${r.id} ${r.verdict}`).sort(), ['form:bearer pass', 'form:x-auth-token pass']);
});
