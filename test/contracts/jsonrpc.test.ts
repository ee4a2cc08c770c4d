// The JSON-RPC 2.0 judgements of the native checks (RPC-08..12) over answers real servers give
// (one row per answer, with what the suite must say about it), so a conformant server is never
// failed and each way of breaking a rule is named; then the same rules against the reference.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeInStage } from './harness.js';
import {
  batchServed,
  describeBatch,
  errorCodeOf,
  judgeEmptyBatch,
  judgeInvalidBatch,
  judgeMixedBatch,
  judgeNotification,
  judgeNotificationBatch,
  judgeResponseObjects,
  responseObjectProblems,
  type RpcAnswer,
} from '../../contracts/jsonrpc.js';

const answer = (status: number, body: string): RpcAnswer => {
  let json: unknown;
  try {
    json = body.trim() ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return { status, body, json };
};
const json = (v: unknown, status = 200) => answer(status, JSON.stringify(v));
const err = (code: unknown, id: unknown = null) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message: 'Invalid Request' },
});

describe('RPC-12: the Response object', () => {
  it('well-formed successes and errors have no problems (ids of every allowed type)', () => {
    for (const v of [
      { jsonrpc: '2.0', id: 1, result: '0x1' },
      { jsonrpc: '2.0', id: 'a', result: null },
      err(-32600),
      { ...err(-32601, 5), error: { code: -32601, message: 'x', data: { a: 1 } } },
    ]) {
      assert.deepEqual(responseObjectProblems(v), [], JSON.stringify(v));
    }
  });

  const BROKEN: [unknown, string][] = [
    [{ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' } }, 'error response without id'],
    [{ jsonrpc: '2.0', result: 1 }, 'success response without id'],
    [{ jsonrpc: '1.0', id: 1, result: 1 }, 'success response: jsonrpc: expected "2.0", got string "1.0"'],
    [{ id: 1, result: 1 }, 'success response without jsonrpc'],
    [
      { jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'm' } },
      'error response: result: expected no result member in an error response, got number 1',
    ],
    [{ jsonrpc: '2.0', id: 1 }, 'response without result'],
    [err('-32601'), 'error response: error.code: expected integer, got string "-32601"'],
    [err(-32600.5), 'error response: error.code: expected integer, got number -32600.5'],
    [{ jsonrpc: '2.0', id: 1, error: { message: 'm' } }, 'error response without error.code'],
    [
      { jsonrpc: '2.0', id: 1, error: { code: 1, message: 7 } },
      'error response: error.message: expected string, got number 7',
    ],
    [{ jsonrpc: '2.0', id: 1, error: 'boom' }, 'error response: error: expected object, got string "boom"'],
    [{ jsonrpc: '2.0', id: { a: 1 }, result: 1 }, 'success response: id: expected number, string or null, got object'],
    [1, '1 where a Response object belongs'],
  ];
  for (const [v, problem] of BROKEN) {
    it(`names "${problem}"`, () => assert.deepEqual(responseObjectProblems(v), [problem]));
  }

  it('judges every element of a batch answer, with its index', () => {
    assert.deepEqual(
      judgeResponseObjects(json([err(-32600), { jsonrpc: '2.0', error: { code: -32600, message: 'm' } }])),
      { verdict: 'fail', message: '[1] error response without id' },
    );
    assert.deepEqual(judgeResponseObjects(json([err(-32600), err(-32600)])), {
      verdict: 'pass',
      message: '2 Response object(s) well formed',
    });
  });

  it('judges nothing where there is no Response object: empty, not JSON, or a non-2xx answer that is not JSON-RPC', () => {
    assert.equal(judgeResponseObjects(answer(204, '')), undefined);
    assert.equal(judgeResponseObjects(answer(200, 'ok')), undefined);
    assert.equal(
      judgeResponseObjects(json({ error: { code: 'unknown_network', message: 'no such network' } }, 404)),
      undefined,
    );
    assert.equal(judgeResponseObjects(json(err(-32700), 400))?.verdict, 'pass');
  });

  it('reads a code written as a decimal string by its value (its type is RPC-12 alone)', () => {
    assert.equal(errorCodeOf(err('-32601')), -32601);
    assert.equal(errorCodeOf(err(-32601)), -32601);
    assert.equal(errorCodeOf(err('Invalid')), undefined);
  });
});

describe('RPC-09: notifications', () => {
  it('passes an empty body whatever the status', () => {
    for (const status of [200, 202, 204]) assert.equal(judgeNotification(answer(status, '')).verdict, 'pass');
  });
  it('says what came back instead', () => {
    assert.deepEqual(judgeNotification(json(err(-32600))), {
      verdict: 'fail',
      message: 'replied to a notification with error -32600 (200)',
    });
    assert.deepEqual(judgeNotification(json({ jsonrpc: '2.0', result: '0x10' })), {
      verdict: 'fail',
      message: 'replied to a notification with a result (id absent) (200)',
    });
    assert.deepEqual(judgeNotification(json({ jsonrpc: '2.0', id: null, result: '0x10' })), {
      verdict: 'fail',
      message: 'replied to a notification with a result (id null) (200)',
    });
  });
  it('passes a non-empty body that holds no Response object, naming it', () => {
    assert.deepEqual(judgeNotification(answer(200, 'null')), {
      verdict: 'pass',
      message: 'no Response object, though the body is not empty (200, null)',
    });
    assert.deepEqual(judgeNotification(answer(202, 'ok')), {
      verdict: 'pass',
      message: 'no Response object, though the body is not empty (202, 2 bytes, not JSON)',
    });
  });
  it('cannot judge a busy or unavailable answer without a Response object', () => {
    assert.equal(judgeNotification(answer(503, 'try later')).verdict, 'error');
    assert.equal(
      judgeNotification(json({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'limit' } }, 429)).verdict,
      'fail',
    );
  });
});

