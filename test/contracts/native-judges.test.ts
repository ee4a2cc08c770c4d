// The native JSON-RPC judges (RPC-01..12) as pure functions of what the plan got: a conformant set
// of hand-made answers, and rows that change one answer each, with the verdicts and messages the
// judges must state. No network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallResult } from '../../contracts/api.js';
import { Checks, type Judgement } from '../../contracts/checks.js';
import { NATIVE } from '../../contracts/native.js';
import { ECHO_IDS, type NativeAnswers, type Reply } from '../../contracts/native-send.js';
import type { PlanEnv } from '../../contracts/plan.js';
import type { Exchange } from '../../src/record/recorder.js';
import { Redactor } from '../../src/record/redact.js';

let seq = 0;
const exchange = (status?: number, error?: string): Exchange => ({
  seq: ++seq,
  method: 'POST',
  url: 'http://api/chain-a/mainnet/native',
  requestHeaders: {},
  responseHeaders: {},
  sentAt: 0,
  ...(status !== undefined && { status }),
  ...(error !== undefined && { error }),
});

/** An answer with this body text (parsed when it is JSON). */
function raw(status: number, body: string, headers: Record<string, string> = {}): CallResult {
  let json: unknown;
  try {
    json = body.trim() ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status,
    headers,
    body,
    bytes: body.length,
    json,
    ok: status >= 200 && status < 300,
    exchange: exchange(status),
  };
}
const json = (v: unknown, status = 200) => raw(status, JSON.stringify(v), { 'content-type': 'application/json' });
const result = (id: unknown, value: unknown = '0x10') => ({ jsonrpc: '2.0', id, result: value });
const error = (id: unknown, code: unknown, message = 'm') => ({ jsonrpc: '2.0', id, error: { code, message } });

const got = (id: string, res: CallResult): Reply => ({ id, res });
const TIMEOUT = 'timeout: no answer within 10000 ms';
const lost = (id: string): Reply => ({ id, lost: { cause: TIMEOUT, exchanges: [exchange(undefined, TIMEOUT)] } });

/** What a conformant node answers to the whole plan. */
function conformant(): NativeAnswers {
  return {
    method: 'eth_blockNumber',
    first: 'mainnet',
    blockNumber: got('native.block-number[mainnet]', json(result(4242))),
    networks: [
      { ...got('native.network[mainnet]', json(result(4242))), network: 'mainnet', optional: false },
      { ...got('native.network[sepolia]', json(result(4242))), network: 'sepolia', optional: false },
      {
        ...got('native.network[ropsten]', json({ error: 'no such network' }, 404)),
        network: 'ropsten',
        optional: true,
      },
    ],
    echoes: ECHO_IDS.map((rid) => ({
      ...got(`native.id-echo[${typeof rid === 'string' ? 'string' : rid}]`, json(result(rid))),
      rid,
    })),
    errors: [
      { ...got('native.unknown-method[mainnet]', json(error(5, -32601))), rule: 'RPC-05', code: -32601 },
      { ...got('native.parse-error[mainnet]', json(error(null, -32700))), rule: 'RPC-06', code: -32700 },
      { ...got('native.invalid-request[mainnet]', json(error(7, -32600))), rule: 'RPC-07', code: -32600 },
    ],
    notifications: [
      got('native.notification[known-method]', raw(204, '')),
      got('native.notification[unknown-method]', raw(204, '')),
    ],
    emptyBatch: got('native.empty-batch[mainnet]', json(error(null, -32600))),
    batch: got('native.batch[mainnet]', json([result(81), result(82)])),
    batchOf10: got('native.batch-of-10[mainnet]', json(Array.from({ length: 10 }, (_v, i) => result(101 + i)))),
    mixedBatch: got('native.batch-notification[mainnet]', json([result(91)])),
    notificationBatch: got('native.batch-notifications-only[mainnet]', raw(204, '')),
    invalidBatch: got('native.invalid-batch[mainnet]', json([error(null, -32600), error(null, -32600)])),
  };
}

const env = {} as PlanEnv;
const judge = (rule: string, a: NativeAnswers): Judgement[] => NATIVE.judges[rule]!(a, env);
const said = (js: Judgement[]) => js.map((j) => `${j.verdict} ${j.id}: ${j.message}`);

