// The native JSON-RPC works (RPC-01..12) the native spec's rule tests judge: the envelope and the
// block-number result, every configured network, id echo, the standard error codes, notifications
// (alone and inside batches), the empty batch and a batch of non-requests, (observed) batches of
// valid requests, and RPC-12 on every answer read.
import type { ResolvedNative } from '../src/target-file/types.js';
import { SCHEMA } from '../src/schemas/validate.js';
import type { ApiClient, CallResult } from './api.js';
import { ev, type Checks } from './checks.js';
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
import { rpcBody } from './matrix.js';
import { bodyShape, mediaType } from './shape.js';
import { dataAccess, JSON_HEADERS, PATHS, type DataAccess } from './urls.js';
import { isObject } from './json.js';

import { hostOf, WorkList, type FamilyWork, type WorkEnv } from './work.js';

/** Ids whose echo RPC-04 checks: zero, one, the largest exact JSON integer, and a string. */
const ECHO_IDS: readonly (number | string)[] = [0, 1, Number.MAX_SAFE_INTEGER, 'chainprobe-id-7'];
/** An id the suite uses nowhere else, so an echo cannot match by accident. */
const ENVELOPE_ID = 4242;
const JSONRPC_ERROR_CAUSE = 'a JSON-RPC request the standard answers with an error';

/**
 * One JSON-RPC exchange. Every answer read is also judged on RPC-12 (the Response objects in it),
 * here, so no read escapes it.
 */
async function post(
  api: ApiClient,
  check: Checks,
  a: DataAccess,
  n: ResolvedNative,
  network: string,
  body: string,
  purpose: string,
  cause?: string,
): Promise<CallResult> {
  const res = await api.call({
    purpose,
    method: 'POST',
    url: a.base + PATHS.native(n.protocol, network),
    headers: JSON_HEADERS,
    body,
    auth: a.auth,
    cause,
  });
  const shape = judgeResponseObjects(res);
  if (shape)
    check.verdict(
      shape.verdict === 'pass',
      'RPC-12',
      purpose,
      shape.message,
      shape.message,
      ev(res.exchange, { observation: { status: res.status } }),
    );
  return res;
}

/** A judgement of jsonrpc.ts as a check. */
function record(
  check: Checks,
  rule: string,
  id: string,
  j: RpcJudgement,
  res: CallResult,
  observation: Record<string, unknown>,
): void {
  if (j.verdict === 'observed') check.observe(rule, id, j.message, observation, res.exchange);
  else if (j.verdict === 'error') check.error(rule, id, j.message, ev(res.exchange, { observation }));
  else check.verdict(j.verdict === 'pass', rule, id, j.message, j.message, ev(res.exchange, { observation }));
}

