// The contract client's one resend: a request that fails on a reused keep-alive connection before
// any byte of its answer is sent once more on a new connection, and says so; a failure after bytes
// arrived, or on a fresh connection, is not resent; a second failure stays a failure. The servers
// are raw TCP, so what each connection does with each request is exact.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { closeHttp, HttpFailure, httpRequest, PER_HOST, RESENT, resendable } from '../../src/http/client.js';

describe('resendable: the rule', () => {
  const CASES = [
    { kind: 'network', reused: true, answerStarted: false, resend: true },
    { kind: 'network', reused: false, answerStarted: false, resend: false },
    { kind: 'network', reused: undefined, answerStarted: false, resend: false },
    { kind: 'network', reused: true, answerStarted: true, resend: false },
    { kind: 'timeout', reused: true, answerStarted: false, resend: false },
    { kind: 'aborted', reused: true, answerStarted: false, resend: false },
    { kind: 'body-too-large', reused: true, answerStarted: true, resend: false },
  ] as const;
  for (const c of CASES)
    test(`${c.kind}, reused ${c.reused}, answer begun ${c.answerStarted} -> ${c.resend ? 'resent' : 'not resent'}`, () => {
      assert.equal(resendable(c.kind, { reused: c.reused, answerStarted: c.answerStarted }), c.resend);
    });
});

type Behaviour = 'answer' | 'close' | 'half-answer';

/** A server that does `plan(connection index, request index on it)` with each request (no bodies: GETs). */
async function tcpServer(plan: (conn: number, req: number) => Behaviour) {
  const seen: [number, number][] = [];
  const sockets = new Set<Socket>();
  let conns = 0;
  const server: Server = createServer((socket) => {
    const conn = conns++;
    let req = 0;
    let buffered = '';
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end !== -1; end = buffered.indexOf('\r\n\r\n')) {
        buffered = buffered.slice(end + 4);
        const what = plan(conn, req);
        seen.push([conn, req++]);
        if (what === 'answer')
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok');
        else if (what === 'half-answer') socket.end('HTTP/1.1 200 OK\r\nContent-Le');
        else socket.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  return {
    url,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
type TcpServer = Awaited<ReturnType<typeof tcpServer>>;

/**
 * After an answer, the client lets the event loop turn once before it reuses the idle connection (a
 * FIN already there is seen first); a request sent sooner goes on a new one. The tests wait that
 * turn (and more), so their second request is the reused connection's.
 */
const idle = () => new Promise((r) => setTimeout(r, 20));

const get = (url: string, beforeResend?: () => void) =>
  httpRequest({ method: 'GET', url, timeoutMs: 5000, beforeResend });
const failureOf = async (p: Promise<unknown>): Promise<HttpFailure> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof HttpFailure) return e;
    throw e;
  }
  assert.fail('the request did not fail');
};

/** Runs `body` against a tcpServer of `plan`, closed after. */
async function withServer(plan: (conn: number, req: number) => Behaviour, body: (s: TcpServer) => Promise<void>) {
  const s = await tcpServer(plan);
  try {
    await body(s);
  } finally {
    await s.close();
  }
}

/** The first request answered, its connection left idle: the next request reuses it. */
async function primed(s: TcpServer): Promise<void> {
  assert.equal((await get(s.url)).resent, undefined);
  await idle();
}

describe('httpRequest: when a request is sent again', () => {
  after(() => closeHttp());

  test('a reused connection closed before the first byte: resent once on a new connection, and said so', () =>
    withServer(
      (conn, req) => (conn === 0 && req === 1 ? 'close' : 'answer'),
      async (s) => {
        await primed(s);
        let resends = 0;
        const r = await get(s.url, () => resends++);
        assert.deepEqual([r.status, r.body, r.resent, resends], [200, 'ok', RESENT, 1]);
        assert.deepEqual(s.seen, [
          [0, 0],
          [0, 1],
          [1, 0],
        ]);
      },
    ));

  test('a request that waited for a connection and took it straight from the answer before: resent when closed', () =>
    withServer(
      // Every connection's second request is refused by closing: only the request that waited gets one.
      (conn, req) => (req === 1 ? 'close' : 'answer'),
      async (s) => {
        let resends = 0;
        const answers = await Promise.all(Array.from({ length: PER_HOST + 1 }, () => get(s.url, () => resends++)));
        assert.deepEqual(
          answers.map((a) => a.status),
          answers.map(() => 200),
        );
        assert.equal(answers.filter((a) => a.resent === RESENT).length, 1);
        assert.equal(resends, 1);
        assert.equal(s.seen.length, PER_HOST + 2);
      },
    ));

  test("a paced request's resend waits a turn of its own, ended when the resend's head is written", () =>
    withServer(
      (conn, req) => (conn === 0 && req === 1 ? 'close' : 'answer'),
      async (s) => {
        await primed(s);
        const events: string[] = [];
        const r = await httpRequest({
          method: 'GET',
          url: s.url,
          timeoutMs: 5000,
          onHeadSent: () => events.push('head'),
          resendTurn: async () => {
            events.push('turn asked');
            await new Promise((done) => setTimeout(done, 30));
            // Nothing went out while the turn was pending: the server has seen the two first sendings only.
            events.push(`turn given after ${s.seen.length} requests`);
            return () => events.push('resend head');
          },
        });
        assert.equal(r.resent, RESENT);
        assert.deepEqual(events, ['head', 'turn asked', 'turn given after 2 requests', 'resend head']);
        assert.equal(s.seen.length, 3);
      },
    ));

  test('a fresh connection closed before the first byte: not resent', () =>
    withServer(
      () => 'close',
      async (s) => {
        const e = await failureOf(get(s.url, () => assert.fail('resent')));
        assert.deepEqual([e.kind, e.resent, s.seen], ['network', undefined, [[0, 0]]]);
      },
    ));

  test('a reused connection closed after bytes of the answer arrived: not resent', () =>
    withServer(
      (conn, req) => (req === 1 ? 'half-answer' : 'answer'),
      async (s) => {
        await primed(s);
        const e = await failureOf(get(s.url, () => assert.fail('resent')));
        assert.equal(e.resent, undefined);
        assert.equal(s.seen.length, 2);
      },
    ));

  test('the resend fails too: the failure stands, marked as the resend', () =>
    withServer(
      (conn, req) => (conn === 0 && req === 0 ? 'answer' : 'close'),
      async (s) => {
        await primed(s);
        const e = await failureOf(get(s.url));
        assert.deepEqual([e.kind, e.resent, s.seen.length], ['network', RESENT, 3]);
      },
    ));

  test('a resend the budget refuses is not sent', () =>
    withServer(
      (conn, req) => (conn === 0 && req === 1 ? 'close' : 'answer'),
      async (s) => {
        await primed(s);
        const budget = () => {
          throw new Error('budget: the run reached limits.maxRequests (1)');
        };
        await assert.rejects(get(s.url, budget), /budget/);
        assert.equal(s.seen.length, 2);
      },
    ));
});