describe('RPC-09: notifications inside batches', () => {
  const ok = (id: unknown) => ({ jsonrpc: '2.0', id, result: '0x10' });
  it('passes Response objects for the requests only, in any order, and says which request went unanswered', () => {
    assert.deepEqual(judgeMixedBatch(json([ok(91)]), [91], 1), {
      verdict: 'pass',
      message:
        'batch of 1 request(s) and 1 notification(s): Response objects for the requests only (200, an array of 1)',
    });
    assert.equal(judgeMixedBatch(json([ok(92), ok(91)]), [91, 92], 2).verdict, 'pass');
    assert.deepEqual(judgeMixedBatch(json([ok(92)]), [91, 92], 1), {
      verdict: 'pass',
      message:
        'batch of 2 request(s) and 1 notification(s): Response objects for the requests only (200, an array of 1); no answer for id 91 (RPC-08)',
    });
  });
  const MIXED_FAILS: [RpcAnswer, string][] = [
    [
      json([ok(91), ok(null)]),
      "batch of 1 request(s) and 1 notification(s): 1 Response object(s) beyond the requests' own, so a notification was answered: " +
        'a result (id null) (200, an array of 2)',
    ],
    [
      json([ok(91), err(-32601)]),
      "batch of 1 request(s) and 1 notification(s): 1 Response object(s) beyond the requests' own, so a notification was answered: " +
        'error -32601 (200, an array of 2)',
    ],
    [
      json([ok(91), ok(91)]),
      "batch of 1 request(s) and 1 notification(s): 1 Response object(s) beyond the requests' own, so a notification was answered: " +
        'a result (id 91) (200, an array of 2)',
    ],
    [
      json([ok(91), { jsonrpc: '2.0', result: '0x10' }, {}]),
      "batch of 1 request(s) and 1 notification(s): 2 Response object(s) beyond the requests' own, so a notification was answered: " +
        'a result (id absent) (+1 more) (200, an array of 3)',
    ],
    [
      json(ok(null)),
      'batch of 1 request(s) and 1 notification(s): answered with a result (id null), which answers no request of the batch: a notification was answered (200)',
    ],
  ];
  for (const [a, message] of MIXED_FAILS)
    it(message, () => assert.deepEqual(judgeMixedBatch(a, [91], 1), { verdict: 'fail', message }));

  it('a batch refused whole (no batches, or over a size limit) is observed, never failed', () => {
    assert.deepEqual(judgeMixedBatch(json(err(-32600)), [91], 1), {
      verdict: 'observed',
      message:
        'batch of 1 request(s) and 1 notification(s): answered a single error -32600 (200), not an array: ' +
        'the batch was refused whole (RPC-08), so no notification in it was answered',
    });
    assert.equal(judgeMixedBatch(json(err(-32600), 400), [91], 1).verdict, 'observed');
  });
  it('no Response object at all, or the request alone outside an array, is no answer to the notification', () => {
    assert.deepEqual(judgeMixedBatch(answer(204, ''), [91], 1), {
      verdict: 'pass',
      message:
        'batch of 1 request(s) and 1 notification(s): no Response object for a notification (204, empty body; none for the requests either: RPC-08)',
    });
    assert.equal(judgeMixedBatch(json(ok(91)), [91], 1).verdict, 'pass');
    assert.equal(judgeMixedBatch(answer(503, ''), [91], 1).verdict, 'error');
  });

  it('a batch of only notifications: nothing at all, whatever the status', () => {
    for (const status of [200, 202, 204])
      assert.deepEqual(judgeNotificationBatch(answer(status, ''), 2, true), {
        verdict: 'pass',
        message: `batch of 2 notifications: nothing came back (${status}, empty body)`,
      });
    assert.equal(judgeNotificationBatch(answer(200, 'null'), 2, true).verdict, 'pass');
  });
  const ONLY_FAILS: [RpcAnswer, boolean | undefined, string][] = [
    [json([]), true, 'batch of 2 notifications: answered [] (200), where nothing at all belongs'],
    [
      json([ok(null), err(-32601)]),
      true,
      'batch of 2 notifications: answered an array of 2 (first: a result (id null)) (200), where nothing at all belongs',
    ],
    [
      json({}),
      true,
      'batch of 2 notifications: answered {} (200), where nothing at all belongs, though batches are served',
    ],
    [
      json(err(-32600)),
      true,
      'batch of 2 notifications: answered error -32600 (200), where nothing at all belongs, though batches are served',
    ],
    [
      json(ok(null)),
      false,
      'batch of 2 notifications: answered a result (id null) (200), where nothing at all belongs',
    ],
  ];
  for (const [a, served, message] of ONLY_FAILS)
    it(message, () => assert.deepEqual(judgeNotificationBatch(a, 2, served), { verdict: 'fail', message }));
  it('one error object where batches are not served is observed; where that could not be seen, an error', () => {
    assert.equal(judgeNotificationBatch(json(err(-32600)), 2, false).verdict, 'observed');
    assert.equal(judgeNotificationBatch(json(err(-32600)), 2, undefined).verdict, 'error');
    assert.equal(judgeNotificationBatch(answer(429, ''), 2, true).verdict, 'error');
  });
});

