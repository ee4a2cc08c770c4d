// A request's timeout counts the time this process could run, not the time it was held up: the
// watch's arithmetic on a given clock, the timer's waits on node's mock timers, and the HTTP client
// reading an answer that arrived while its process was busy, where a plain timer would have fired first.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, mock, test } from 'node:test';
import { closeHttp, httpRequest } from '../../src/http/client.js';
import {
  heldUpNote,
  HeldUp,
  MIN_EXTENSION_MS,
  SLACK_MS,
  TICK_MS,
  timeoutExcludingHeldUp,
} from '../../src/net/held-up.js';

describe('HeldUp: lateness of the ticks past the slack', () => {
  const clock = (start = 1000) => {
    const c = { t: start, now: () => c.t };
    return c;
  };

  test('ticks on time, or late within the slack: nothing held up', () => {
    const c = clock();
    const h = new HeldUp(c.now);
    for (let i = 0; i < 10; i++) {
      c.t += TICK_MS + (i % 2 ? SLACK_MS : 3);
      h.tick();
    }
    assert.equal(h.ms(), 0);
  });

  test('a tick 400 ms late: 400 ms held up, counted before the tick comes and not twice after', () => {
    const c = clock();
    const h = new HeldUp(c.now);
    c.t += TICK_MS + 250;
    assert.equal(h.ms(), 250, 'the stretch since the last tick');
    c.t += 150;
    h.tick();
    assert.equal(h.ms(), 400);
    c.t += TICK_MS;
    h.tick();
    assert.equal(h.ms(), 400);
  });

  test('never decreases, whatever the ticks', () => {
    const c = clock();
    const h = new HeldUp(c.now);
    let last = 0;
    for (const step of [10, 300, 40, 1000, 5, 60, 700]) {
      c.t += step;
      assert.ok(h.ms() >= last);
      last = h.ms();
      if (step !== 40) h.tick();
      assert.ok(h.ms() >= last);
      last = h.ms();
    }
  });
});

describe('timeoutExcludingHeldUp: the held-up time is waited again, at most once the timeout', () => {
  const run = (ms: number, heldAt: (now: number) => number) => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let now = 0;
    let firedAt: number | undefined;
    const t = timeoutExcludingHeldUp(
      ms,
      () => (firedAt = now),
      () => heldAt(now),
    );
    for (let step = 0; step < 100_000 && firedAt === undefined; step++) {
      now += 10;
      mock.timers.tick(10);
    }
    mock.timers.reset();
    return { firedAt, extended: t.extendedMs(), note: heldUpNote(t) };
  };

  test('nothing held up: fires at the timeout, with no note', () => {
    assert.deepEqual(
      run(1000, () => 0),
      { firedAt: 1000, extended: 0, note: '' },
    );
  });

  test('held up 300 ms during the wait: fires 300 ms later and says so', () => {
    const r = run(1000, (now) => (now >= 500 ? 300 : 0));
    assert.equal(r.firedAt, 1300);
    assert.equal(r.extended, 300);
    assert.equal(r.note, ', not counting 300 ms this machine held chainprobe up');
  });

  test('held up again during the extension: waited again, up to twice the timeout in all', () => {
    const r = run(1000, (now) => Math.floor(now / 400) * 200);
    assert.ok(r.firedAt! <= 2000, `fired at ${r.firedAt}`);
    assert.ok(r.firedAt! > 1000 + MIN_EXTENSION_MS);
    assert.ok(r.extended <= 1000);
  });

  test('held up longer than the timeout: the wait ends at twice the timeout', () => {
    const r = run(1000, (now) => now);
    assert.equal(r.firedAt, 2000);
    assert.equal(r.extended, 1000);
  });

  test('a hold shorter than the least extension does not move the timeout', () => {
    assert.equal(run(1000, () => MIN_EXTENSION_MS - 1).firedAt, 1000);
  });
});

describe('the HTTP client on a busy process', () => {
  after(closeHttp);

  test('an answer that arrived while the process was held up past the timeout is read, and not a timeout', async () => {
    // The server answers, then holds the one event loop it shares with the client for longer than
    // the client's timeout: on resuming, the overdue timer runs before the socket is read.
    const server = createServer((_req, res) => {
      res.end('{"ok":true}');
      const until = performance.now() + 2500;
      while (performance.now() < until);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    after(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // The timeout leaves a loaded machine time to connect and send; the hold outlasts it.
    const r = await httpRequest({ method: 'GET', url, timeoutMs: 1500 });
    assert.equal(r.status, 200);
    assert.equal(r.body, '{"ok":true}');
  });

  test('a server that never answers still times out', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    after(() => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await assert.rejects(httpRequest({ method: 'GET', url, timeoutMs: 300 }), {
      message: /^timeout: no complete answer within 300 ms/,
    });
  });
});
