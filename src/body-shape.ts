// Body shapes for observations: the type skeleton of a JSON value, never its values, so that an
// observation stays the same from run to run (baselines compare them) and carries no data.

const MAX_KEYS = 30;
const MAX_DEPTH = 5;

export function shapeOf(v: unknown, depth = 0): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    if (v.length === 0) return [];
    return depth >= MAX_DEPTH ? ['…'] : [shapeOf(v[0], depth + 1)];
  }
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    case 'string':
    case 'boolean':
      return typeof v;
    case 'object': {
      if (depth >= MAX_DEPTH) return 'object';
      const keys = Object.keys(v as object).sort();
      const out: Record<string, unknown> = {};
      for (const k of keys.slice(0, MAX_KEYS)) out[k] = shapeOf((v as Record<string, unknown>)[k], depth + 1);
      if (keys.length > MAX_KEYS) out['…'] = `${keys.length - MAX_KEYS} more keys`;
      return out;
    }
    default:
      return typeof v;
  }
}

/** Parses a body as JSON; undefined when it is not JSON (or empty). */
export function parseJson(body: string): unknown {
  const t = body.trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/** The shape of a response body, JSON or not: `empty`, `not JSON`, or the JSON skeleton. */
export function bodyShape(body: string | undefined): unknown {
  if (body === undefined || body.trim() === '') return 'empty';
  const json = parseJson(body);
  return json === undefined ? 'not JSON' : shapeOf(json);
}

/** The media type without parameters, lower case (`application/json`). */
export function mediaType(headers: Record<string, string>): string | undefined {
  const ct = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  return ct?.split(';')[0]?.trim().toLowerCase() || undefined;
}

export function isJsonMedia(headers: Record<string, string>): boolean {
  const m = mediaType(headers);
  return m !== undefined && (m === 'application/json' || m.endsWith('+json'));
}

export function is2xx(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}
