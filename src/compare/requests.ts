// CMP-03 to CMP-07: the requests of two paired checks, paired by method, path with ids as
// placeholders, and purpose; then each pair's status, media type, header names, body shape,
// JSON-RPC error codes and, where both asked for the same resource, values.
import type { Exchange } from '../record/recorder.js';
import type { Found } from './types.js';
import { isResourceId } from './pair.js';
import { BLOCKS_APART_MS } from './rules.js';
import { bodyShape, endToEndHeaderNames, mediaType, parseBody, rpcErrorCodes } from './shape.js';
import { diffShapes, diffValues, sameValue } from './values.js';

/** Query parameters whose values are credentials or opaque tokens: never part of what a request names. */
const MASKED_PARAM =
  /^(?:api_?key|key|auth|auth_?token|access_?token|token|sig|signature|nonce|_)$|(?:page_?token|cursor|next)$/i;

function parts(url: string): { path: string[]; query: [string, string][] } {
  try {
    const u = new URL(url);
    const path = u.pathname
      .split('/')
      .filter(Boolean)
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      });
    return { path, query: [...u.searchParams.entries()] };
  } catch {
    return { path: [url], query: [] };
  }
}

const placeholder = (seg: string) => (isResourceId(seg) ? '{id}' : /^\d+$/.test(seg) ? '{n}' : seg);

const maskedValue = (name: string, value: string) =>
  MASKED_PARAM.test(name) || value.includes('(redacted)') || isResourceId(value) || /^\d+$/.test(value);

/** `GET /nft/v1/chain-a/mainnet/events/{id}?sort_by=rarity_rank`: how the report names a request. */
export function requestTemplate(x: Pick<Exchange, 'method' | 'url'>): string {
  const { path, query } = parts(x.url);
  const q = query
    .map(([k, v]) => (maskedValue(k, v) ? `${k}=…` : `${k}=${v}`))
    .sort()
    .join('&');
  return `${x.method} /${path.map(placeholder).join('/')}${q ? `?${q}` : ''}`;
}

/** The resource a request asks for, credentials and tokens aside: equal on both sides means the same resource. */
function resourceOf(x: Exchange): { key: string; byId: boolean } {
  const { path, query } = parts(x.url);
  const q = query
    .filter(([k, v]) => !(MASKED_PARAM.test(k) || v.includes('(redacted)')))
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');
  const byId = path.some((s) => isResourceId(s) || /^\d+$/.test(s)) || query.some(([, v]) => isResourceId(v));
  return { key: `${x.method} /${path.join('/')}?${q}\u0000${x.requestBody ?? ''}`, byId };
}

const BLOCK_METHOD = /blocknumber|block_number|getblockheight|getslot|getblockcount/i;

function isBlockCall(x: Exchange): boolean {
  const body = parseBody(x.requestBody);
  const method = body !== null && typeof body === 'object' ? (body as { method?: unknown }).method : undefined;
  return typeof method === 'string' && BLOCK_METHOD.test(method);
}

/** Exchanges paired by template and purpose (purposes normalised by `purpose`), in the order each side sent them. */
export function pairExchanges(
  a: readonly Exchange[],
  b: readonly Exchange[],
  purposeA: (p: string) => string,
  purposeB: (p: string) => string,
): { pairs: [Exchange, Exchange][]; onlyA: Exchange[]; onlyB: Exchange[] } {
  const keyOf = (x: Exchange, purpose: (p: string) => string) =>
    `${requestTemplate(x)}\u0000${x.purpose === undefined ? '' : purpose(x.purpose).replace(/#\d+$/, '')}`;
  const pairs: [Exchange, Exchange][] = [];
  // First by template and purpose, then what is left by template alone (a check judged on a probe's
  // answer names the probe's phase as its purpose on one side and its own on the other).
  const pass = (
    xs: readonly Exchange[],
    ys: readonly Exchange[],
    ka: (x: Exchange) => string,
    kb: (x: Exchange) => string,
  ) => {
    const waiting = new Map<string, Exchange[]>();
    for (const y of ys) {
      const key = kb(y);
      const list = waiting.get(key);
      if (list) list.push(y);
      else waiting.set(key, [y]);
    }
    const left: Exchange[] = [];
    for (const x of xs) {
      const y = waiting.get(ka(x))?.shift();
      if (y) pairs.push([x, y]);
      else left.push(x);
    }
    return { left, right: [...waiting.values()].flat() };
  };
  const first = pass(
    a,
    b,
    (x) => keyOf(x, purposeA),
    (y) => keyOf(y, purposeB),
  );
  const second = pass(first.left, first.right, requestTemplate, requestTemplate);
  return { pairs, onlyA: second.left, onlyB: second.right };
}

const statusOf = (x: Exchange): unknown => x.status ?? (x.error ? 'no answer' : 'none');

/** Every difference between two paired requests. */
export function diffExchange(xa: Exchange, xb: Exchange, tolerance: number, emit: (f: Found) => void): void {
  const subject = requestTemplate(xa);
  const put = (f: Omit<Found, 'subject'>) => emit({ ...f, subject });
  if (statusOf(xa) !== statusOf(xb))
    put({ kind: 'status', cmp: 'CMP-03', key: 'status', a: statusOf(xa), b: statusOf(xb) });
  const answered = xa.status !== undefined && xb.status !== undefined;
  if (!answered) return;
  const ma = mediaType(xa.responseHeaders);
  const mb = mediaType(xb.responseHeaders);
  if (ma !== mb) put({ kind: 'content-type', cmp: 'CMP-03', key: 'content-type', a: ma, b: mb });
  const ha = endToEndHeaderNames(xa.responseHeaders);
  const hb = endToEndHeaderNames(xb.responseHeaders);
  for (const h of ha) if (!hb.includes(h)) put({ kind: 'header', cmp: 'CMP-04', key: h, a: 'present', b: 'absent' });
  for (const h of hb) if (!ha.includes(h)) put({ kind: 'header', cmp: 'CMP-04', key: h, a: 'absent', b: 'present' });
  diffShapes(bodyShape(xa.responseBody), bodyShape(xb.responseBody), put);
  const ja = parseBody(xa.responseBody);
  const jb = parseBody(xb.responseBody);
  const ca = rpcErrorCodes(ja);
  const cb = rpcErrorCodes(jb);
  if ((ca || cb) && !sameValue(ca ?? [], cb ?? []))
    put({ kind: 'rpc-error', cmp: 'CMP-06', key: 'error.code', a: ca ?? 'none', b: cb ?? 'none' });
  if (ja === undefined || jb === undefined) return;
  const ra = resourceOf(xa);
  const rb = resourceOf(xb);
  // Another resource on each side (their own target files' ids): its values are its own, not a difference.
  if (ra.key !== rb.key) return;
  // Block numbers of answers given far apart are not compared: the head moved meanwhile (CMP-08).
  const apart = Math.abs(xa.sentAt - xb.sentAt) > BLOCKS_APART_MS;
  diffValues(
    ja,
    jb,
    { state: !ra.byId, tolerance: apart ? Infinity : tolerance, blockCall: isBlockCall(xa) && isBlockCall(xb) },
    put,
  );
}
