// The node judges (NODE-01, NODE-07, NAUTH-01..03, NAUTH-07 on REST and WebSocket) as pure functions
// of what the plan got: a table of hand-made answers, no network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TokenUsage } from '../../src/auth/forms.js';
import type { WebSocketProbeResult } from '../../src/clients/websocket.js';
import type { CallResult } from '../../contracts/api.js';
import { NODE, type NodeAnswers } from '../../contracts/node.js';
import type { Outcome, SentRefusal } from '../../contracts/node-refusals.js';
import { restRowOf, usagesOf, type RestPath, type RestPathAnswers } from '../../contracts/node-rest.js';
import { wsRowOf, type WebSocketAnswers } from '../../contracts/node-streams.js';
import type { PlanEnv } from '../../contracts/plan.js';

let seq = 0;
function res(status: number, body: unknown = { ok: 1 }, method = 'GET'): CallResult {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status,
    headers: { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' },
    body: text,
    bytes: text.length,
    json,
    ok: status >= 200 && status < 300,
    exchange: { seq: ++seq, method, url: 'http://n/x', requestHeaders: {}, responseHeaders: {}, sentAt: 0, status },
  };
}

const got = (r: CallResult): Outcome<CallResult> => ({ reply: r });
const lost = (cause: string): Outcome<never> => ({ lost: { cause, exchanges: [] } });

/** A REST path's answers: each listed form's outcome by form (every form the table lists). */
function rest(
  path: RestPath,
  byForm: Partial<Record<TokenUsage['form'], Outcome<CallResult>>>,
  more: Partial<RestPathAnswers> = {},
): RestPathAnswers {
  return {
    path,
    row: restRowOf(path, 1),
    usages: usagesOf(path).map((usage) => ({ usage, requestId: 7, got: byForm[usage.form] ?? got(res(200)) })),
    ...more,
  };
}

const noToken = <R>(g: Outcome<R>): SentRefusal<R> => ({
  probe: { kind: 'none', label: 'no token', expect: 'refuse' },
  got: g,
});
const nearMiss = <R>(g: Outcome<R>): SentRefusal<R> => ({
  probe: {
    form: 'x-auth-token',
    values: ['tok-x'],
    kind: 'last-changed',
    label: 'the last character changed',
    expect: 'refuse',
  },
  got: g,
});

const ws = (more: Partial<WebSocketAnswers>): WebSocketAnswers => ({
  row: wsRowOf(1),
  timeoutMs: 1000,
  upgrade: { reply: { upgraded: true, status: 101, pongMs: 1, serverMessages: 1 } },
  ...more,
});
const wsRefused: WebSocketProbeResult = { upgraded: false, status: 401, serverMessages: 0 };
const wsClosed: WebSocketProbeResult = {
  upgraded: true,
  status: 101,
  serverMessages: 0,
  closedByServer: 1008,
  closedAfterMs: 5,
  graceMs: 2000,
};
const wsTalked: WebSocketProbeResult = {
  upgraded: true,
  status: 101,
  serverMessages: 1,
  firstMessage: { binary: false, afterMs: 3 },
  graceMs: 2000,
};

const env = {} as PlanEnv;
const verdicts = (rule: string, a: NodeAnswers) =>
  NODE.judges[rule]!(a, env).map((j) => `${j.verdict} ${j.id}: ${j.message}`);

const only = (...paths: RestPathAnswers[]): NodeAnswers => ({ rest: paths });