/** RPC-01's conditions, as a problem line (undefined: all hold). */
function envelopeProblem(res: CallResult, id: number | string): string | undefined {
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

/** The error code a rule wants. Its type (integer, not string) is RPC-12's to judge, on the same answer. */
function standardError(
  check: Checks,
  rule: string,
  id: string,
  res: CallResult,
  code: number,
  extra: (j: Record<string, unknown>) => string | undefined,
): void {
  const j = res.json;
  const got = errorCodeOf(j);
  const raw = isObject(j) && isObject(j.error) ? j.error.code : undefined;
  const problem = !isObject(j)
    ? `the body is not a JSON object (${res.status})`
    : got !== code
      ? `error code is ${JSON.stringify(raw)}, not ${code}`
      : extra(j);
  const asString = typeof raw === 'string' ? ' (the code written as a string: RPC-12)' : '';
  check.verdict(
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

/**
 * The native JSON-RPC works: each one's requests go one after another (a batch's order); the works
 * go at once (contracts/shared-work.ts), or from the contract stage (contracts/stage-work.ts).
 */
export function nativeWorks(env: WorkEnv): FamilyWork[] {
  const access = dataAccess(env.target.api);
  const native = env.target.api?.native;
  const works = new WorkList(typeof access === 'string' ? [] : [hostOf(access.base)]);
  if (native && typeof access !== 'string') {
    const first = native.networks[0]!;

    works.contract(`block number on ${first}`, ['RPC-01', 'RPC-02', 'RPC-12'], async ({ api, check }) => {
      const id = `native.block-number[${first}]`;
      await check.guard(['RPC-01', 'RPC-02'], id, async () => {
        const res = await post(api, check, access, native, first, rpcBody(native.blockNumberMethod, ENVELOPE_ID), id);
        const problem = envelopeProblem(res, ENVELOPE_ID);
        if (problem) {
          check.fail(
            'RPC-01',
            id,
            `${native.blockNumberMethod} on ${first}: ${problem}`,
            ev(res.exchange, { expected: { jsonrpc: '2.0', id: ENVELOPE_ID, result: 'present' } }),
          );
          check.schema(
            ['RPC-02'],
            id,
            SCHEMA.rpcBlockNumberResponse,
            res.json,
            res.exchange,
            `${native.blockNumberMethod} on ${first}`,
          );
          return;
        }
        check.schema(
          ['RPC-01', 'RPC-02'],
          id,
          SCHEMA.rpcBlockNumberResponse,
          res.json,
          res.exchange,
          `${native.blockNumberMethod} on ${first}`,
        );
      });
    });

    for (const network of [...native.networks, ...native.optionalNetworks]) {
      const optional = !native.networks.includes(network);
      works.contract(
        `${optional ? 'optional ' : ''}network ${network}`,
        ['RPC-03', 'RPC-12'],
        async ({ api, check }) => {
          const id = `native.network[${network}]`;
          await check.guard('RPC-03', id, async () => {
            const res = await post(
              api,
              check,
              access,
              native,
              network,
              rpcBody(native.blockNumberMethod, ENVELOPE_ID),
              id,
              optional ? 'an optional network' : undefined,
            );
            const problem = envelopeProblem(res, ENVELOPE_ID);
            const observation = { status: res.status, answers: !problem };
            if (optional)
              check.observe(
                'RPC-03',
                id,
                `optional network ${network}: ${problem ? `not served (${problem})` : 'answers like RPC-01'}`,
                observation,
                res.exchange,
              );
            else
              check.verdict(
                !problem,
                'RPC-03',
                id,
                `${network} answers like RPC-01`,
                `${network}: ${problem}`,
                ev(res.exchange, { observation }),
              );
          });
        },
      );
    }

    works.contract(
      `id echo on ${first}`,
      ['RPC-04', 'RPC-12'],
      async ({ api, check }) => {
        for (const rid of ECHO_IDS) {
          const id = `native.id-echo[${typeof rid === 'string' ? 'string' : rid}]`;
          await check.guard('RPC-04', id, async () => {
            const res = await post(api, check, access, native, first, rpcBody(native.blockNumberMethod, rid), id);
            const got = isObject(res.json) ? res.json.id : undefined;
            check.verdict(
              isObject(res.json) && Object.hasOwn(res.json, 'id') && got === rid,
              'RPC-04',
              id,
              `id ${JSON.stringify(rid)} echoed`,
              `id ${JSON.stringify(rid)} came back as ${got === undefined ? 'nothing' : JSON.stringify(got)} (${res.status})`,
              ev(res.exchange, { expected: rid, actual: got ?? null, path: 'id' }),
            );
          });
        }
      },
      { requests: ECHO_IDS.length + 1 },
    );

    /** The requests the standard answers with an error object (RPC-05..07), the code each wants, and what else it asks. */
    const standardErrors: {
      rule: string;
      what: string;
      slug: string;
      body: string;
      code: number;
      extra: (j: Record<string, unknown>) => string | undefined;
    }[] = [
      {
        rule: 'RPC-05',
        what: 'unknown method',
        slug: 'unknown-method',
        body: rpcBody('chainprobe_noSuchMethod', 5),
        code: -32601,
        extra: (j) =>
          Object.hasOwn(j, 'result') ? `a result is present beside the error (${JSON.stringify(j.result)})` : undefined,
      },
      {
        rule: 'RPC-06',
        what: 'parse error',
        slug: 'parse-error',
        body: '{"jsonrpc":"2.0","id":6,"method":',
        code: -32700,
        extra: (j) =>
          !Object.hasOwn(j, 'id') || j.id !== null ? `id is ${JSON.stringify(j.id)}, not null` : undefined,
      },
      {
        rule: 'RPC-07',
        what: 'request without method',
        slug: 'invalid-request',
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, params: [] }),
        code: -32600,
        extra: () => undefined,
      },
    ];
    for (const e of standardErrors)
      works.contract(`${e.what} on ${first}`, [e.rule, 'RPC-12'], async ({ api, check }) => {
        const id = `native.${e.slug}[${first}]`;
        await check.guard(e.rule, id, async () => {
          const res = await post(api, check, access, native, first, e.body, id, JSONRPC_ERROR_CAUSE);
          standardError(check, e.rule, id, res, e.code, e.extra);
        });
      });

    works.contract(`notifications on ${first}`, ['RPC-09', 'RPC-12'], async ({ api, check }) => {
      // A known method and an unknown one: the standard lets neither a result nor an error come back.
      for (const method of [native.blockNumberMethod, 'chainprobe_noSuchMethod']) {
        const id = `native.notification[${method === native.blockNumberMethod ? 'known' : 'unknown'}-method]`;
        await check.guard('RPC-09', id, async () => {
          const res = await post(
            api,
            check,
            access,
            native,
            first,
            JSON.stringify({ jsonrpc: '2.0', method, params: [] }),
            id,
            'a notification',
          );
          record(check, 'RPC-09', id, judgeNotification(res), res, {
            status: res.status,
            bodyShape: bodyShape(res.body),
          });
        });
      }
    });

    works.contract(`empty batch on ${first}`, ['RPC-10', 'RPC-12'], async ({ api, check }) => {
      const id = `native.empty-batch[${first}]`;
      await check.guard('RPC-10', id, async () => {
        const res = await post(api, check, access, native, first, '[]', id, JSONRPC_ERROR_CAUSE);
        record(check, 'RPC-10', id, judgeEmptyBatch(res), res, { status: res.status, bodyShape: bodyShape(res.body) });
      });
    });

    // RPC-09's and RPC-11's escapes (a node without batches) are read off RPC-08's batch of 2, so they go together.
    works.contract(
      `batches on ${first}`,
      ['RPC-08', 'RPC-09', 'RPC-11', 'RPC-12'],
      async ({ api, check }) => {
        const call = (rid: number) => JSON.parse(rpcBody(native.blockNumberMethod, rid)) as unknown;
        const batchOf = (ids: readonly number[]) => JSON.stringify(ids.map(call));
        /** RPC-08 on a batch of valid requests; whether an array came back (undefined: could not tell). */
        const validBatch = async (id: string, ids: readonly number[], servedAt?: number) => {
          let served: boolean | undefined;
          await check.guard('RPC-08', id, async () => {
            const res = await post(api, check, access, native, first, batchOf(ids), id, 'a batch request');
            served = batchServed(res);
            const { message, observation } = describeBatch(res, ids, servedAt);
            if (served === undefined) check.error('RPC-08', id, message, ev(res.exchange));
            else
              check.observe(
                'RPC-08',
                id,
                message,
                { ...observation, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) },
                res.exchange,
              );
          });
          return served;
        };
        const served = await validBatch(`native.batch[${first}]`, [81, 82]);
        // A larger batch: a size limit (one error for the whole batch) is the node's choice, observed.
        if (check.wants('RPC-08'))
          await validBatch(
            `native.batch-of-10[${first}]`,
            Array.from({ length: 10 }, (_v, i) => 101 + i),
            served ? 2 : undefined,
          );
        // Notifications inside batches: a known method and an unknown one, as in the single case.
        const notification = (method: string) => ({ jsonrpc: '2.0', method, params: [] });
        const notifications = [notification(native.blockNumberMethod), notification('chainprobe_noSuchMethod')];
        const mixedId = `native.batch-notification[${first}]`;
        if (check.wants('RPC-09'))
          await check.guard('RPC-09', mixedId, async () => {
            const body = JSON.stringify([call(91), notifications[0]]);
            const res = await post(api, check, access, native, first, body, mixedId, 'a batch with a notification');
            record(check, 'RPC-09', mixedId, judgeMixedBatch(res, [91], 1), res, {
              status: res.status,
              bodyShape: bodyShape(res.body),
              batchesServed: served ?? 'unknown',
            });
          });
        const onlyId = `native.batch-notifications-only[${first}]`;
        if (check.wants('RPC-09'))
          await check.guard('RPC-09', onlyId, async () => {
            const body = JSON.stringify(notifications);
            const res = await post(api, check, access, native, first, body, onlyId, 'a batch of notifications');
            record(check, 'RPC-09', onlyId, judgeNotificationBatch(res, notifications.length, served), res, {
              status: res.status,
              bodyShape: bodyShape(res.body),
              batchesServed: served ?? 'unknown',
            });
          });
        const invalidId = `native.invalid-batch[${first}]`;
        await check.guard('RPC-11', invalidId, async () => {
          const res = await post(api, check, access, native, first, '[1,2]', invalidId, JSONRPC_ERROR_CAUSE);
          record(check, 'RPC-11', invalidId, judgeInvalidBatch(res, 2, served), res, {
            status: res.status,
            bodyShape: bodyShape(res.body),
            batchesServed: served ?? 'unknown',
          });
        });
      },
      { requests: 6 },
    );
  }
  return works.list;
}
