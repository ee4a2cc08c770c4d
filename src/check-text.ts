// A check as plain text, for the report writers (JUnit's failure body).
import { curlOf } from './record/recorder.js';
import type { CheckResult } from './verdict.js';

/** Human-readable form of an evidence value: strings as they are, the rest as indented JSON. */
export function show(value: unknown, maxChars = 8000): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value === undefined) text = 'undefined';
  else {
    try {
      text = JSON.stringify(value, null, 2) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > maxChars
    ? `${text.slice(0, maxChars)}\n…(${text.length - maxChars} more chars; see results.json)`
    : text;
}

/** A failing check as plain text: its message, expected and actual, where, why, and a curl line. */
export function failureText(c: CheckResult): string {
  const ev = c.evidence ?? {};
  const parts = [c.message];
  if ('expected' in ev) parts.push(`expected: ${show(ev.expected, 2000)}`);
  if ('actual' in ev) parts.push(`actual: ${show(ev.actual, 2000)}`);
  if (ev.path !== undefined) parts.push(`path: ${ev.path}`);
  if (ev.cause !== undefined) parts.push(`cause: ${ev.cause}`);
  const first = Array.isArray(ev.exchanges) ? ev.exchanges[0] : undefined;
  if (first) parts.push(`reproduce: ${curlOf(first)}`);
  return parts.join('\n');
}
