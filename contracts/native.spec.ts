// Native JSON-RPC (RPC-01..08): the envelope and the block-number result, every configured
// network, id echo, the standard error codes, and (observed) batches and notifications.
import { RULES } from '../src/rules/catalogue.js';
import type { ResolvedNative } from '../src/target/types.js';
import { SCHEMA } from '../src/schemas/validate.js';
import type { ApiClient, CallResult } from './api.js';
import { ev, type Checks } from './checks.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { rpcBody } from './matrix.js';
import { bodyShape, mediaType } from './shape.js';
import { dataAccess, JSON_HEADERS, PATHS, type DataAccess } from './urls.js';

const spec = new Spec('native');
const target = suiteEnv().target;
const access = dataAccess(target.api);
const native = target.api?.native;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Ids whose echo RPC-04 checks: zero, one, the largest exact JSON integer, and a string. */
const ECHO_IDS: readonly (number | string)[] = [0, 1, Number.MAX_SAFE_INTEGER, 'chainprobe-id-7'];
/** An id the suite uses nowhere else, so an echo cannot match by accident. */
const ENVELOPE_ID = 4242;
const JSONRPC_ERROR_CAUSE = 'a JSON-RPC request the standard answers with an error';

function post(api: ApiClient, a: DataAccess, n: ResolvedNative, network: string, body: string, purpose: string, cause?: string): Promise<CallResult> {
  return api.call({ purpose, method: 'POST', url: a.base + PATHS.native(n.protocol, network), headers: JSON_HEADERS, body, auth: a.auth, cause });
}

/** RPC-01's conditions, as a problem line (undefined: all hold). */
function envelopeProblem(res: CallResult, id: number | string): string | undefined {
  if (!res.ok) return `answered ${res.status}`;
  const j = res.json;
  if (!isObject(j)) return 'the body is not a JSON object';
  if (j.jsonrpc !== '2.0') return `jsonrpc is ${JSON.stringify(j.jsonrpc)}, not "2.0"`;
  if (!Object.hasOwn(j, 'id') || j.id !== id) return `id is ${JSON.stringify(j.id)}, not the request's ${JSON.stringify(id)}`;
  if (!Object.hasOwn(j, 'result')) return `no result${isObject(j.error) ? ` (error ${String(j.error.code)}: ${String(j.error.message)})` : ''}`;
  return undefined;
}

function errorCodeOf(json: unknown): unknown {
  return isObject(json) && isObject(json.error) ? json.error.code : undefined;
}

function standardError(check: Checks, rule: string, id: string, res: CallResult, code: number, extra: (j: Record<string, unknown>) => string | undefined): void {
  const j = res.json;
  const got = errorCodeOf(j);
  const problem = !isObject(j) ? `the body is not a JSON object (${res.status})` : got !== code ? `error code is ${JSON.stringify(got)}, not ${code}` : extra(j);
  check.verdict(!problem, rule, id, `error ${code} as the standard says (${res.status})`, problem ?? '', ev(res.exchange, { expected: { error: { code } }, actual: isObject(j) ? { error: j.error, id: j.id } : res.status, observation: { status: res.status } }));
}

