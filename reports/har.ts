// The run's requests and responses as HAR 1.2 (`--har <file>`), for browser devtools, har-to-k6 and
// other HAR readers. Built only from recorded exchanges (src/record/): every URL, header and body
// here went through the run's Redactor when it was recorded, so credentials are masked exactly as
// in every other output. Bodies are the recorder's excerpts; a cut one says so in its comment.
import { STATUS_CODES } from 'node:http';
import { BODY_EXCERPT_CHARS, type Exchange } from '../src/record/recorder.js';
import { TOOL } from '../src/results.js';

/** An exchange with where it came from in the run. */
export interface HarExchange extends Exchange {
  stage: 'contracts' | 'probes';
  /** A fleet run names the deployment and node. */
  target?: string;
  node?: string;
}

type NameValue = { name: string; value: string };

const nameValues = (h: Record<string, string>): NameValue[] =>
  Object.entries(h).map(([name, value]) => ({ name, value }));

const header = (h: Record<string, string>, name: string): string | undefined =>
  Object.entries(h).find(([k]) => k.toLowerCase() === name)?.[1];

/** The URL as a URI: the recorder's masks (`…(redacted)`) are percent-encoded, nothing else changes meaning. */
function wellFormed(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

function queryOf(url: string): NameValue[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** The recorder marks a cut body with `…(N more chars)`. */
const cut = (body: string | undefined) => body !== undefined && body.length > BODY_EXCERPT_CHARS;

function httpVersion(x: Exchange): string {
  return x.method === 'GRPC' ? 'HTTP/2' : 'HTTP/1.1';
}

const pageId = (x: HarExchange) => [x.target, x.stage].filter(Boolean).join(' ');

function entry(x: HarExchange): Record<string, unknown> {
  const time = Math.max(0, x.durationMs ?? 0);
  const reqType = header(x.requestHeaders, 'content-type');
  const resType = header(x.responseHeaders, 'content-type');
  return {
    pageref: pageId(x),
    startedDateTime: new Date(x.sentAt).toISOString(),
    time,
    request: {
      method: x.method,
      url: wellFormed(x.url),
      httpVersion: httpVersion(x),
      cookies: [],
      headers: nameValues(x.requestHeaders),
      queryString: queryOf(x.url),
      ...(x.requestBody !== undefined && {
        postData: { mimeType: reqType ?? 'application/octet-stream', params: [], text: x.requestBody },
      }),
      headersSize: -1,
      bodySize: x.requestBody === undefined ? 0 : cut(x.requestBody) ? -1 : Buffer.byteLength(x.requestBody),
    },
    response: {
      status: x.status ?? 0,
      statusText: (x.status !== undefined && STATUS_CODES[x.status]) || '',
      httpVersion: httpVersion(x),
      cookies: [],
      headers: nameValues(x.responseHeaders),
      content: {
        size: x.responseBytes ?? 0,
        mimeType: resType ?? 'x-unknown',
        ...(x.responseBody !== undefined && { text: x.responseBody }),
        ...(cut(x.responseBody) && { comment: `text cut to its first ${BODY_EXCERPT_CHARS} characters` }),
      },
      redirectURL: header(x.responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: x.responseBytes ?? -1,
    },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    ...(x.purpose && { comment: x.purpose }),
    // Custom fields start with an underscore (HAR 1.2): what no standard field holds.
    _chainprobe: {
      stage: x.stage,
      seq: x.seq,
      ...(x.target && { target: x.target }),
      ...(x.node && { node: x.node }),
      ...(x.error && { error: x.error }),
    },
  };
}

/** The HAR 1.2 log of a run's exchanges, oldest first; one page per stage (and deployment). */
export function buildHar(exchanges: readonly HarExchange[]): { log: Record<string, unknown> } {
  const sorted = [...exchanges].sort((a, b) => a.sentAt - b.sentAt);
  const pages = new Map<string, HarExchange>();
  for (const x of sorted) if (!pages.has(pageId(x))) pages.set(pageId(x), x);
  return {
    log: {
      version: '1.2',
      creator: { name: TOOL.name, version: TOOL.version },
      pages: [...pages].map(([id, first]) => ({
        startedDateTime: new Date(first.sentAt).toISOString(),
        id,
        title: `${TOOL.name} ${id}`,
        pageTimings: {},
      })),
      entries: sorted.map(entry),
      comment: 'Credentials are redacted; bodies are excerpts (see each content comment).',
    },
  };
}

export const harJson = (exchanges: readonly HarExchange[]): string => `${JSON.stringify(buildHar(exchanges))}\n`;
