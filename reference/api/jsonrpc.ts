// JSON-RPC 2.0 as the native endpoint speaks it: a pure function from the request body to the
// answer, so the spec's edge cases (parse errors, invalid requests, batches, notifications) are
// decided in one place. HTTP status is always 200 for an answer; "no answer" is for the caller
// to render (204 by default).
import { apiFault } from '../faults/api.js';
import { apiVariant } from './variants.js';
import type { ReferenceOptions } from '../options.js';
import type { NativeNetwork } from './networks.js';

export const RPC_ERRORS = {
  parse: { code: -32700, message: 'Parse error' },
  invalidRequest: { code: -32600, message: 'Invalid Request' },
  methodNotFound: { code: -32601, message: 'Method not found' },
  invalidParams: { code: -32602, message: 'Invalid params' },
} as const;

export const MAX_BATCH = 100;
/** The batch size limit of the `batch-limit-5` variant. */
export const SMALL_MAX_BATCH = 5;

export interface RpcEnv {
  network: NativeNetwork;
  head: () => number;
  opts: Pick<ReferenceOptions, 'faults' | 'variants'>;
}

/** `json`: send body with 200. `none`: every request was a notification, nothing to send. */
export type RpcAnswer = { kind: 'json'; body: unknown } | { kind: 'none' };

type Id = string | number | null;

/** Canonical hex quantity: `0x` + hex digits without leading zeros, `0x0` for zero. */
export function toQuantity(n: number | bigint): string {
  return `0x${n.toString(16)}`;
}

/** Each method takes no arguments; more gets -32602, as geth answers ("too many arguments"). */
const METHODS: Record<string, (env: RpcEnv) => unknown> = {
  eth_blockNumber: (env) => {
    const hex = env.head().toString(16);
    return apiFault(env.opts, 'hex-leading-zero') ? `0x${hex.padStart(16, '0')}` : `0x${hex}`;
  },
  eth_chainId: (env) => toQuantity(env.network.chainId),
  net_version: (env) => String(env.network.chainId),
  eth_syncing: () => false,
  web3_clientVersion: () => 'chainprobe-reference/0.1.0',
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isValidId = (v: unknown): v is Id => typeof v === 'string' || typeof v === 'number' || v === null;

function echoId(id: Id, env: RpcEnv): Id {
  if (typeof id === 'string' && apiFault(env.opts, 'rpc-id-as-number')) {
    const n = Number(id);
    return Number.isFinite(n) ? n : null;
  }
  if (typeof id === 'number' && apiFault(env.opts, 'rpc-id-int32')) return id | 0;
  return id;
}

function errorReply(error: { code: number; message: string }, id: Id, env: RpcEnv, data?: string): object {
  const code: number | string = apiFault(env.opts, 'error-code-string') ? String(error.code) : error.code;
  const err = { code, message: error.message, ...(data === undefined ? {} : { data }) };
  return { jsonrpc: '2.0', id: echoId(id, env), error: err };
}

/** One request object; undefined means a notification (no reply). */
function answerOne(req: unknown, env: RpcEnv, inBatch: boolean): object | undefined {
  if (!isObject(req)) {
    const reply = errorReply(RPC_ERRORS.invalidRequest, null, env, 'request must be an object');
    if (inBatch && apiFault(env.opts, 'batch-invalid-element-no-id')) delete (reply as { id?: Id }).id;
    return reply;
  }
  const hasId = Object.hasOwn(req, 'id');
  // Faults notification-answered (everywhere) and batch-notification-answered (inside a batch):
  // a request without id is answered like a call, with id null.
  const answered =
    apiFault(env.opts, 'notification-answered') || (inBatch && apiFault(env.opts, 'batch-notification-answered'));
  const silent = !hasId && !answered;
  const idValid = !hasId || isValidId(req.id);
  const id: Id = hasId && idValid ? (req.id as Id) : null;
  if (req.jsonrpc !== '2.0') return errorReply(RPC_ERRORS.invalidRequest, id, env, 'jsonrpc must be "2.0"');
  if (!Object.hasOwn(req, 'method')) {
    const e = apiFault(env.opts, 'missing-method-wrong-code') ? RPC_ERRORS.methodNotFound : RPC_ERRORS.invalidRequest;
    return errorReply(e, id, env, 'method is missing');
  }
  if (typeof req.method !== 'string') return errorReply(RPC_ERRORS.invalidRequest, id, env, 'method must be a string');
  if (!idValid) return errorReply(RPC_ERRORS.invalidRequest, null, env, 'id must be a string, a number or null');
  const params = req.params;
  if (params !== undefined && !Array.isArray(params) && !isObject(params)) {
    return errorReply(RPC_ERRORS.invalidRequest, id, env, 'params must be an array or an object');
  }
  const method = Object.hasOwn(METHODS, req.method) ? METHODS[req.method] : undefined;
  if (!method) {
    if (silent) return undefined;
    if (apiFault(env.opts, 'unknown-method-returns-result'))
      return { jsonrpc: '2.0', id: echoId(id, env), result: null };
    return errorReply(RPC_ERRORS.methodNotFound, id, env);
  }
  const argCount = Array.isArray(params) ? params.length : isObject(params) ? Object.keys(params).length : 0;
  if (argCount > 0)
    return !silent ? errorReply(RPC_ERRORS.invalidParams, id, env, `too many arguments, want at most 0`) : undefined;
  const result = method(env);
  if (silent) return undefined;
  const version = apiFault(env.opts, 'rpc-wrong-jsonrpc-version') ? '1.0' : '2.0';
  return { jsonrpc: version, id: echoId(id, env), result };
}

export function answerRpc(body: string, env: RpcEnv): RpcAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const id = apiFault(env.opts, 'parse-error-with-id') ? 0 : null;
    return { kind: 'json', body: errorReply(RPC_ERRORS.parse, id, env) };
  }
  if (!Array.isArray(parsed)) {
    const one = answerOne(parsed, env, false);
    return one ? { kind: 'json', body: one } : { kind: 'none' };
  }
  if (parsed.length === 0) {
    if (apiFault(env.opts, 'empty-batch-array')) return { kind: 'json', body: [] };
    return { kind: 'json', body: errorReply(RPC_ERRORS.invalidRequest, null, env, 'empty batch') };
  }
  if (apiVariant(env.opts, 'batches-not-served'))
    return { kind: 'json', body: errorReply(RPC_ERRORS.invalidRequest, null, env, 'batch requests are not supported') };
  const max = apiVariant(env.opts, 'batch-limit-5') ? SMALL_MAX_BATCH : MAX_BATCH;
  if (parsed.length > max)
    return { kind: 'json', body: errorReply(RPC_ERRORS.invalidRequest, null, env, `batch over ${max} requests`) };
  const replies = parsed.map((r) => answerOne(r, env, true)).filter((r): r is object => r !== undefined);
  return replies.length ? { kind: 'json', body: replies } : { kind: 'none' };
}