describe('RPC-10: the empty batch', () => {
  it('passes one -32600 error object with id null, whatever the status', () => {
    assert.equal(judgeEmptyBatch(json(err(-32600))).verdict, 'pass');
    assert.equal(judgeEmptyBatch(json(err(-32600), 400)).verdict, 'pass');
  });
  const ROWS: [RpcAnswer, string][] = [
    [json([]), 'answered [] to an empty batch (200)'],
    [json([err(-32600)]), 'answered an array of 1 to an empty batch, not one error object (200)'],
    [json(err(-32700)), 'empty batch: error code -32700, not -32600 (200)'],
    [json({ jsonrpc: '2.0', error: { code: -32600, message: 'm' } }), 'empty batch: error response without id (200)'],
    [json(err(-32600, 0)), 'empty batch: id 0, not null (200)'],
    [answer(400, 'empty batch'), 'answered an empty batch with 400 and a body that is not JSON'],
    [answer(204, ''), 'answered an empty batch with 204 and an empty body'],
  ];
  for (const [a, message] of ROWS)
    it(message, () => assert.deepEqual(judgeEmptyBatch(a), { verdict: 'fail', message }));
});

describe('RPC-08 and RPC-11: batches', () => {
  it('describes what the node did with a batch of valid requests', () => {
    const served = json([
      { jsonrpc: '2.0', id: 82, result: '0x1' },
      { jsonrpc: '2.0', id: 81, result: '0x1' },
    ]);
    assert.equal(batchServed(served), true);
    assert.equal(
      describeBatch(served, [81, 82]).message,
      'batch of 2 valid requests: 200, an array of 2 answer(s) (2 result(s)), ids 82, 81 in another order',
    );
    const refused = json(err(-32600));
    assert.equal(batchServed(refused), false);
    assert.equal(
      describeBatch(refused, [81, 82]).message,
      'batch of 2 valid requests: 200, a single error -32600, not an array: batches not served',
    );
    assert.equal(
      describeBatch(refused, [101, 102, 103], 2).message,
      'batch of 3 valid requests: 200, a single error -32600, not an array: not served at this size, though a batch of 2 was',
    );
    assert.equal(batchServed(answer(503, '')), undefined);
  });

  it('passes one -32600 error with id null per element', () => {
    assert.equal(judgeInvalidBatch(json([err(-32600), err(-32600)]), 2, true).verdict, 'pass');
  });

  it('observes a single error object when batches are not served, and fails it when they are', () => {
    assert.deepEqual(judgeInvalidBatch(json(err(-32600)), 2, false), {
      verdict: 'observed',
      message: 'answered a single error -32600 (200): batches are not served (RPC-08)',
    });
    assert.deepEqual(judgeInvalidBatch(json(err(-32600)), 2, true), {
      verdict: 'fail',
      message: 'answered a single error -32600 (200), not one error per element, though batches are served',
    });
    assert.equal(judgeInvalidBatch(json(err(-32600)), 2, undefined).verdict, 'error');
  });

  const ROWS: [RpcAnswer, string][] = [
    [json([]), 'answered [] to 2 invalid elements, not one error each (200)'],
    [json([err(-32600)]), 'answered an array of 1 to 2 invalid elements, not one error each (200)'],
    [
      json([{ jsonrpc: '2.0', error: { code: -32600, message: 'm' } }, err(-32600)]),
      'element [0]: error response without id (200)',
    ],
    [json([err(-32600), err(-32700)]), 'element [1]: error code -32700, not -32600 (200)'],
  ];
  for (const [a, message] of ROWS)
    it(message, () => assert.deepEqual(judgeInvalidBatch(a, 2, true), { verdict: 'fail', message }));
});

