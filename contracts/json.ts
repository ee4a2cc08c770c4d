// Reading parsed JSON answers, which may hold anything: a value is an object only when it is a
// JSON object (not null, not an array), and a path through anything else leads to undefined.
// The reference keeps its own copy: the suite and the service it checks share no code.

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at `path` (object keys), or undefined where the path leaves the objects. */
export const get = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), v);
