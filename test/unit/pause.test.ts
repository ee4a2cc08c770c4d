// The waits between paced requests (src/net/pause.ts): a wait ends when its time is up, or at once
// when the run is interrupted, so an interrupted run's queued turns and waited-out 429s hold nothing up.
// On node's mock timers: the clock moves only when the test says. A busy event loop runs its timers
// late, so the HTTP client also ends the pauses that are due as each answer ends (endDuePauses).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endDuePauses, pause } from '../../src/net/pause.js';
import { closeHttp, httpRequest } from '../../src/http/client.js';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  // Two turns of the microtask queue: a resolved promise's callbacks have run by then.
  await Promise.resolve();
  await Promise.resolve();
  return done;
};

test('pause: ends when its time is up, not before', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const wait = pause(1000);
  t.mock.timers.tick(999);
  assert.equal(await settled(wait), false);
  t.mock.timers.tick(1);
  assert.equal(await settled(wait), true);
});

test('pause: ends at once when the signal aborts, and does not start on an aborted one', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const controller = new AbortController();
  const wait = pause(5000, controller.signal);
  t.mock.timers.tick(10);
  assert.equal(await settled(wait), false);
  controller.abort();
  assert.equal(await settled(wait), true, 'ended by the abort, 4990 ms early');
  assert.equal(await settled(pause(5000, controller.signal)), true, 'an aborted run waits for nothing');
  assert.equal(await settled(pause(0)), true, 'nothing to wait');
});

test('endDuePauses: ends the pauses whose time is up, never one before its time', async (t) => {
  // The timers never fire here: whatever ends a pause is endDuePauses.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const t0 = performance.now();
  const soon = pause(10);
  const later = pause(1000);
  endDuePauses(t0 + 9);
  assert.equal(await settled(soon), false, 'not before its time');
  endDuePauses(performance.now() + 10);
  assert.equal(await settled(soon), true, 'its time is up');
  assert.equal(await settled(later), false, 'the other waits on');
  endDuePauses(performance.now() + 1000);
  assert.equal(await settled(later), true);
  t.mock.timers.tick(1000);
  endDuePauses(performance.now() + 5000);
  assert.equal(await settled(later), true, 'ended once, and its timer is gone');
});

test('the HTTP client ends a due pause as an answer ends, though no timer ran', async (t) => {
  // The server's answer takes at least 5 ms of the clock, so a 1 ms pause is due when it ends.
  const server = createServer((_req, res) => {
    const until = performance.now() + 5;
    while (performance.now() < until);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  t.after(closeHttp);
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const wait = pause(1);
  const { port } = server.address() as AddressInfo;
  const res = await httpRequest({ method: 'GET', url: `http://127.0.0.1:${port}/`, timeoutMs: 5000 });
  assert.equal(res.status, 200);
  assert.equal(await settled(wait), true, 'the answer ended it');
});