if (native && typeof access !== 'string') {
  const first = native.networks[0]!;

  spec.contract(`block number on ${first}`, ['RPC-01', 'RPC-02'], async ({ api, check }) => {
    const id = `native.block-number[${first}]`;
    await check.guard(['RPC-01', 'RPC-02'], id, async () => {
      const res = await post(api, access, native, first, rpcBody(native.blockNumberMethod, ENVELOPE_ID), id);
      const problem = envelopeProblem(res, ENVELOPE_ID);
      if (problem) {
        check.fail('RPC-01', id, `${native.blockNumberMethod} on ${first}: ${problem}`, ev(res.exchange, { expected: { jsonrpc: '2.0', id: ENVELOPE_ID, result: 'present' } }));
        check.schema(['RPC-02'], id, SCHEMA.rpcBlockNumberResponse, res.json, res.exchange, `${native.blockNumberMethod} on ${first}`);
        return;
      }
      check.schema(['RPC-01', 'RPC-02'], id, SCHEMA.rpcBlockNumberResponse, res.json, res.exchange, `${native.blockNumberMethod} on ${first}`);
    });
  });

  for (const network of [...native.networks, ...native.optionalNetworks]) {
    const optional = !native.networks.includes(network);
    spec.contract(`${optional ? 'optional ' : ''}network ${network}`, ['RPC-03'], async ({ api, check }) => {
      const id = `native.network[${network}]`;
      await check.guard('RPC-03', id, async () => {
        const res = await post(api, access, native, network, rpcBody(native.blockNumberMethod, ENVELOPE_ID), id, optional ? 'an optional network' : undefined);
        const problem = envelopeProblem(res, ENVELOPE_ID);
        const observation = { status: res.status, answers: !problem };
        if (optional) check.observe('RPC-03', id, `optional network ${network}: ${problem ? `not served (${problem})` : 'answers like RPC-01'}`, observation, res.exchange);
        else check.verdict(!problem, 'RPC-03', id, `${network} answers like RPC-01`, `${network}: ${problem}`, ev(res.exchange, { observation }));
      });
    });
  }

  spec.contract(`id echo on ${first}`, ['RPC-04'], async ({ api, check }) => {
    for (const rid of ECHO_IDS) {
      const id = `native.id-echo[${typeof rid === 'string' ? 'string' : rid}]`;
      await check.guard('RPC-04', id, async () => {
        const res = await post(api, access, native, first, rpcBody(native.blockNumberMethod, rid), id);
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
  }, { requests: ECHO_IDS.length + 1 });

  spec.contract(`unknown method on ${first}`, ['RPC-05'], async ({ api, check }) => {
    const id = `native.unknown-method[${first}]`;
    await check.guard('RPC-05', id, async () => {
      const res = await post(api, access, native, first, rpcBody('chainprobe_noSuchMethod', 5), id, JSONRPC_ERROR_CAUSE);
      standardError(check, 'RPC-05', id, res, -32601, (j) => (Object.hasOwn(j, 'result') ? `a result is present beside the error (${JSON.stringify(j.result)})` : undefined));
    });
  });

  spec.contract(`parse error on ${first}`, ['RPC-06'], async ({ api, check }) => {
    const id = `native.parse-error[${first}]`;
    await check.guard('RPC-06', id, async () => {
      const res = await post(api, access, native, first, '{"jsonrpc":"2.0","id":6,"method":', id, JSONRPC_ERROR_CAUSE);
      standardError(check, 'RPC-06', id, res, -32700, (j) => (!Object.hasOwn(j, 'id') || j.id !== null ? `id is ${JSON.stringify(j.id)}, not null` : undefined));
    });
  });

  spec.contract(`request without method on ${first}`, ['RPC-07'], async ({ api, check }) => {
    const id = `native.invalid-request[${first}]`;
    await check.guard('RPC-07', id, async () => {
      const res = await post(api, access, native, first, JSON.stringify({ jsonrpc: '2.0', id: 7, params: [] }), id, JSONRPC_ERROR_CAUSE);
      standardError(check, 'RPC-07', id, res, -32600, () => undefined);
    });
  });

  spec.contract(`batch and notification on ${first}`, ['RPC-08'], async ({ api, check }) => {
    const batchId = `native.batch[${first}]`;
    await check.guard('RPC-08', batchId, async () => {
      const body = JSON.stringify([JSON.parse(rpcBody(native.blockNumberMethod, 81)), JSON.parse(rpcBody(native.blockNumberMethod, 82))]);
      const res = await post(api, access, native, first, body, batchId, 'a batch request');
      const ids = Array.isArray(res.json) ? res.json.map((r) => (isObject(r) ? r.id : undefined)) : undefined;
      check.observe('RPC-08', batchId, `batch of 2: ${res.status}, ${Array.isArray(res.json) ? `an array of ${res.json.length} answer(s)` : 'not an array'}`, {
        status: res.status,
        contentType: mediaType(res.headers) ?? 'none',
        bodyShape: bodyShape(res.body),
        answers: ids?.length ?? 0,
        idsAnswered: ids ? [...ids].map(String).sort() : [],
      }, res.exchange);
    });
    const noteId = `native.notification[${first}]`;
    await check.guard('RPC-08', noteId, async () => {
      const res = await post(api, access, native, first, JSON.stringify({ jsonrpc: '2.0', method: native.blockNumberMethod, params: [] }), noteId, 'a notification');
      check.observe('RPC-08', noteId, `notification: ${res.status}, body ${res.body.trim() ? 'present' : 'empty'}`, { status: res.status, bodyShape: bodyShape(res.body) }, res.exchange);
    });
  });
}

spec.coverRest(
  RULES.filter((r) => r.section === 'RPC').map((r) => r.id),
  () => (typeof access === 'string' ? access : !native ? 'target has no api.native section' : 'not testable with this target'),
);