// Judged in the contract stage without Playwright (harness.ts judgeInStage): the verdicts are the judges'.
describe('against the reference', () => {
  const verdicts = async (variants: string[]) => {
    const checks = await judgeInStage({
      only: 'RPC-08,RPC-09,RPC-10,RPC-11,RPC-12',
      reference: { variants: new Set(variants) },
    });
    const out: Record<string, string[]> = {};
    for (const c of checks) (out[c.rule] ??= []).includes(c.verdict) || out[c.rule]!.push(c.verdict);
    return out;
  };

  it('the conformant reference passes RPC-09..RPC-12', async () => {
    assert.deepEqual(await verdicts([]), {
      'RPC-08': ['observed'],
      'RPC-09': ['pass'],
      'RPC-10': ['pass'],
      'RPC-11': ['pass'],
      'RPC-12': ['pass'],
    });
  });

  it('a reference that serves no batches: RPC-11 and RPC-09 inside batches observed, never failed', async () => {
    assert.deepEqual(await verdicts(['batches-not-served']), {
      'RPC-08': ['observed'],
      'RPC-09': ['pass', 'observed'],
      'RPC-10': ['pass'],
      'RPC-11': ['observed'],
      'RPC-12': ['pass'],
    });
  });

  it('a reference with a batch limit of 5: the batch of 10 is observed refused, nothing fails', async () => {
    assert.deepEqual(await verdicts(['batch-limit-5']), {
      'RPC-08': ['observed'],
      'RPC-09': ['pass'],
      'RPC-10': ['pass'],
      'RPC-11': ['pass'],
      'RPC-12': ['pass'],
    });
  });
});
