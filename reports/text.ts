// Making target-supplied text safe for the report files. Everything a target sends (bodies,
// headers, messages built from them) may contain markup or control characters; the writers pass
// every piece of text through here before it lands in HTML or XML.
export { failureText, show } from '../src/check-text.js';

// XML 1.0 allows tab, LF, CR and the ranges below; a lone surrogate or a C0 control would make the
// JUnit file unparseable for CI, and is meaningless in HTML too.
const NOT_XML_CHAR = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Printable ASCII and the three allowed controls: nothing to replace (most report text). */
const PLAIN_XML = /^[\x09\x0A\x0D\x20-\x7E]*$/;

export function cleanText(s: string): string {
  return PLAIN_XML.test(s) ? s : s.replace(NOT_XML_CHAR, '\uFFFD');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const MARKUP = /[&<>"']/;
const MARKUP_ALL = /[&<>"']/g;

/** Escapes for element content and quoted attribute values alike (HTML and XML). */
export function esc(value: unknown): string {
  const text = cleanText(String(value));
  return MARKUP.test(text) ? text.replace(MARKUP_ALL, (c) => ENTITIES[c]!) : text;
}

/** One line: newlines and runs of space collapse (attribute values, JUnit failure messages). */
export function oneLine(s: string, max = 500): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Compact JSON for a table cell. */
export function brief(value: unknown, maxChars = 300): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** A relative link target inside the output folder, or undefined when it is anything else. */
export function safeRelativeHref(path: string | undefined): string | undefined {
  if (!path) return undefined;
  if (
    /^[a-z][a-z0-9+.-]*:/i.test(path) ||
    path.startsWith('/') ||
    path.startsWith('\\') ||
    path.split(/[\\/]/).includes('..')
  )
    return undefined;
  return path.split('/').map(encodeURIComponent).join('/');
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return rest ? `${m} min ${rest} s` : `${m} min`;
}

/** For terminal lines: no control characters (a target's field name must not move the cursor). */
export function printable(s: string): string {
  return oneLine(s, 300).replace(/[\x00-\x1f\x7f-\x9f]/g, '?');
}
