// Response headers as the suite reads them: lower-case names, repeated values joined.

export function headerRecord(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

/**
 * The same from node's rawHeaders (name, value, name, value...): its headers object keeps only the
 * first of some repeated headers (retry-after, content-type), and a repeat is evidence.
 */
export function rawHeaderRecord(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    out[name] = Object.hasOwn(out, name) ? `${out[name]}, ${raw[i + 1]!}` : raw[i + 1]!;
  }
  return out;
}
