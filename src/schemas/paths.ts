// JSON paths and value excerpts as schema problems show them: `data.payments[0].price`, `string "12"`.

/** Segments of a JSON pointer (`/data/payments/0` -> ['data', 'payments', '0']). */
export function pointerSegments(pointer: string): string[] {
  if (!pointer || pointer === '/') return pointer === '/' ? [''] : [];
  return pointer
    .slice(pointer.startsWith('/') ? 1 : 0)
    .split('/')
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** Dotted path: names joined by dots, array indexes in brackets, odd names quoted; `(root)` for none. */
export function dottedPath(segs: readonly string[]): string {
  if (segs.length === 0) return '(root)';
  return segs
    .map((seg, i) =>
      /^\d+$/.test(seg) ? `[${seg}]` : PLAIN_KEY.test(seg) ? (i === 0 ? seg : `.${seg}`) : `[${JSON.stringify(seg)}]`,
    )
    .join('');
}

const EXCERPT_CHARS = 40;

/** A short, one-line description of a value: its JSON type and a clipped excerpt. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (typeof v === 'string') {
    const clipped = v.length > EXCERPT_CHARS ? `${v.slice(0, EXCERPT_CHARS)}…` : v;
    return `string ${JSON.stringify(clipped)}`;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${String(v)}`;
  if (Array.isArray(v)) return `array of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (typeof v === 'object') return 'object';
  return typeof v;
}