/** A conformant node but for one change. */
const but = (change: Partial<NativeAnswers>): NativeAnswers => ({ ...conformant(), ...change });

interface Row {
  name: string;
  rule: string;
  answers: NativeAnswers;
  want: string[];
}

const FAULTY_NOTIFICATION = json(result(null));
const NOT_SERVED = json(error(null, -32600));

const ROWS: Row[] = [
  // RPC-01: the envelope.
  {
    name: 'a conformant answer',
    rule: 'RPC-01',
    answers: conformant(),
    want: [
      'pass native.block-number[mainnet]: eth_blockNumber on mainnet: every documented field present with its documented type',
    ],
  },
  {
    name: 'jsonrpc "1.0"',
    rule: 'RPC-01',
    answers: but({ blockNumber: got('native.block-number[mainnet]', json({ ...result(4242), jsonrpc: '1.0' })) }),
    want: ['fail native.block-number[mainnet]: eth_blockNumber on mainnet: jsonrpc is "1.0", not "2.0"'],
  },
  {
    name: 'an error instead of a result',
    rule: 'RPC-01',
    answers: but({ blockNumber: got('native.block-number[mainnet]', json(error(4242, -32000, 'busy'))) }),
    want: ['fail native.block-number[mainnet]: eth_blockNumber on mainnet: no result (error -32000: busy)'],
  },
  {
    name: 'a request that could not be made',
    rule: 'RPC-01',
    answers: but({ blockNumber: lost('native.block-number[mainnet]') }),
    want: [`error native.block-number[mainnet]: ${TIMEOUT}`],
  },
  // RPC-02: the block number's form.
  {
    name: 'a canonical hex quantity',
    rule: 'RPC-02',
    answers: conformant(),
    want: [
      'pass native.block-number[mainnet]: eth_blockNumber on mainnet: every documented field present with its documented type',
    ],
  },
  {
    name: 'a leading zero',
    rule: 'RPC-02',
    answers: but({ blockNumber: got('native.block-number[mainnet]', json(result(4242, '0x010'))) }),
    want: ['fail native.block-number[mainnet]'],
  },
  {
    name: 'a request that could not be made',
    rule: 'RPC-02',
    answers: but({ blockNumber: lost('native.block-number[mainnet]') }),
    want: [`error native.block-number[mainnet]: ${TIMEOUT}`],
  },
  // RPC-03: every network.
  {
    name: 'both networks answer; the optional one is observed',
    rule: 'RPC-03',
    answers: conformant(),
    want: [
      'pass native.network[mainnet]: mainnet answers like RPC-01',
      'pass native.network[sepolia]: sepolia answers like RPC-01',
      'observed native.network[ropsten]: optional network ropsten: not served (answered 404)',
    ],
  },
  {
    name: 'a network down',
    rule: 'RPC-03',
    answers: but({
      networks: [
        {
          ...got('native.network[sepolia]', json({ message: 'unavailable' }, 503)),
          network: 'sepolia',
          optional: false,
        },
        { ...lost('native.network[goerli]'), network: 'goerli', optional: false },
      ],
    }),
    want: ['fail native.network[sepolia]: sepolia: answered 503', `error native.network[goerli]: ${TIMEOUT}`],
  },
  // RPC-04: id echo.
  {
    name: 'every id echoed',
    rule: 'RPC-04',
    answers: conformant(),
    want: [
      'pass native.id-echo[0]: id 0 echoed',
      'pass native.id-echo[1]: id 1 echoed',
      'pass native.id-echo[9007199254740991]: id 9007199254740991 echoed',
      'pass native.id-echo[string]: id "chainprobe-id-7" echoed',
    ],
  },
  {
    name: 'a string id turned into a number, an id left out',
    rule: 'RPC-04',
    answers: but({
      echoes: [
        { ...got('native.id-echo[string]', json(result(7))), rid: 'chainprobe-id-7' },
        { ...got('native.id-echo[0]', json({ jsonrpc: '2.0', result: '0x10' })), rid: 0 },
      ],
    }),
    want: [
      'fail native.id-echo[string]: id "chainprobe-id-7" came back as 7 (200)',
      'fail native.id-echo[0]: id 0 came back as nothing (200)',
    ],
  },
  // RPC-05..07: the standard error codes.
  {
    name: '-32601',
    rule: 'RPC-05',
    answers: conformant(),
    want: ['pass native.unknown-method[mainnet]: error -32601 as the standard says (200)'],
  },
  {
    name: 'a result beside the error',
    rule: 'RPC-05',
    answers: but({
      errors: [
        {
          ...got('native.unknown-method[mainnet]', json({ ...error(5, -32601), result: '0x1' })),
          rule: 'RPC-05',
          code: -32601,
        },
      ],
    }),
    want: ['fail native.unknown-method[mainnet]: a result is present beside the error ("0x1")'],
  },
  {
    name: '-32700 with id null',
    rule: 'RPC-06',
    answers: conformant(),
    want: ['pass native.parse-error[mainnet]: error -32700 as the standard says (200)'],
  },
  {
    name: 'the id of the unparsable request',
    rule: 'RPC-06',
    answers: but({
      errors: [{ ...got('native.parse-error[mainnet]', json(error(6, -32700))), rule: 'RPC-06', code: -32700 }],
    }),
    want: ['fail native.parse-error[mainnet]: id is 6, not null'],
  },
  {
    name: '-32600',
    rule: 'RPC-07',
    answers: conformant(),
    want: ['pass native.invalid-request[mainnet]: error -32600 as the standard says (200)'],
  },
  {
    name: 'another code, and a body that is not JSON',
    rule: 'RPC-07',
    answers: but({
      errors: [
        { ...got('native.invalid-request[mainnet]', json(error(7, -32601))), rule: 'RPC-07', code: -32600 },
        { ...got('native.invalid-request[mainnet]', raw(500, 'oops')), rule: 'RPC-07', code: -32600 },
      ],
    }),
    want: [
      'fail native.invalid-request[mainnet]: error code is -32601, not -32600',
      'fail native.invalid-request[mainnet]: the body is not a JSON object (500)',
    ],
  },
  {
    name: 'the code written as a string passes here (its type is RPC-12)',
    rule: 'RPC-07',
    answers: but({
      errors: [{ ...got('native.invalid-request[mainnet]', json(error(7, '-32600'))), rule: 'RPC-07', code: -32600 }],
    }),
    want: [
      'pass native.invalid-request[mainnet]: error -32600 as the standard says (200) (the code written as a string: RPC-12)',
    ],
  },
  // RPC-08: batches, observed.
  {
    name: 'both batches served',
    rule: 'RPC-08',
    answers: conformant(),
    want: [
      'observed native.batch[mainnet]: batch of 2 valid requests: 200, an array of 2 answer(s) (2 result(s)), ids 81, 82 in request order',
      'observed native.batch-of-10[mainnet]: batch of 10 valid requests: 200, an array of 10 answer(s) (10 result(s)), ' +
        'ids 101, 102, 103, 104, 105, 106, 107, 108, 109, 110 in request order',
    ],
  },
  {
    name: 'a size limit under 10',
    rule: 'RPC-08',
    answers: but({ batchOf10: got('native.batch-of-10[mainnet]', NOT_SERVED) }),
    want: [
      'observed native.batch[mainnet]: batch of 2 valid requests: 200, an array of 2 answer(s) (2 result(s)), ids 81, 82 in request order',
      'observed native.batch-of-10[mainnet]: batch of 10 valid requests: 200, a single error -32600, not an array: ' +
        'not served at this size, though a batch of 2 was',
    ],
  },
  {
    name: 'a 503, and a batch not sent',
    rule: 'RPC-08',
    answers: but({ batch: got('native.batch[mainnet]', raw(503, '')), batchOf10: undefined }),
    want: [
      'error native.batch[mainnet]: batch of 2 valid requests: answered 503, so what the node does could not be seen',
    ],
  },
  // RPC-09: notifications.
  {
    name: 'nothing comes back',
    rule: 'RPC-09',
    answers: conformant(),
    want: [
      'pass native.notification[known-method]: no Response object (204, empty body)',
      'pass native.notification[unknown-method]: no Response object (204, empty body)',
      'pass native.batch-notification[mainnet]: batch of 1 request(s) and 1 notification(s): Response objects for the requests only (200, an array of 1)',
      'pass native.batch-notifications-only[mainnet]: batch of 2 notifications: nothing came back (204, empty body)',
    ],
  },
  {
    name: 'notifications answered, alone and inside batches',
    rule: 'RPC-09',
    answers: but({
      notifications: [got('native.notification[known-method]', FAULTY_NOTIFICATION)],
      mixedBatch: got('native.batch-notification[mainnet]', json([result(91), result(null)])),
      notificationBatch: got('native.batch-notifications-only[mainnet]', json([result(null), error(null, -32601)])),
    }),
    want: [
      'fail native.notification[known-method]: replied to a notification with a result (id null) (200)',
      'fail native.batch-notification[mainnet]: batch of 1 request(s) and 1 notification(s): ' +
        "1 Response object(s) beyond the requests' own, so a notification was answered: a result (id null) (200, an array of 2)",
      'fail native.batch-notifications-only[mainnet]: batch of 2 notifications: ' +
        'answered an array of 2 (first: a result (id null)) (200), where nothing at all belongs',
    ],
  },
  {
    name: 'a node without batches refuses them whole: observed',
    rule: 'RPC-09',
    answers: but({
      notifications: [],
      batch: got('native.batch[mainnet]', NOT_SERVED),
      mixedBatch: got('native.batch-notification[mainnet]', NOT_SERVED),
      notificationBatch: got('native.batch-notifications-only[mainnet]', NOT_SERVED),
    }),
    want: [
      'observed native.batch-notification[mainnet]: batch of 1 request(s) and 1 notification(s): ' +
        'answered a single error -32600 (200), not an array: the batch was refused whole (RPC-08), so no notification in it was answered',
      'observed native.batch-notifications-only[mainnet]: batch of 2 notifications: ' +
        'answered a single error -32600 (200), not an array: the batch was refused whole (RPC-08), so no notification in it was answered',
    ],
  },
  {
    name: "whether batches are served unknown (RPC-08's batch lost)",
    rule: 'RPC-09',
    answers: but({
      notifications: [lost('native.notification[unknown-method]')],
      batch: lost('native.batch[mainnet]'),
      mixedBatch: undefined,
      notificationBatch: got('native.batch-notifications-only[mainnet]', NOT_SERVED),
    }),
    want: [
      `error native.notification[unknown-method]: ${TIMEOUT}`,
      'error native.batch-notifications-only[mainnet]: batch of 2 notifications: ' +
        'answered a single error -32600 (200), and whether batches are served could not be seen',
    ],
  },
  // RPC-10: the empty batch.
  {
    name: 'one error -32600 with id null',
    rule: 'RPC-10',
    answers: conformant(),
    want: ['pass native.empty-batch[mainnet]: empty batch: one error -32600 with id null (200)'],
  },
  {
    name: '[]',
    rule: 'RPC-10',
    answers: but({ emptyBatch: got('native.empty-batch[mainnet]', json([])) }),
    want: ['fail native.empty-batch[mainnet]: answered [] to an empty batch (200)'],
  },
  // RPC-11: a batch of non-requests.
  {
    name: 'one error per element',
    rule: 'RPC-11',
    answers: conformant(),
    want: ['pass native.invalid-batch[mainnet]: one error -32600 with id null per element (2, 200)'],
  },
  {
    name: 'an element without id',
    rule: 'RPC-11',
    answers: but({
      invalidBatch: got(
        'native.invalid-batch[mainnet]',
        json([{ jsonrpc: '2.0', error: { code: -32600, message: 'm' } }, error(null, -32600)]),
      ),
    }),
    want: ['fail native.invalid-batch[mainnet]: element [0]: error response without id (200)'],
  },
  {
    name: 'a node without batches: observed',
    rule: 'RPC-11',
    answers: but({
      batch: got('native.batch[mainnet]', NOT_SERVED),
      invalidBatch: got('native.invalid-batch[mainnet]', NOT_SERVED),
    }),
    want: [
      'observed native.invalid-batch[mainnet]: answered a single error -32600 (200): batches are not served (RPC-08)',
    ],
  },
  {
    name: 'a single error though batches are served',
    rule: 'RPC-11',
    answers: but({ invalidBatch: got('native.invalid-batch[mainnet]', NOT_SERVED) }),
    want: [
      'fail native.invalid-batch[mainnet]: answered a single error -32600 (200), not one error per element, though batches are served',
    ],
  },
  // RPC-12: every Response object read.
  {
    name: 'every answer with Response objects judged, in the order sent',
    rule: 'RPC-12',
    answers: conformant(),
    want: [
      'pass native.block-number[mainnet]: 1 Response object(s) well formed',
      'pass native.network[mainnet]: 1 Response object(s) well formed',
      'pass native.network[sepolia]: 1 Response object(s) well formed',
      'pass native.id-echo[0]: 1 Response object(s) well formed',
      'pass native.id-echo[1]: 1 Response object(s) well formed',
      'pass native.id-echo[9007199254740991]: 1 Response object(s) well formed',
      'pass native.id-echo[string]: 1 Response object(s) well formed',
      'pass native.unknown-method[mainnet]: 1 Response object(s) well formed',
      'pass native.parse-error[mainnet]: 1 Response object(s) well formed',
      'pass native.invalid-request[mainnet]: 1 Response object(s) well formed',
      'pass native.empty-batch[mainnet]: 1 Response object(s) well formed',
      'pass native.batch[mainnet]: 2 Response object(s) well formed',
      'pass native.batch-of-10[mainnet]: 10 Response object(s) well formed',
      'pass native.batch-notification[mainnet]: 1 Response object(s) well formed',
      'pass native.invalid-batch[mainnet]: 2 Response object(s) well formed',
    ],
  },
  {
    name: 'a code written as a string; a lost request has nothing to judge',
    rule: 'RPC-12',
    answers: {
      ...but({ blockNumber: lost('native.block-number[mainnet]') }),
      networks: [],
      echoes: [],
      errors: [{ ...got('native.invalid-request[mainnet]', json(error(7, '-32600'))), rule: 'RPC-07', code: -32600 }],
      notifications: [],
      emptyBatch: undefined,
      batch: undefined,
      batchOf10: undefined,
      mixedBatch: undefined,
      invalidBatch: undefined,
    },
    want: ['fail native.invalid-request[mainnet]: error response: error.code: expected integer, got string "-32600"'],
  },
];