describe('node judges', () => {
  const rows: { name: string; rule: string; a: NodeAnswers; want: string[] }[] = [
    {
      name: 'block by height answers 200 JSON',
      rule: 'NODE-01',
      a: only(rest('blockRest', {})),
      want: ['pass node.blockRest.block-by-height: block by height: 200 JSON'],
    },
    {
      name: 'block by height answers 200 with a body that is not JSON',
      rule: 'NODE-01',
      a: only(rest('blockRest', { bearer: got(res(200, 'hello')) })),
      want: [
        'fail node.blockRest.block-by-height: block by height: answered 200 with a body that is not JSON (text/plain)',
      ],
    },
    {
      name: 'judged on the first documented form past auth: bearer refused, X-Auth-Token 500',
      rule: 'NODE-01',
      a: only(rest('blockRest', { bearer: got(res(401)), 'x-auth-token': got(res(500)) })),
      want: ['fail node.blockRest.block-by-height: block by height: answered 500'],
    },
    {
      name: 'every documented form refused',
      rule: 'NODE-01',
      a: only(rest('blockRest', { bearer: got(res(401)), 'x-auth-token': got(res(403)), 'auth-query': got(res(401)) })),
      want: [
        'error node.blockRest: block by height: every documented token form was refused, so the answer could not be judged',
      ],
    },
    {
      name: 'the first form could not be sent: its cause, then the next form judged',
      rule: 'NODE-01',
      a: only(rest('blockRest', { bearer: lost('timeout after 1000 ms') })),
      want: [
        'error node.blockRest[bearer]: timeout after 1000 ms',
        'pass node.blockRest.block-by-height: block by height: 200 JSON',
      ],
    },
    {
      name: 'the token as Bearer accepted',
      rule: 'NAUTH-01',
      a: only(rest('blockRest', {})),
      want: ['pass node.blockRest[bearer]: block by height, token as bearer: accepted (200)'],
    },
    {
      name: 'the token as Bearer refused',
      rule: 'NAUTH-01',
      a: only(rest('blockRest', { bearer: got(res(401)) })),
      want: ['fail node.blockRest[bearer]: block by height, token as bearer: refused with 401'],
    },
    {
      name: 'the token as Bearer could not be sent',
      rule: 'NAUTH-01',
      a: only(rest('blockRest', { bearer: lost('budget: the run reached limits.maxRequests (1)') })),
      want: ['error node.blockRest[bearer]: budget: the run reached limits.maxRequests (1)'],
    },
    {
      name: 'the token as X-Auth-Token accepted',
      rule: 'NAUTH-02',
      a: only(rest('blockRest', {})),
      want: ['pass node.blockRest[x-auth-token]: block by height, token as x-auth-token: accepted (200)'],
    },
    {
      name: 'the token as X-Auth-Token refused',
      rule: 'NAUTH-02',
      a: only(rest('blockRest', { 'x-auth-token': got(res(403)) })),
      want: ['fail node.blockRest[x-auth-token]: block by height, token as x-auth-token: refused with 403'],
    },
    {
      name: 'the token as the auth query parameter accepted',
      rule: 'NAUTH-03',
      a: only(rest('blockRest', {})),
      want: ['pass node.blockRest[auth-query]: block by height, token as auth-query: accepted (200)'],
    },
    {
      name: 'the token as the auth query parameter refused',
      rule: 'NAUTH-03',
      a: only(rest('blockRest', { 'auth-query': got(res(401)) })),
      want: ['fail node.blockRest[auth-query]: block by height, token as auth-query: refused with 401'],
    },
    {
      name: 'the auth query parameter answered 404: neither data nor a refusal',
      rule: 'NAUTH-03',
      a: only(rest('blockRest', { 'auth-query': got(res(404)) })),
      want: [
        'error node.blockRest[auth-query]: block by height, token as auth-query: answered 404, neither data nor an auth refusal',
      ],
    },
    {
      name: 'fee_stats: GET 200 JSON and HEAD 200 without a body',
      rule: 'NODE-07',
      a: only(rest('feeStats', {}, { head: got(res(200, '', 'HEAD')) })),
      want: [
        'pass node.horizon.fee_stats: fee_stats: 200 JSON',
        'pass node.feeStats[head]: HEAD fee_stats: 200, no body',
      ],
    },
    {
      name: 'fee_stats: HEAD with a body',
      rule: 'NODE-07',
      a: only(rest('feeStats', {}, { head: got(res(200, { last_ledger: '1' }, 'HEAD')) })),
      want: [
        'pass node.horizon.fee_stats: fee_stats: 200 JSON',
        'fail node.feeStats[head]: HEAD fee_stats: 200 with a 19-byte body',
      ],
    },
    {
      name: 'fee_stats: GET refused by the limiter (429), HEAD too',
      rule: 'NODE-07',
      a: only(rest('feeStats', { 'auth-query': got(res(429)) }, { head: got(res(429, '', 'HEAD')) })),
      want: [
        // The open forms (bearer, x-auth-token) are never what the path's rule is judged on.
        'error node.feeStats: fee_stats: every documented token form was refused, so the answer could not be judged',
        'error node.feeStats[head]: HEAD fee_stats: rate-limited (429) before the answer could be judged',
      ],
    },
    {
      name: 'REST: no token and a near miss refused',
      rule: 'NAUTH-07',
      a: only(rest('blockRest', {}, { refusals: [noToken(got(res(401))), nearMiss(got(res(401)))] })),
      want: [
        'pass node.blockRest[no-token]: block by height with no token: refused (401)',
        'pass node.blockRest[last-changed:x-auth-token]: block by height with the token (the last character changed) as x-auth-token: refused (401)',
      ],
    },
    {
      name: 'REST: a near miss gets data',
      rule: 'NAUTH-07',
      a: only(rest('blockRest', {}, { refusals: [noToken(got(res(401))), nearMiss(got(res(200)))] })),
      want: [
        'pass node.blockRest[no-token]: block by height with no token: refused (401)',
        'fail node.blockRest[last-changed:x-auth-token]: block by height with the token (the last character changed) as x-auth-token: answered 200, with data',
      ],
    },
    {
      name: 'WebSocket: refused at the upgrade, and closed after it without a message',
      rule: 'NAUTH-07',
      a: {
        rest: [],
        websocket: ws({ open: [], refusals: [noToken({ reply: wsRefused }), nearMiss({ reply: wsClosed })] }),
      },
      want: [
        'pass node.websocket[no-token]: WebSocket with no token: upgrade refused (401)',
        'pass node.websocket[last-changed:x-auth-token]: WebSocket with the token (the last character changed) as x-auth-token: ' +
          'upgraded, then closed by the server (code 1008) 5 ms after the upgrade without a text or binary message',
      ],
    },
    {
      name: 'WebSocket: upgraded for no token and sent a message; a form not shown observed',
      rule: 'NAUTH-07',
      a: {
        rest: [],
        websocket: ws({
          open: [{ form: 'ws-bearer', got: { reply: wsRefused } }],
          refusals: [noToken({ reply: wsTalked })],
        }),
      },
      want: [
        'observed node.websocket[ws-bearer]: WebSocket, the token as ws-bearer (a form not shown there): not accepted, upgrade refused (401)',
        'fail node.websocket[no-token]: WebSocket with no token: upgraded and sent a text message 3 ms after the upgrade, with data',
      ],
    },
    {
      name: 'WebSocket: a refusal that could not be sent',
      rule: 'NAUTH-07',
      a: { rest: [], websocket: ws({ open: [], refusals: [noToken(lost('connect ECONNREFUSED 127.0.0.1:9'))] }) },
      want: ['error node.websocket[no-token]: connect ECONNREFUSED 127.0.0.1:9'],
    },
  ];
  for (const r of rows) it(`${r.rule}: ${r.name}`, () => assert.deepEqual(verdicts(r.rule, r.a), r.want));

  it('evidence: the exchange, the expectation and the auth surface entry (NAUTH-01)', () => {
    const r = res(401);
    const [j] = NODE.judges['NAUTH-01']!(only(rest('blockRest', { bearer: got(r) })), env);
    assert.deepEqual(j!.evidence, {
      exchanges: [r.exchange],
      expected: '2xx',
      actual: 401,
      observation: { status: 401, accepted: false },
      authProbe: { row: 'blockRest block by height', form: 'bearer', probe: 'right', documented: true, data: false },
    });
  });

  it('a rule whose answers were not sent states nothing', () => {
    assert.deepEqual(verdicts('NAUTH-07', only(rest('blockRest', {}))), []);
    assert.deepEqual(verdicts('NODE-07', only(rest('blockRest', {}))), []);
  });
});
