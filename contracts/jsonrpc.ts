// JSON-RPC 2.0 as the standard has it, over one answer of the native endpoint: what makes a
// Response object well formed (section 5, RPC-12), what a notification gets (4.1, RPC-09), and
// what batches get (6, RPC-08/10/11). Pure functions of status and body, so the native spec reads
// like the rules and every wording is pinned by unit tests. Messages say what the target did.
import { SCHEMA, validate } from '../src/schemas/validate.js';
import { isObject } from './json.js';

/** The parts of an HTTP answer these judgements read. */
export interface RpcAnswer {
  status: number;
  body: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  json: unknown;
}

export type RpcJudgement = { verdict: 'pass' | 'fail' | 'error' | 'observed'; message: string };

const is2xx = (status: number) => status >= 200 && status < 300;
const MAX_SHOWN = 60;

/** A JSON value in a few characters, for messages. */
export function brief(v: unknown): string {
  const s = v === undefined ? 'nothing' : JSON.stringify(v);
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN - 1)}…` : s;
}

/**
 * The Response objects of an answer. A 2xx body is the endpoint's reply, so every object in it
 * (or every element of an array) counts; a non-2xx body counts only when it says it is JSON-RPC
 * (a `jsonrpc` member), so a proxy's or gateway's own error JSON is not judged as JSON-RPC.
 */
export function responseObjectsOf(a: RpcAnswer): unknown[] {
  const j = a.json;
  const list = Array.isArray(j) ? j : isObject(j) ? [j] : [];
  if (is2xx(a.status)) return list;
  return list.some((v) => isObject(v) && Object.hasOwn(v, 'jsonrpc')) ? list : [];
}

/**
 * RPC-12: what is wrong with one Response object, as short phrases ([] when nothing is). The
 * schemas say what a success and an error response are; an object with an `error` member is
 * judged as an error response, any other as a success response.
 */
export function responseObjectProblems(v: unknown): string[] {
  if (!isObject(v)) return [`${brief(v)} where a Response object belongs`];
  const isError = Object.hasOwn(v, 'error');
  const kind = isError ? 'error response' : Object.hasOwn(v, 'result') ? 'success response' : 'response';
  return validate(isError ? SCHEMA.rpcErrorResponse : SCHEMA.rpcSuccess, v).map((p) =>
    p.actual === 'missing' ? `${kind} without ${p.path}` : `${kind}: ${p.message}`,
  );
}

/** RPC-12 over a whole answer: undefined when it holds no Response object to judge. */
export function judgeResponseObjects(a: RpcAnswer): RpcJudgement | undefined {
  const objects = responseObjectsOf(a);
  if (objects.length === 0) return undefined;
  const batch = Array.isArray(a.json);
  const problems = objects.flatMap((v, i) => responseObjectProblems(v).map((p) => (batch ? `[${i}] ${p}` : p)));
  if (problems.length === 0) return { verdict: 'pass', message: `${objects.length} Response object(s) well formed` };
  return { verdict: 'fail', message: `${problems[0]}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}` };
}

/**
 * The error code's value. A code written as a decimal string counts as its number here, so
 * the rules that want a given code judge the code and RPC-12 alone judges its type.
 */
export function errorCodeOf(v: unknown): number | undefined {
  const code = isObject(v) && isObject(v.error) ? v.error.code : undefined;
  if (typeof code === 'number') return code;
  if (typeof code === 'string' && /^-?\d+$/.test(code)) return Number(code);
  return undefined;
}

/** What a reply is, in a few words: `error -32600`, `a result (id null)`, `an array of 2`. */
export function describeReply(v: unknown): string {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `an array of ${v.length}`;
  if (!isObject(v)) return brief(v);
  if (isObject(v.error)) return `error ${brief(v.error.code)}`;
  if (Object.hasOwn(v, 'result')) return `a result (id ${Object.hasOwn(v, 'id') ? brief(v.id) : 'absent'})`;
  return brief(v);
}

/** Answers that say "not now" rather than anything about JSON-RPC: a rule cannot be judged on them. */
function unavailable(a: RpcAnswer): RpcJudgement | undefined {
  return [429, 502, 503, 504].includes(a.status)
    ? { verdict: 'error', message: `answered ${a.status}, so what the node does could not be seen` }
    : undefined;
}

/**
 * RPC-09: a notification gets no Response object, whatever the status. The rule's form of that is
 * an empty body; a body that holds no Response object (`null`, a word) still replies nothing in
 * JSON-RPC terms, so it passes, with the body named.
 */
export function judgeNotification(a: RpcAnswer): RpcJudgement {
  if (a.body.trim() === '') return { verdict: 'pass', message: `no Response object (${a.status}, empty body)` };
  const replies = responseObjectsOf(a);
  if (replies.length)
    return { verdict: 'fail', message: `replied to a notification with ${describeReply(a.json)} (${a.status})` };
  return (
    unavailable(a) ?? {
      verdict: 'pass',
      message: `no Response object, though the body is not empty (${a.status}, ${a.json === undefined ? `${a.body.length} bytes, not JSON` : brief(a.json)})`,
    }
  );
}

/** The -32600 error with id null that RPC-10 and RPC-11 want, or what is wrong with `v`. */
function invalidRequestProblem(v: unknown): string | undefined {
  if (!isObject(v)) return `${brief(v)}, not an error object`;
  if (!isObject(v.error)) return Object.hasOwn(v, 'result') ? `a result instead of an error` : `no error object`;
  const code = errorCodeOf(v);
  if (code !== -32600) return `error code ${brief(v.error.code)}, not -32600`;
  if (!Object.hasOwn(v, 'id')) return 'error response without id';
  if (v.id !== null) return `id ${brief(v.id)}, not null`;
  return undefined;
}

/** RPC-10: `[]` gets one error object (not an array) with -32600 and id null. */
export function judgeEmptyBatch(a: RpcAnswer): RpcJudgement {
  const off = unavailable(a);
  if (off) return off;
  const j = a.json;
  if (Array.isArray(j))
    return {
      verdict: 'fail',
      message:
        j.length === 0
          ? `answered [] to an empty batch (${a.status})`
          : `answered an array of ${j.length} to an empty batch, not one error object (${a.status})`,
    };
  if (j === undefined)
    return {
      verdict: 'fail',
      message: `answered an empty batch with ${a.status} and ${a.body.trim() ? 'a body that is not JSON' : 'an empty body'}`,
    };
  const problem = invalidRequestProblem(j);
  return problem
    ? { verdict: 'fail', message: `empty batch: ${problem} (${a.status})` }
    : { verdict: 'pass', message: `empty batch: one error -32600 with id null (${a.status})` };
}

/** Whether an answer to a batch of valid requests shows that batches are served (an array came back); undefined: it cannot show. */
export function batchServed(a: RpcAnswer): boolean | undefined {
  return unavailable(a) ? undefined : Array.isArray(a.json);
}

/**
 * RPC-08: what the node did with a batch of valid requests, as a message and an observation.
 * `servedAt`: the size of a smaller batch the node did serve, so a refusal reads as a size limit.
 */
export function describeBatch(
  a: RpcAnswer,
  sentIds: readonly (string | number)[],
  servedAt?: number,
): { message: string; observation: Record<string, unknown> } {
  const n = sentIds.length;
  const j = a.json;
  const off = unavailable(a);
  if (off) return { message: `batch of ${n} valid requests: ${off.message}`, observation: { status: a.status } };
  if (!Array.isArray(j)) {
    const what =
      j === undefined
        ? a.body.trim()
          ? 'a body that is not JSON'
          : 'an empty body'
        : isObject(j)
          ? `a single ${describeReply(j)}, not an array`
          : brief(j);
    const verdict = servedAt ? `not served at this size, though a batch of ${servedAt} was` : 'batches not served';
    return {
      message: `batch of ${n} valid requests: ${a.status}, ${what}: ${verdict}`,
      observation: { status: a.status, served: false, answers: 0, order: 'none' },
    };
  }
  const ids = j.map((r) => (isObject(r) ? r.id : undefined));
  const results = j.filter((r) => isObject(r) && Object.hasOwn(r, 'result')).length;
  const inOrder = ids.length === n && ids.every((id, i) => id === sentIds[i]);
  const sameSet = ids.length === n && [...ids].map(String).sort().join() === [...sentIds].map(String).sort().join();
  const order = inOrder ? 'request order' : sameSet ? 'another order' : 'ids not those sent';
  const answers = `an array of ${j.length} answer(s) (${results} result(s))`;
  return {
    message: `batch of ${n} valid requests: ${a.status}, ${answers}, ids ${ids.map(brief).join(', ') || 'none'} in ${order}`,
    observation: { status: a.status, served: true, answers: j.length, results, order },
  };
}

/**
 * RPC-11: a batch of non-requests gets one -32600 error with id null per element. A node that
 * does not serve batches (`served` false, from RPC-08's batch) may answer anything else: observed.
 */
export function judgeInvalidBatch(a: RpcAnswer, elements: number, served: boolean | undefined): RpcJudgement {
  const off = unavailable(a);
  if (off) return off;
  const j = a.json;
  if (!Array.isArray(j)) {
    const what =
      j === undefined
        ? `${a.status} with ${a.body.trim() ? 'a body that is not JSON' : 'an empty body'}`
        : `${isObject(j) ? `a single ${describeReply(j)}` : brief(j)} (${a.status})`;
    if (served === false) return { verdict: 'observed', message: `answered ${what}: batches are not served (RPC-08)` };
    if (served === undefined)
      return { verdict: 'error', message: `answered ${what}, and whether batches are served could not be seen` };
    return { verdict: 'fail', message: `answered ${what}, not one error per element, though batches are served` };
  }
  if (j.length !== elements)
    return {
      verdict: 'fail',
      message: `answered ${j.length === 0 ? '[]' : `an array of ${j.length}`} to ${elements} invalid elements, not one error each (${a.status})`,
    };
  const problems = j.map((v, i) => [i, invalidRequestProblem(v)] as const).filter(([, p]) => p !== undefined);
  if (problems.length === 0)
    return { verdict: 'pass', message: `one error -32600 with id null per element (${elements}, ${a.status})` };
  const [i, p] = problems[0]!;
  return {
    verdict: 'fail',
    message: `element [${i}]: ${p}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''} (${a.status})`,
  };
}

/** How an answer that is not JSON, or JSON that holds no Response object, reads in a message. */
function noResponseBody(a: RpcAnswer): string {
  if (a.body.trim() === '') return `${a.status}, empty body`;
  return `${a.status}, ${a.json === undefined ? `${a.body.length} bytes, not JSON` : brief(a.json)}`;
}

/** A refusal of the batch as a whole: one error object, as a node without batches (or over its size limit) sends. */
function wholeBatchRefused(what: string, j: unknown, a: RpcAnswer): RpcJudgement {
  return {
    verdict: 'observed',
    message:
      `${what}: answered a single ${describeReply(j)} (${a.status}), not an array: ` +
      'the batch was refused whole (RPC-08), so no notification in it was answered',
  };
}

/**
 * RPC-09 inside a batch of requests (`requestIds`) and `notifications` notifications: Response
 * objects for the requests only. Any other Response object (id null, an id not sent, a second one
 * for a request) answers a notification. One error object for the whole batch is a refusal of the
 * batch (RPC-08), and a request left without its answer is RPC-08's to observe: neither fails here.
 */
export function judgeMixedBatch(
  a: RpcAnswer,
  requestIds: readonly (string | number)[],
  notifications: number,
): RpcJudgement {
  const off = unavailable(a);
  if (off) return off;
  const what = `batch of ${requestIds.length} request(s) and ${notifications} notification(s)`;
  const j = a.json;
  if (Array.isArray(j)) {
    const open = [...requestIds];
    const extra = j.filter((r) => {
      const k = isObject(r) ? open.findIndex((id) => id === r.id) : -1;
      if (k < 0) return true;
      open.splice(k, 1);
      return false;
    });
    if (extra.length) {
      const more = extra.length > 1 ? ` (+${extra.length - 1} more)` : '';
      return {
        verdict: 'fail',
        message:
          `${what}: ${extra.length} Response object(s) beyond the requests' own, so a notification was answered: ` +
          `${describeReply(extra[0])}${more} (${a.status}, an array of ${j.length})`,
      };
    }
    const missing = open.length ? `; no answer for id ${open.map(brief).join(', ')} (RPC-08)` : '';
    return {
      verdict: 'pass',
      message: `${what}: Response objects for the requests only (${a.status}, an array of ${j.length})${missing}`,
    };
  }
  if (isObject(j)) {
    if (isObject(j.error)) return wholeBatchRefused(what, j, a);
    if (requestIds.some((id) => id === j.id))
      return {
        verdict: 'pass',
        message: `${what}: one Response object, the request's (${a.status}), though not in an array (RPC-08)`,
      };
    return {
      verdict: 'fail',
      message: `${what}: answered with ${describeReply(j)}, which answers no request of the batch: a notification was answered (${a.status})`,
    };
  }
  return {
    verdict: 'pass',
    message: `${what}: no Response object for a notification (${noResponseBody(a)}; none for the requests either: RPC-08)`,
  };
}

