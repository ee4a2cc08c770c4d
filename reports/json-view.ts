// A JSON body as indented, escaped HTML with the value at a check's JSON path marked, so the
// reader of a failing check sees at once which part of the response broke the rule.

/** Path segments of `data.items[3].rank`, `$.data.id` or `data[2].rarity[].rank`; null = any index. */
export function pathSegments(path: string): (string | null)[] | undefined {
  const p = path.trim().replace(/^\$\.?/, '');
  if (!p || p === '(root)') return [];
  const segs: (string | null)[] = [];
  for (const m of p.matchAll(/([^.[\]]+)|\[(\d*)\]/g)) segs.push(m[1] ?? (m[2] === '' ? null : m[2]!));
  return segs.length ? segs : undefined;
}

interface Line {
  text: string;
  marked: boolean;
}

const matches = (segs: readonly (string | null)[], at: readonly string[]) =>
  segs.length === at.length && segs.every((s, i) => (s === null ? /^\d+$/.test(at[i]!) : s === at[i]));

function emit(
  value: unknown,
  at: string[],
  indent: string,
  head: string,
  tail: string,
  segs: readonly (string | null)[] | undefined,
  inMark: boolean,
  out: Line[],
): void {
  const marked = inMark || (segs !== undefined && matches(segs, at));
  const isArr = Array.isArray(value);
  if (value !== null && typeof value === 'object') {
    const entries: [string, unknown][] = isArr
      ? (value as unknown[]).map((v, i) => [String(i), v])
      : Object.entries(value as Record<string, unknown>);
    const [open, close] = isArr ? ['[', ']'] : ['{', '}'];
    if (!entries.length) {
      out.push({ text: `${indent}${head}${open}${close}${tail}`, marked });
      return;
    }
    out.push({ text: `${indent}${head}${open}`, marked });
    entries.forEach(([k, v], i) => {
      emit(
        v,
        [...at, k],
        `${indent}  `,
        isArr ? '' : `${JSON.stringify(k)}: `,
        i < entries.length - 1 ? ',' : '',
        segs,
        marked,
        out,
      );
    });
    out.push({ text: `${indent}${close}${tail}`, marked });
    return;
  }
  out.push({ text: `${indent}${head}${JSON.stringify(value)}${tail}`, marked });
}

export interface JsonView {
  /** The lines, escaped with the caller's function; the value at the path marked. */
  html: string;
  /** Whether the path was found in the body. */
  found: boolean;
}

/**
 * Renders `body` (JSON text) indented, each line of the value at `path` in a <mark>. When the
 * text is longer than `maxChars`, the lines around the mark are kept and the cuts say so.
 * Undefined when the body is not JSON.
 */
export function jsonView(
  body: string,
  path: string | undefined,
  esc: (s: string) => string,
  maxChars = 8000,
): JsonView | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const lines: Line[] = [];
  emit(value, [], '', '', '', path === undefined ? undefined : pathSegments(path), false, lines);
  const first = lines.findIndex((l) => l.marked);
  let keep: [number, number] = [0, lines.length];
  let size = 0;
  for (const l of lines) size += l.text.length + 1;
  if (size > maxChars) {
    // A window of lines of about maxChars, centred on the mark when there is one.
    const centre = first < 0 ? 0 : first;
    let lo = centre;
    let hi = centre;
    let used = 0;
    while (used < maxChars && (lo > 0 || hi < lines.length)) {
      if (hi < lines.length) used += lines[hi++]!.text.length + 1;
      if (used < maxChars && lo > 0 && first >= 0) used += lines[--lo]!.text.length + 1;
    }
    keep = [lo, hi];
  }
  const shown = lines.slice(keep[0], keep[1]);
  const parts: string[] = [];
  if (keep[0] > 0) parts.push(esc(`…(${keep[0]} lines above; see results.json)`));
  for (const l of shown) {
    const body = l.text.trimStart();
    const indent = l.text.slice(0, l.text.length - body.length);
    parts.push(l.marked ? `${indent}<mark data-path-mark>${esc(body)}</mark>` : esc(l.text));
  }
  if (keep[1] < lines.length) parts.push(esc(`…(${lines.length - keep[1]} more lines; see results.json)`));
  return { html: parts.join('\n'), found: first >= 0 };
}
