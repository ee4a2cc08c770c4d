// CMP-05 and CMP-07 to CMP-10: two JSON bodies field by field, by their shapes and, where both
// sides asked for the same resource, by their values, block numbers, tokens, times and texts each
// by its own rule.
import type { Found } from './types.js';
import { blockNumberOf, isIsoTime, maskNumbers, shapeOf, timeForm, tokenForm } from './shape.js';

export type Primitive = string | number | boolean | null;

/** A list of primitives is a set (extra field names, event types seen): compared by membership. */
export function isPrimitiveList(v: unknown): v is Primitive[] {
  return Array.isArray(v) && v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x));
}

/**
 * Dotted paths to an observation's leaves, in key order, as the reports show them and baselines and
 * comparisons pair them. Objects are walked; primitive lists stay whole (they are sets); lists of
 * objects stay whole too (their order is part of what was observed).
 */
export function flattenObservation(
  obs: unknown,
  prefix = '',
  out: [string, unknown][] = [],
  depth = 0,
): [string, unknown][] {
  if (obs !== null && typeof obs === 'object' && !Array.isArray(obs) && depth < 8) {
    const entries = Object.entries(obs as Record<string, unknown>);
    if (entries.length === 0 && prefix) out.push([prefix, {}]);
    for (const [k, v] of entries) flattenObservation(v, prefix ? `${prefix}.${k}` : k, out, depth + 1);
  } else if (prefix || obs !== undefined) {
    out.push([prefix || '(value)', obs]);
  }
  return out;
}

/** JSON with object keys sorted, so that key order never counts as a change. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

/** Equality of two observed values (JSON semantics; primitive lists as sets). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isPrimitiveList(a) && isPrimitiveList(b)) {
    const sa = new Set(a.map(canonical));
    const sb = new Set(b.map(canonical));
    return sa.size === sb.size && [...sa].every((x) => sb.has(x));
  }
  return canonical(a) === canonical(b);
}

type Emit = (f: Omit<Found, 'rule' | 'check' | 'subject'>) => void;

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * CMP-05: two body skeletons field by field. Each difference is the deepest place it shows: a field
 * one side lacks, or a field whose type differs. An empty list fits any list.
 */
export function diffShapes(a: unknown, b: unknown, emit: Emit, path = ''): void {
  if (canonical(a) === canonical(b)) return;
  const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const oa = a as Record<string, unknown>;
    const ob = b as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort()) {
      const p = join(path, k);
      if (!(k in oa)) emit({ kind: 'body-shape', cmp: 'CMP-05', key: p, b: ob[k] });
      else if (!(k in ob)) emit({ kind: 'body-shape', cmp: 'CMP-05', key: p, a: oa[k] });
      else diffShapes(oa[k], ob[k], emit, p);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === 0 || b.length === 0) return;
    diffShapes(a[0], b[0], emit, `${path}[]`);
    return;
  }
  emit({ kind: 'body-shape', cmp: 'CMP-05', key: path || '(body)', a, b });
}

const BLOCK_KEY = /(?:^|_)(?:block_?number|block_?height|height|ledger)$/i;
const TOKEN_KEY = /(?:token|cursor)$/i;
const TIME_KEY = /(?:time|date|timestamp|_at)$/i;

export interface ValueContext {
  /** The answer is about current state (no resource id in the request): only block numbers are compared by value. */
  state: boolean;
  /** CMP-08's tolerance. */
  tolerance: number;
  /** The request was a block-number call: its `result` is a block number. */
  blockCall: boolean;
}

const typeOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** CMP-07 to CMP-10: two answers to the same request, value by value (types are CMP-05's). */
export function diffValues(a: unknown, b: unknown, ctx: ValueContext, emit: Emit, path = '', key = ''): void {
  if (typeOf(a) !== typeOf(b)) return;
  if (BLOCK_KEY.test(key) || (ctx.blockCall && path === 'result')) {
    const na = blockNumberOf(a);
    const nb = blockNumberOf(b);
    if (na !== undefined && nb !== undefined) {
      if (Math.abs(na - nb) > ctx.tolerance) emit({ kind: 'value', cmp: 'CMP-08', key: path, a, b });
      return;
    }
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (!ctx.state && a.length !== b.length)
      emit({ kind: 'value', cmp: 'CMP-07', key: `${path}[] (items)`, a: a.length, b: b.length });
    for (let i = 0; i < Math.min(a.length, b.length); i++) diffValues(a[i], b[i], ctx, emit, `${path}[]`, key);
    return;
  }
  if (a !== null && typeof a === 'object') {
    const oa = a as Record<string, unknown>;
    const ob = b as Record<string, unknown>;
    for (const k of Object.keys(oa).sort()) if (k in ob) diffValues(oa[k], ob[k], ctx, emit, join(path, k), k);
    return;
  }
  if (ctx.state) return;
  if (TOKEN_KEY.test(key)) {
    if (tokenForm(a) !== tokenForm(b))
      emit({ kind: 'value', cmp: 'CMP-09', key: path, a: tokenForm(a), b: tokenForm(b) });
    return;
  }
  if (TIME_KEY.test(key) || isIsoTime(a) || isIsoTime(b)) {
    if (timeForm(a) !== timeForm(b)) emit({ kind: 'value', cmp: 'CMP-09', key: path, a: timeForm(a), b: timeForm(b) });
    return;
  }
  if (typeof a === 'string' && typeof b === 'string' && /\s/.test(a) && /\s/.test(b)) {
    if (maskNumbers(a) !== maskNumbers(b)) emit({ kind: 'value', cmp: 'CMP-10', key: path, a, b });
    return;
  }
  if (typeof a === 'number' && typeof b === 'number' && shapeOf(a) !== shapeOf(b)) return;
  if (a !== b) emit({ kind: 'value', cmp: 'CMP-07', key: path || '(body)', a, b });
}