describe('native judges (RPC-01..12)', () => {
  for (const r of ROWS)
    it(`${r.rule}: ${r.name}`, () => {
      const got = said(judge(r.rule, r.answers));
      // A row that names only the verdict and the id leaves the message to the schema's wording.
      assert.deepEqual(
        got.map((line, i) => (r.want[i]?.includes(':') ? line : line.slice(0, line.indexOf(':')))),
        r.want,
      );
    });

  it('every rule of the family has a judge, and a plan that sent nothing gets no verdict', () => {
    const nothing: NativeAnswers = {
      method: 'eth_blockNumber',
      first: 'mainnet',
      networks: [],
      echoes: [],
      errors: [],
      notifications: [],
    };
    assert.deepEqual(
      Object.keys(NATIVE.judges),
      Array.from({ length: 12 }, (_v, i) => `RPC-${String(i + 1).padStart(2, '0')}`),
    );
    for (const rule of Object.keys(NATIVE.judges)) assert.deepEqual(judge(rule, nothing), [], rule);
  });

  it('a request that could not be made is the check the old guard stated: an error with the cause', () => {
    const checks = new Checks(new Redactor(), () => true);
    const a = but({ emptyBatch: lost('native.empty-batch[mainnet]') });
    checks.apply(judge('RPC-10', a));
    const [c] = checks.results;
    assert.equal(checks.results.length, 1);
    assert.equal(c!.verdict, 'error');
    assert.equal(c!.message, `could not check: ${TIMEOUT}`);
    assert.equal(c!.evidence?.cause, TIMEOUT);
    assert.deepEqual(c!.evidence?.exchanges, a.emptyBatch!.lost!.exchanges);
  });

  it("an observation carries what was observed and the answer it rests on (RPC-08's batch)", () => {
    const checks = new Checks(new Redactor(), () => true);
    const a = conformant();
    checks.apply(judge('RPC-08', a).slice(0, 1));
    assert.deepEqual(checks.results[0]!.evidence, {
      exchanges: [a.batch!.res!.exchange],
      observation: {
        status: 200,
        served: true,
        answers: 2,
        results: 2,
        order: 'request order',
        contentType: 'application/json',
        bodyShape: checks.results[0]!.evidence!.observation!.bodyShape,
      },
    });
  });
});
