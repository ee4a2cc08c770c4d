// The native JSON-RPC family's plan (RPC-01..12): the block number on the first network, every
// configured network, id echo, the requests the standard answers with an error, notifications
// (alone and inside batches), the empty batch, batches of valid requests and a batch of
// non-requests. Built from the target alone; it records what each request got, or why it got
// nothing, and never judges (contracts/native-judge.ts does). A sequence's requests go one after
// another (the batches: RPC-09's and RPC-11's judges read whether RPC-08's batch was served); the
// sequences go at once.
import type { ResolvedNative } from '../src/target-file/types.js';
import type { ApiClient, CallResult } from './api.js';
import { lostOf, type Lost } from './checks.js';
import { rpcBody } from './matrix.js';
import type { PlanEnv } from './plan.js';
import { dataAccess, JSON_HEADERS, PATHS, type DataAccess } from './urls.js';

/** Ids whose echo RPC-04 checks: zero, one, the largest exact JSON integer, and a string. */
export const ECHO_IDS: readonly (number | string)[] = [0, 1, Number.MAX_SAFE_INTEGER, 'chainprobe-id-7'];
/** An id the suite uses nowhere else, so an echo cannot match by accident. */
export const ENVELOPE_ID = 4242;
/** A method no node has. */
export const UNKNOWN_METHOD = 'chainprobe_noSuchMethod';
/** The ids of RPC-08's batch of 2 and of its batch of 10. */
export const BATCH_IDS: readonly number[] = [81, 82];
export const BATCH_OF_10_IDS: readonly number[] = Array.from({ length: 10 }, (_v, i) => 101 + i);
/** RPC-09's batch of requests and notifications: these ids, then the first notifications of notificationsOf. */
export const MIXED_BATCH = { ids: [91] as readonly number[], notifications: 1 };
/** The batch of non-requests RPC-11 sends, and its number of elements. */
export const INVALID_BATCH = '[1,2]';
export const INVALID_BATCH_ELEMENTS = 2;

const JSONRPC_ERROR_CAUSE = 'a JSON-RPC request the standard answers with an error';

/** The requests the standard answers with an error object (RPC-05..07), and the code each wants. */
export const STANDARD_ERRORS: readonly { rule: string; what: string; slug: string; body: string; code: number }[] = [
  { rule: 'RPC-05', what: 'unknown method', slug: 'unknown-method', body: rpcBody(UNKNOWN_METHOD, 5), code: -32601 },
  { rule: 'RPC-06', what: 'parse error', slug: 'parse-error', body: '{"jsonrpc":"2.0","id":6,"method":', code: -32700 },
  {
    rule: 'RPC-07',
    what: 'request without method',
    slug: 'invalid-request',
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, params: [] }),
    code: -32600,
  },
];

/** One request of the plan, named by its check id: its answer, or why there is none. */
export type Reply = { id: string } & ({ res: CallResult; lost?: undefined } | { res?: undefined; lost: Lost });

/** What the plan got. A request no selected rule reads is not sent: its reply is absent. */
export interface NativeAnswers {
  /** The method that reads the block number (api.native.blockNumberMethod). */
  method: string;
  /** The first configured network: every request but RPC-03's goes there. */
  first: string;
  /** RPC-01, RPC-02: the block number on the first network. */
  blockNumber?: Reply;
  /** RPC-03: every configured network, then the optional ones. */
  networks: (Reply & { network: string; optional: boolean })[];
  /** RPC-04: the block number asked with each of ECHO_IDS, in order. */
  echoes: (Reply & { rid: number | string })[];
  /** RPC-05..07: a request the standard answers with an error object, and the code it wants. */
  errors: (Reply & { rule: string; code: number })[];
  /** RPC-09: each of notificationsOf alone, in order. */
  notifications: Reply[];
  /** RPC-10: `[]`. */
  emptyBatch?: Reply;
  /** RPC-08: a batch of 2 valid requests (BATCH_IDS); RPC-09's and RPC-11's judges read whether it was served. */
  batch?: Reply;
  /** RPC-08: a batch of 10 valid requests (BATCH_OF_10_IDS). */
  batchOf10?: Reply;
  /** RPC-09: MIXED_BATCH, requests and a notification in one batch. */
  mixedBatch?: Reply;
  /** RPC-09: a batch of notificationsOf alone. */
  notificationBatch?: Reply;
  /** RPC-11: INVALID_BATCH. */
  invalidBatch?: Reply;
}

/** A notification: no id, so the standard lets nothing come back. */
const notification = (method: string) => ({ jsonrpc: '2.0', method, params: [] });

/**
 * RPC-09's notifications, sent alone and then together as a batch: a known method and an unknown
 * one (the standard lets neither a result nor an error come back).
 */
export const notificationsOf = (method: string) => [notification(method), notification(UNKNOWN_METHOD)];

