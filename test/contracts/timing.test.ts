// A contract test's network time is the time at least one of its requests was in flight: requests
// in flight together count once, gaps between them not at all, unanswered ones not at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inFlightMs } from '../../contracts/timing.js';

test('in-flight time: the union of send..receive spans', () => {
  const x = (sentAt: number, receivedAt?: number) => ({ sentAt, receivedAt });
  assert.equal(inFlightMs([]), 0);
  assert.equal(inFlightMs([x(0, 10)]), 10);
  assert.equal(inFlightMs([x(0, 10), x(5, 12), x(20, 25)]), 17, 'overlap once, the gap not at all');
  assert.equal(inFlightMs([x(20, 25), x(0, 30)]), 30, 'order does not matter; a span inside another adds nothing');
  assert.equal(inFlightMs([x(0, 10), x(3)]), 10, 'an unanswered request has no span');
});
