// The native JSON-RPC family's judges (RPC-01..12), one per rule: pure functions from what the plan
// got (contracts/native-send.ts) to verdicts. A request that could not be made is an `error` of the
// rule that needed it, with the cause; RPC-12 judges the Response objects of every answer read. The
// standard's own judgements (notifications, batches, Response objects) are contracts/jsonrpc.ts's.
import { SCHEMA } from '../src/schemas/validate.js';
import type { CallResult } from './api.js';
import { ev, verdict, type Judgement } from './checks.js';
import { isObject } from './json.js';
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
  type RpcJudgement,
} from './jsonrpc.js';
import {
  BATCH_IDS,
  BATCH_OF_10_IDS,
  ENVELOPE_ID,
  INVALID_BATCH_ELEMENTS,
  MIXED_BATCH,
  notificationsOf,
  type NativeAnswers,
  type Reply,
} from './native-send.js';
import type { Judge } from './plan.js';
import { judgeSchema } from './schema-judge.js';
import { bodyShape, mediaType } from '../src/body-shape.js';

type Answered = Reply & { res: CallResult };

/**
 * A reply's verdicts for one rule: an `error` with the cause when the request could not be made,
 * else what `judge` says of its answer; nothing when it was not sent.
 */
function onReply(rule: string, r: Reply | undefined, judge: (r: Answered) => Judgement | Judgement[]): Judgement[] {
  if (!r) return [];
  if (r.lost) return [{ rule, id: r.id, verdict: 'error', message: r.lost.cause, evidence: ev(r.lost.exchanges) }];
  return [judge(r as Answered)].flat();
}

/** A judgement of jsonrpc.ts as a check, with what was observed of the answer. */
function stated(rule: string, r: Answered, j: RpcJudgement, observation: Record<string, unknown>): Judgement {
  const { id, res } = r;
  if (j.verdict === 'observed')
    return { rule, id, verdict: 'observed', message: j.message, observation, exchanges: res.exchange };
  return { rule, id, verdict: j.verdict, message: j.message, evidence: ev(res.exchange, { observation }) };
}

/** RPC-01's conditions, as a problem line (undefined: all hold). */
export function envelopeProblem(res: CallResult, id: number | string): string | undefined {
  if (!res.ok) return `answered ${res.status}`;
  const j = res.json;
  if (!isObject(j)) return 'the body is not a JSON object';
  if (j.jsonrpc !== '2.0') return `jsonrpc is ${JSON.stringify(j.jsonrpc)}, not "2.0"`;
  if (!Object.hasOwn(j, 'id') || j.id !== id)
    return `id is ${JSON.stringify(j.id)}, not the request's ${JSON.stringify(id)}`;
  if (!Object.hasOwn(j, 'result'))
    return `no result${isObject(j.error) ? ` (error ${String(j.error.code)}: ${String(j.error.message)})` : ''}`;
  return undefined;
}

/** What else than the code the standard asks of each error answer (RPC-05..07). */
const ERROR_EXTRA: Readonly<Record<string, (j: Record<string, unknown>) => string | undefined>> = {
  'RPC-05': (j) =>
    Object.hasOwn(j, 'result') ? `a result is present beside the error (${JSON.stringify(j.result)})` : undefined,
  'RPC-06': (j) => (!Object.hasOwn(j, 'id') || j.id !== null ? `id is ${JSON.stringify(j.id)}, not null` : undefined),
  'RPC-07': () => undefined,
};

/** The error code a rule wants. Its type (integer, not string) is RPC-12's to judge, on the same answer. */
function standardError(rule: string, { id, res }: Answered, code: number): Judgement {
  const j = res.json;
  const got = errorCodeOf(j);
  const raw = isObject(j) && isObject(j.error) ? j.error.code : undefined;
  const problem = !isObject(j)
    ? `the body is not a JSON object (${res.status})`
    : got !== code
      ? `error code is ${JSON.stringify(raw)}, not ${code}`
      : ERROR_EXTRA[rule]!(j);
  const asString = typeof raw === 'string' ? ' (the code written as a string: RPC-12)' : '';
  return verdict(
    !problem,
    rule,
    id,
    `error ${code} as the standard says (${res.status})${asString}`,
    problem ?? '',
    ev(res.exchange, {
      expected: { error: { code } },
      actual: isObject(j) ? { error: j.error, id: j.id } : res.status,
      observation: { status: res.status },
    }),
  );
}

/** RPC-05..07: the rule's request, judged on its error code and what else the standard asks. */
function standardErrors(rule: string, a: NativeAnswers): Judgement[] {
  return a.errors
    .filter((r) => r.rule === rule)
    .flatMap((r) => onReply(rule, r, (got) => standardError(rule, got, r.code)));
}

/** Whether RPC-08's batch of 2 shows that batches are served; undefined: it cannot show (or was not sent). */
function servedOf(a: NativeAnswers): boolean | undefined {
  return a.batch?.res ? batchServed(a.batch.res) : undefined;
}

/** RPC-08 on a batch of valid requests: what the node did with it, observed. */
function judgeValidBatch(r: Reply | undefined, ids: readonly number[], servedAt?: number): Judgement[] {
  return onReply('RPC-08', r, ({ id, res }) => {
    const { message, observation } = describeBatch(res, ids, servedAt);
    if (batchServed(res) === undefined)
      return { rule: 'RPC-08', id, verdict: 'error', message, evidence: ev(res.exchange) };
    return {
      rule: 'RPC-08',
      id,
      verdict: 'observed',
      message,
      observation: { ...observation, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) },
      exchanges: res.exchange,
    };
  });
}

