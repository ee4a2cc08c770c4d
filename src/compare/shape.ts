// What the comparison reads off a recorded exchange: the media type, the body's type skeleton (the
// one observations record, src/body-shape.ts), header names, JSON-RPC error codes, and the forms
// CMP-08 to CMP-10 compare values by.
import { mediaType as mediaTypeOf, shapeOf } from '../body-shape.js';

/** The media type without parameters, lower case (`application/json`). */
const mediaType = (headers: Record<string, string> | undefined): string | undefined => mediaTypeOf(headers ?? {});

export { shapeOf };

/** A body parsed as JSON; undefined when it is empty, not JSON, or cut short by the recorder. */
export function parseBody(body: string | undefined): unknown {
  const t = body?.trim();
  if (!t || /…\(\d+ more chars\)$/.test(t)) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/** `empty`, `not JSON`, `cut short` (the recorder keeps a body's first 2 kB), or the JSON skeleton. */
export function bodyShape(body: string | undefined): unknown {
  const t = body?.trim();
  if (!t) return 'empty';
  if (/…\(\d+ more chars\)$/.test(t)) return 'cut short';
  const json = parseBody(t);
  return json === undefined ? 'not JSON' : shapeOf(json);
}

export { mediaType };

export const headerNames = (headers: Record<string, string> | undefined): string[] =>
  [...new Set(Object.keys(headers ?? {}).map((h) => h.toLowerCase()))].sort();

/**
 * Hop-by-hop headers (RFC 9110 7.6.1) describe the connection an answer came on, not the answer: a
 * request sent again on a fresh connection, or a server closing an idle one, moves them.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The answer's own header names (headerNames without the hop-by-hop ones). */
export const endToEndHeaderNames = (headers: Record<string, string> | undefined): string[] =>
  headerNames(headers).filter((h) => !HOP_BY_HOP.has(h));

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON-RPC error codes of an answer (each element of a batch), or undefined when it carries none. */
export function rpcErrorCodes(json: unknown): unknown[] | undefined {
  const items = Array.isArray(json) ? json : [json];
  const codes = items.flatMap((i) => (isObj(i) && 'jsonrpc' in i && isObj(i.error) ? [i.error.code] : []));
  return codes.length ? codes : undefined;
}

/** A block number as a number: a JSON integer, a string of digits, or a hex quantity. */
export function blockNumberOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  if (typeof v === 'string' && /^0x[0-9a-f]{1,13}$/i.test(v)) return Number.parseInt(v.slice(2), 16);
  return undefined;
}

const ISO_TIME = /^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?$/;

/** The form of a time: `ISO 8601`, `Unix seconds`, `Unix milliseconds`, or its JSON type. */
export function timeForm(v: unknown): string {
  if (typeof v === 'string') {
    if (ISO_TIME.test(v)) return 'ISO 8601';
    if (/^\d{9,10}$/.test(v)) return 'Unix seconds (string)';
    if (/^\d{12,13}$/.test(v)) return 'Unix milliseconds (string)';
    return 'string';
  }
  if (typeof v === 'number' && Number.isInteger(v)) {
    const digits = String(Math.abs(v)).length;
    if (digits >= 9 && digits <= 10) return 'Unix seconds';
    if (digits >= 12 && digits <= 13) return 'Unix milliseconds';
  }
  return v === null ? 'null' : typeof v;
}

export const isIsoTime = (v: unknown): boolean => typeof v === 'string' && ISO_TIME.test(v) && v.length >= 10;

/** What an opaque token is: `absent` is the caller's; here `null`, `empty` or `a token`. */
export function tokenForm(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v === '' ? 'empty' : 'a token';
  return typeof v;
}

/** Free text (CMP-10) with its numbers masked. */
export const maskNumbers = (s: string): string => s.replace(/\d+(?:\.\d+)?/g, '#');
