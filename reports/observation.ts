// Observations are nested JSON (status, headers, body shape, lists of extra fields). Reports show
// them as key/value lines and baselines compare them key by key, so both flatten them the same way.

export type Primitive = string | number | boolean | null;

/** A list of primitives is a set (extra field names, event types seen): compared by membership. */
export function isPrimitiveList(v: unknown): v is Primitive[] {
  return Array.isArray(v) && v.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x));
}

/**
 * Dotted paths to leaves, in key order. Objects are walked; primitive lists stay whole (they are
 * sets); lists of objects stay whole too (their order is part of what was observed).
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