/** Every reply, in the plan's order: RPC-12 judges each answer read. */
function everyReply(a: NativeAnswers): Reply[] {
  return [
    a.blockNumber,
    ...a.networks,
    ...a.echoes,
    ...a.errors,
    ...a.notifications,
    a.emptyBatch,
    a.batch,
    a.batchOf10,
    a.mixedBatch,
    a.notificationBatch,
    a.invalidBatch,
  ].filter((r): r is Reply => r !== undefined);
}

/** The family's judges, by rule. */
export const NATIVE_JUDGES: Readonly<Record<string, Judge<NativeAnswers>>> = {
  'RPC-01': (a) =>
    onReply('RPC-01', a.blockNumber, ({ id, res }) => {
      const what = `${a.method} on ${a.first}`;
      const problem = envelopeProblem(res, ENVELOPE_ID);
      if (!problem) return judgeSchema(['RPC-01'], id, SCHEMA.rpcBlockNumberResponse, res.json, res.exchange, what);
      return {
        rule: 'RPC-01',
        id,
        verdict: 'fail',
        message: `${what}: ${problem}`,
        evidence: ev(res.exchange, { expected: { jsonrpc: '2.0', id: ENVELOPE_ID, result: 'present' } }),
      };
    }),

  'RPC-02': (a) =>
    onReply('RPC-02', a.blockNumber, ({ id, res }) =>
      judgeSchema(['RPC-02'], id, SCHEMA.rpcBlockNumberResponse, res.json, res.exchange, `${a.method} on ${a.first}`),
    ),

  'RPC-03': (a) =>
    a.networks.flatMap((r) =>
      onReply('RPC-03', r, ({ id, res }): Judgement => {
        const problem = envelopeProblem(res, ENVELOPE_ID);
        const observation = { status: res.status, answers: !problem };
        if (r.optional)
          return {
            rule: 'RPC-03',
            id,
            verdict: 'observed',
            message: `optional network ${r.network}: ${problem ? `not served (${problem})` : 'answers like RPC-01'}`,
            observation,
            exchanges: res.exchange,
          };
        return verdict(
          !problem,
          'RPC-03',
          id,
          `${r.network} answers like RPC-01`,
          `${r.network}: ${problem}`,
          ev(res.exchange, { observation }),
        );
      }),
    ),

  'RPC-04': (a) =>
    a.echoes.flatMap((r) =>
      onReply('RPC-04', r, ({ id, res }) => {
        const got = isObject(res.json) ? res.json.id : undefined;
        return verdict(
          isObject(res.json) && Object.hasOwn(res.json, 'id') && got === r.rid,
          'RPC-04',
          id,
          `id ${JSON.stringify(r.rid)} echoed`,
          `id ${JSON.stringify(r.rid)} came back as ${got === undefined ? 'nothing' : JSON.stringify(got)} (${res.status})`,
          ev(res.exchange, { expected: r.rid, actual: got ?? null, path: 'id' }),
        );
      }),
    ),

  'RPC-05': (a) => standardErrors('RPC-05', a),
  'RPC-06': (a) => standardErrors('RPC-06', a),
  'RPC-07': (a) => standardErrors('RPC-07', a),

  'RPC-08': (a) => [
    ...judgeValidBatch(a.batch, BATCH_IDS),
    ...judgeValidBatch(a.batchOf10, BATCH_OF_10_IDS, servedOf(a) ? BATCH_IDS.length : undefined),
  ],

  'RPC-09': (a) => {
    const served = servedOf(a);
    const notifications = notificationsOf(a.method).length;
    return [
      ...a.notifications.flatMap((r) =>
        onReply('RPC-09', r, (got) =>
          stated('RPC-09', got, judgeNotification(got.res), {
            status: got.res.status,
            bodyShape: bodyShape(got.res.body),
          }),
        ),
      ),
      ...onReply('RPC-09', a.mixedBatch, (got) =>
        stated('RPC-09', got, judgeMixedBatch(got.res, MIXED_BATCH.ids, MIXED_BATCH.notifications), {
          status: got.res.status,
          bodyShape: bodyShape(got.res.body),
          batchesServed: served ?? 'unknown',
        }),
      ),
      ...onReply('RPC-09', a.notificationBatch, (got) =>
        stated('RPC-09', got, judgeNotificationBatch(got.res, notifications, served), {
          status: got.res.status,
          bodyShape: bodyShape(got.res.body),
          batchesServed: served ?? 'unknown',
        }),
      ),
    ];
  },

  'RPC-10': (a) =>
    onReply('RPC-10', a.emptyBatch, (got) =>
      stated('RPC-10', got, judgeEmptyBatch(got.res), { status: got.res.status, bodyShape: bodyShape(got.res.body) }),
    ),

  'RPC-11': (a) => {
    const served = servedOf(a);
    return onReply('RPC-11', a.invalidBatch, (got) =>
      stated('RPC-11', got, judgeInvalidBatch(got.res, INVALID_BATCH_ELEMENTS, served), {
        status: got.res.status,
        bodyShape: bodyShape(got.res.body),
        batchesServed: served ?? 'unknown',
      }),
    );
  },

  // Every Response object read, whatever request it answers; a request that got no answer has none to judge.
  'RPC-12': (a) =>
    everyReply(a).flatMap(({ id, res }) => {
      const shape = res && judgeResponseObjects(res);
      if (!res || !shape) return [];
      return [
        verdict(
          shape.verdict === 'pass',
          'RPC-12',
          id,
          shape.message,
          shape.message,
          ev(res.exchange, { observation: { status: res.status } }),
        ),
      ];
    }),
};
