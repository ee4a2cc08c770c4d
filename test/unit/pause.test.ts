// The waits between paced requests (src/net/pause.ts): a wait ends when its time is up, or at once
// when the run is interrupted, so an interrupted run's queued turns and waited-out 429s hold nothing up.
// On node's mock timers: the clock moves only when the test says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pause } from '../../src/net/pause.js';

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