/**
 * RPC-09: a batch of only notifications gets no array at all, nor any Response object (JSON-RPC
 * 2.0 section 6: nothing to send, so nothing is sent). A node that does not serve batches (`served`
 * false, from RPC-08's batch) may refuse it with one error object: observed.
 */
export function judgeNotificationBatch(a: RpcAnswer, notifications: number, served: boolean | undefined): RpcJudgement {
  const off = unavailable(a);
  if (off) return off;
  const what = `batch of ${notifications} notifications`;
  if (a.body.trim() === '') return { verdict: 'pass', message: `${what}: nothing came back (${a.status}, empty body)` };
  const j = a.json;
  if (Array.isArray(j))
    return {
      verdict: 'fail',
      message:
        j.length === 0
          ? `${what}: answered [] (${a.status}), where nothing at all belongs`
          : `${what}: answered an array of ${j.length} (first: ${describeReply(j[0])}) (${a.status}), where nothing at all belongs`,
    };
  if (isObject(j)) {
    if (isObject(j.error) && served === false) return wholeBatchRefused(what, j, a);
    if (isObject(j.error) && served === undefined)
      return {
        verdict: 'error',
        message: `${what}: answered a single ${describeReply(j)} (${a.status}), and whether batches are served could not be seen`,
      };
    return {
      verdict: 'fail',
      message: `${what}: answered ${describeReply(j)} (${a.status}), where nothing at all belongs${served ? ', though batches are served' : ''}`,
    };
  }
  return {
    verdict: 'pass',
    message: `${what}: no Response object, though the body is not empty (${noResponseBody(a)})`,
  };
}
