// Every request/response the suite makes passes through a Recorder, which redacts it on entry.
// Reports, evidence and timelines read only recorded exchanges, never live request objects.
import { Redactor } from './redact.js';

export const BODY_EXCERPT_CHARS = 2048;

export interface ExchangeInput {
  method: string;
  url: string;
  requestHeaders?: Record<string, string | string[] | undefined>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string | string[] | undefined>;
  responseBody?: string;
  /** Wall-clock ms (Date.now based) when the request left, and when the answer was complete. */
  sentAt: number;
  receivedAt?: number;
  error?: string;
  /** What this exchange was for, e.g. `nft.event[bearer]`. */
  purpose?: string;
  /** Why the request was sent a second time, when it was (this exchange is the second sending). */
  resent?: string;
}

export interface Exchange {
  seq: number;
  purpose?: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders: Record<string, string>;
  responseBody?: string;
  responseBytes?: number;
  sentAt: number;
  receivedAt?: number;
  durationMs?: number;
  error?: string;
  resent?: string;
}

function excerpt(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  return s.length > BODY_EXCERPT_CHARS
    ? `${s.slice(0, BODY_EXCERPT_CHARS)}…(${s.length - BODY_EXCERPT_CHARS} more chars)`
    : s;
}

export class Recorder {
  readonly exchanges: Exchange[] = [];
  private seq = 0;

  constructor(readonly redactor: Redactor) {}

  record(x: ExchangeInput): Exchange {
    const r = this.redactor;
    const ex: Exchange = {
      seq: ++this.seq,
      purpose: x.purpose,
      method: x.method.toUpperCase(),
      url: r.url(x.url),
      requestHeaders: r.headers(x.requestHeaders ?? {}),
      requestBody: excerpt(x.requestBody === undefined ? undefined : r.text(x.requestBody)),
      status: x.status,
      responseHeaders: r.headers(x.responseHeaders ?? {}),
      responseBody: excerpt(x.responseBody === undefined ? undefined : r.text(x.responseBody)),
      responseBytes: x.responseBody === undefined ? undefined : Buffer.byteLength(x.responseBody),
      sentAt: x.sentAt,
      receivedAt: x.receivedAt,
      durationMs: x.receivedAt === undefined ? undefined : Math.round((x.receivedAt - x.sentAt) * 1000) / 1000,
      error: x.error === undefined ? undefined : r.text(x.error),
      ...(x.resent !== undefined && { resent: r.text(x.resent) }),
    };
    this.exchanges.push(ex);
    return ex;
  }

  /** Any free text headed for output (messages, logs) goes through here too. */
  redact(text: string): string {
    return this.redactor.text(text);
  }
}

/** A reproducible curl line; credential values become shell variables. */
export function curlOf(ex: Exchange): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // A masked value is at most 4 kept characters plus the suffix (raw or percent-encoded in URLs);
  // only that part becomes the variable, not the URL or header text before it.
  const varFor = (v: string) =>
    v.includes('(redacted)')
      ? v.replace(/[^\s=&?/:;,"']{0,4}(?:…|%E2%80%A6)\(redacted\)/gi, '$CHAINPROBE_CREDENTIAL')
      : v;
  const parts = ['curl', '-sS', '-i'];
  if (ex.method === 'HEAD') parts.push('-I');
  else if (ex.method !== 'GET') parts.push('-X', ex.method);
  for (const [k, v] of Object.entries(ex.requestHeaders)) parts.push('-H', `"${k}: ${varFor(v).replace(/"/g, '\\"')}"`);
  if (ex.requestBody !== undefined) parts.push('--data-raw', q(ex.requestBody));
  parts.push(`"${varFor(ex.url).replace(/"/g, '\\"')}"`);
  return parts.join(' ');
}
