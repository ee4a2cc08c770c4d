// NAUTH-07 on the WebSocket, judged on what a refusal-mode probe recorded: only a text or binary
// message is data; an upgrade closed (or left silent) without one, pings answered or not, is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wsRefusal, wsTiming, type WsRefusalFacts } from '../../contracts/ws-refusal.js';

const upgraded: WsRefusalFacts = { upgraded: true, status: 101, serverMessages: 0, graceMs: 2000 };

const CASES: { name: string; facts: WsRefusalFacts; data: boolean; what: RegExp }[] = [
  {
    name: 'refused at the upgrade (401)',
    facts: { upgraded: false, status: 401, serverMessages: 0 },
    data: false,
    what: /^upgrade refused \(401\)$/,
  },
  {
    name: 'upgraded, ping answered, closed 1008 after 300 ms, no message',
    facts: { ...upgraded, pongMs: 0.4, closedByServer: 1008, closedAfterMs: 301 },
    data: false,
    what: /closed by the server \(code 1008\) 301 ms after the upgrade without a text or binary message, a ping answered/,
  },
  {
    name: 'upgraded, closed at once without a pong',
    facts: { ...upgraded, closedByServer: 1008, closedAfterMs: 2 },
    data: false,
    what: /^upgraded, then closed by the server \(code 1008\) 2 ms after the upgrade without a text or binary message$/,
  },
  {
    name: 'upgraded, ping answered, silent and open through the grace',
    facts: { ...upgraded, pongMs: 0.3 },
    data: false,
    what: /no text or binary message through the 2000 ms grace \(still open\)/,
  },
  {
    name: 'upgraded, then reset without a message',
    facts: { ...upgraded, error: 'read ECONNRESET' },
    data: false,
    what: /^upgraded, then read ECONNRESET, without a text or binary message$/,
  },
  {
    name: 'upgraded and answered the request with a text message',
    facts: { ...upgraded, pongMs: 0.4, serverMessages: 1, firstMessage: { binary: false, afterMs: 3 } },
    data: true,
    what: /^upgraded and sent a text message 3 ms after the upgrade$/,
  },
  {
    name: 'upgraded, a binary message, then closed 1008',
    facts: {
      ...upgraded,
      serverMessages: 1,
      firstMessage: { binary: true, afterMs: 5 },
      closedByServer: 1008,
      closedAfterMs: 300,
    },
    data: true,
    what: /^upgraded and sent a binary message 5 ms after the upgrade$/,
  },
];

for (const c of CASES) {
  test(`wsRefusal: ${c.name} -> ${c.data ? 'data' : 'no data'}`, () => {
    const r = wsRefusal(c.facts);
    assert.equal(r.data, c.data);
    assert.match(r.what, c.what);
  });
}

test('wsTiming: the times after an upgrade, none without one', () => {
  assert.equal(wsTiming({ upgraded: false, status: 403, serverMessages: 0 }), undefined);
  assert.deepEqual(wsTiming({ ...upgraded, pongMs: 0.4, closedByServer: 1008, closedAfterMs: 301 }), {
    pongMs: 0.4,
    closedAfterMs: 301,
    graceMs: 2000,
  });
});