/** Sends the plan's requests that a selected rule (env.wants) reads. */
export async function sendNative(api: ApiClient, env: PlanEnv): Promise<NativeAnswers> {
  const access = dataAccess(env.target.api);
  const native = env.target.api?.native;
  const { wants } = env;
  const first = native?.networks[0];
  const method = native?.blockNumberMethod ?? '';
  const answers: NativeAnswers = {
    method,
    first: first ?? '',
    networks: [],
    echoes: [],
    errors: [],
    notifications: [],
  };
  // Nothing to send to (the family is untestable with this target): every reply absent.
  if (!native || first === undefined || typeof access === 'string') return answers;
  const post = (network: string, body: string, id: string, cause?: string) =>
    postTo(api, access, native, network, body, id, cause);
  const onFirst = (body: string, id: string, cause?: string) => post(first, body, id, cause);
  /** Requests one after another, in the order given. */
  const inTurn = async <T>(steps: (() => Promise<T>)[]): Promise<T[]> => {
    const out: T[] = [];
    for (const step of steps) out.push(await step());
    return out;
  };

  const sequences: Promise<unknown>[] = [];

  if (wants('RPC-01', 'RPC-02', 'RPC-12'))
    sequences.push(
      onFirst(rpcBody(method, ENVELOPE_ID), `native.block-number[${first}]`).then((r) => (answers.blockNumber = r)),
    );

  if (wants('RPC-03', 'RPC-12'))
    sequences.push(
      Promise.all(
        [...native.networks, ...native.optionalNetworks].map(async (network) => {
          const optional = !native.networks.includes(network);
          const reply = await post(
            network,
            rpcBody(method, ENVELOPE_ID),
            `native.network[${network}]`,
            optional ? 'an optional network' : undefined,
          );
          return { ...reply, network, optional };
        }),
      ).then((rs) => (answers.networks = rs)),
    );

  if (wants('RPC-04', 'RPC-12'))
    sequences.push(
      inTurn(
        ECHO_IDS.map((rid) => async () => {
          const reply = await onFirst(
            rpcBody(method, rid),
            `native.id-echo[${typeof rid === 'string' ? 'string' : rid}]`,
          );
          return { ...reply, rid };
        }),
      ).then((rs) => (answers.echoes = rs)),
    );

  const errors = STANDARD_ERRORS.filter((e) => wants(e.rule, 'RPC-12'));
  if (errors.length)
    sequences.push(
      Promise.all(
        errors.map(async (e) => {
          const reply = await onFirst(e.body, `native.${e.slug}[${first}]`, JSONRPC_ERROR_CAUSE);
          return { ...reply, rule: e.rule, code: e.code };
        }),
      ).then((rs) => (answers.errors = rs)),
    );

  const notifications = notificationsOf(method);
  if (wants('RPC-09', 'RPC-12'))
    sequences.push(
      inTurn(
        notifications.map(
          (n) => () =>
            onFirst(
              JSON.stringify(n),
              `native.notification[${n.method === method ? 'known' : 'unknown'}-method]`,
              'a notification',
            ),
        ),
      ).then((rs) => (answers.notifications = rs)),
    );

  if (wants('RPC-10', 'RPC-12'))
    sequences.push(
      onFirst('[]', `native.empty-batch[${first}]`, JSONRPC_ERROR_CAUSE).then((r) => (answers.emptyBatch = r)),
    );

  // The batches one after another: RPC-09's and RPC-11's escapes (a node without batches) are read off the batch of 2.
  if (wants('RPC-08', 'RPC-09', 'RPC-11', 'RPC-12'))
    sequences.push(
      (async () => {
        const call = (rid: number) => JSON.parse(rpcBody(method, rid)) as unknown;
        const batchOf = (ids: readonly number[]) => JSON.stringify(ids.map(call));
        answers.batch = await onFirst(batchOf(BATCH_IDS), `native.batch[${first}]`, 'a batch request');
        // A larger batch: a size limit (one error for the whole batch) is the node's choice, observed.
        if (wants('RPC-08'))
          answers.batchOf10 = await onFirst(
            batchOf(BATCH_OF_10_IDS),
            `native.batch-of-10[${first}]`,
            'a batch request',
          );
        // Notifications inside batches: a known method and an unknown one, as in the single case.
        if (wants('RPC-09')) {
          answers.mixedBatch = await onFirst(
            JSON.stringify([...MIXED_BATCH.ids.map(call), ...notifications.slice(0, MIXED_BATCH.notifications)]),
            `native.batch-notification[${first}]`,
            'a batch with a notification',
          );
          answers.notificationBatch = await onFirst(
            JSON.stringify(notifications),
            `native.batch-notifications-only[${first}]`,
            'a batch of notifications',
          );
        }
        if (wants('RPC-11', 'RPC-12'))
          answers.invalidBatch = await onFirst(INVALID_BATCH, `native.invalid-batch[${first}]`, JSONRPC_ERROR_CAUSE);
      })(),
    );

  await Promise.all(sequences);
  return answers;
}

/** One JSON-RPC request; a could-not-test failure (budget, timeout, network) is its reply's `lost`. */
async function postTo(
  api: ApiClient,
  a: DataAccess,
  n: ResolvedNative,
  network: string,
  body: string,
  id: string,
  cause?: string,
): Promise<Reply> {
  try {
    const res = await api.call({
      purpose: id,
      method: 'POST',
      url: a.base + PATHS.native(n.protocol, network),
      headers: JSON_HEADERS,
      body,
      auth: a.auth,
      cause,
    });
    return { id, res };
  } catch (e) {
    return { id, lost: lostOf(e) };
  }
}
