// The `api` fixture: every HTTP request a contract test sends goes through here. One request is
// taken from the run's Budget first, the auth form comes from the shared AUTH_FORMS table, the
// body is read with a size cap, and the exchange is recorded (redacted) by the test's Recorder.
// Non-2xx answers are summarised for ERR-01. A request that could not be made throws CouldNotTest
// with the recorded exchange, so the check reports `error` with the cause, never `fail`.
import { applyForm, type FormId } from '../src/auth/forms.js';
import { BudgetExceeded, type Budget } from '../src/budget.js';
import { pause } from '../src/net/pause.js';
import { HttpFailure, httpRequest } from '../src/http/client.js';
import type { Exchange, Recorder } from '../src/record/recorder.js';
import { CouldNotTest } from './checks.js';
import type { Non2xx } from './protocol.js';
import { bodyShape, is2xx, mediaType, parseJson } from '../src/body-shape.js';

export interface Credential {
  form: FormId;
  /** Several values: the query parameter once per value (a duplicated parameter). */
  secret: string | readonly string[];
}

/** Ends a paced request's turn (idempotent). */
export type Release = () => void;

export interface CallSpec {
  /** What the call is for; recorded with the exchange, e.g. `auth.nft.event[bearer@base]`. */
  purpose: string;
  method: 'GET' | 'POST' | 'HEAD';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  auth?: Credential;
  /**
   * ERR-01 group when the answer is not 2xx: why the suite sent this request (e.g. `no
   * credentials`). Calls that expect data leave it out and count as `unexpected refusal`.
   */
  cause?: string;
  /**
   * Waits until the request may leave (the rate-limited node's spacing); not called for a request
   * that is not sent. The caller calls what it returns once the request's head is written, or once
   * it is clear it never will be: the next request's wait runs from then.
   */
  pace?: () => Promise<Release>;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body size as received. */
  bytes: number;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
  exchange: Exchange;
  ok: boolean;
}

export const UNEXPECTED_CAUSE = 'a request that expected data';

/**
 * Origins that let requests time out twice with no answer since they were sent: the rest of this
 * worker's requests there are not sent (a silent node would otherwise cost timeoutMs per form and
 * per near miss, and the run's time budget with it). Any answer closes the breaker again. Requests
 * go out together, so "in a row" means: no answer from the origin after the timed-out one left.
 */
const silentOrigins = new Map<string, { timeouts: number; message: string; answeredAt: number }>();
const SILENT_AFTER = 2;

/** A timeout counts toward silence unless the origin answered something after the request left. */
function silence(origin: string, sentAt: number, message: string): void {
  const o = silentOrigins.get(origin) ?? { timeouts: 0, message, answeredAt: -Infinity };
  if (o.answeredAt < sentAt) silentOrigins.set(origin, { ...o, timeouts: o.timeouts + 1, message });
}

function originOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The rate-limited node: a 429 with a short Retry-After from it is waited out and the request sent
 * again. After the probes (a full run) its bucket is empty, and quota comes back one request per
 * emission interval; a 429 says "not now", nothing about the request.
 */
export interface RateLimitedNode {
  /** host[:port] of the node. */
  host: string;
  deadline: number;
}

/** How often, and for at most how long each, a rate-limited node's 429 is waited out. */
const QUOTA_WAITS = 4;
const QUOTA_WAIT_MAX_S = 5;
const RATE_LIMITED = 429;

/**
 * Requests in flight per host in this process (the contract stage, or a Playwright worker): a
 * request past the bound waits for one to end. The bound is limits.concurrency (Playwright's workers
 * share it: contracts/playwright/host.ts). A bulk client's requests (the auth matrix: hundreds,
 * independent) take a free slot only when no other request waits, so a chain whose next request
 * depends on the last (a walk's pages) is not queued behind all of them.
 */
const hosts = new Map<string, { free: number; waiting: (() => void)[]; bulk: (() => void)[] }>();

async function inHostSlot<T>(host: string, bound: number, bulk: boolean, send: () => Promise<T>): Promise<T> {
  // By bound too: another run in this process (another target file's limits) keeps its own.
  const key = `${host} ${bound}`;
  let h = hosts.get(key);
  if (!h) hosts.set(key, (h = { free: bound, waiting: [], bulk: [] }));
  if (h.free > 0) h.free--;
  else await new Promise<void>((r) => (bulk ? h.bulk : h.waiting).push(r));
  try {
    return await send();
  } finally {
    const next = h.waiting.shift() ?? h.bulk.shift();
    if (next) next();
    else h.free++;
  }
}

export interface ApiClientOptions {
  timeoutMs: number;
  maxBodyBytes?: number;
  /** Requests in flight at once per host (default: no bound). */
  perHost?: number;
  /** Many independent requests: each waits for a slot behind every other client's (inHostSlot). */
  bulk?: boolean;
  rateLimited?: RateLimitedNode;
  /** The rate-limited node's answers already in hand (the probes', contracts/probe-answers.ts): a call one answers is not sent. */
  answered?: (spec: CallSpec) => CallResult | undefined;
  /** Aborted: no request is sent any more, and those in flight stop. */
  signal?: AbortSignal;
}

export class ApiClient {
  readonly non2xx: Non2xx[] = [];
  private readonly timeoutMs: number;
  private readonly maxBodyBytes?: number;
  private readonly rateLimited?: RateLimitedNode;

  constructor(
    private readonly recorder: Recorder,
    private readonly budget: Budget,
    private readonly opts: ApiClientOptions,
  ) {
    this.timeoutMs = opts.timeoutMs;
    this.maxBodyBytes = opts.maxBodyBytes;
    this.rateLimited = opts.rateLimited;
  }

  /**
   * Sends one request (at most `perHost` in flight per host; the rate-limited node's 429s waited
   * out) and records it.
   */
  async call(spec: CallSpec): Promise<CallResult> {
    const host = originOf(spec.url);
    const limited = this.rateLimited !== undefined && host === this.rateLimited.host;
    const known = limited ? this.opts.answered?.(spec) : undefined;
    if (known) {
      if (!known.ok) this.noteNon2xx(spec.cause ?? UNEXPECTED_CAUSE, known.exchange, known.body);
      return known;
    }
    const bound = this.opts.perHost;
    if (!limited) {
      const release = await spec.pace?.();
      const send = () => this.callOnce(spec, true, release).finally(release);
      return bound === undefined ? send() : inHostSlot(host, bound, this.opts.bulk === true, send);
    }
    for (let tries = 0; ; tries++) {
      const release = await spec.pace?.();
      const res = await this.callOnce(spec, false, release).finally(release);
      const retryAfterS = Number(res.headers['retry-after']);
      const waitMs = retryAfterS * 1000 + 50;
      const waits =
        res.status === RATE_LIMITED &&
        tries < QUOTA_WAITS &&
        Number.isInteger(retryAfterS) &&
        retryAfterS <= QUOTA_WAIT_MAX_S &&
        Date.now() + waitMs < this.rateLimited!.deadline;
      if (!waits) {
        if (!res.ok) this.noteNon2xx(spec.cause ?? UNEXPECTED_CAUSE, res.exchange, res.body);
        return res;
      }
      await pause(waitMs, this.opts.signal);
    }
  }

  /** The run's interrupt, for the WebSocket and gRPC clients to end their calls on. */
  get signal(): AbortSignal | undefined {
    return this.opts.signal;
  }

  /**
   * After an interrupt: nothing leaves, whichever client (HTTP, WebSocket, gRPC) asks, and a call it
   * cut short tells nothing about the target (a cancelled call is no refusal). Either could not be
   * tested; `exchange` is what the cut call recorded.
   */
  stopIfInterrupted(exchange?: Exchange): void {
    if (this.opts.signal?.aborted) throw new CouldNotTest('interrupted', exchange ? [exchange] : []);
  }

  /** Takes one request from the run's budget (WebSocket and gRPC clients call this too). */
  take(): void {
    this.stopIfInterrupted();
    try {
      this.budget.take();
    } catch (e) {
      if (e instanceof BudgetExceeded) throw new CouldNotTest(e.message);
      throw e;
    }
  }

  private async callOnce(spec: CallSpec, note: boolean, onHeadSent?: Release): Promise<CallResult> {
    let url = spec.url;
    let headers = { ...(spec.headers ?? {}) };
    if (spec.auth) ({ url, headers } = applyForm(spec.auth.form, spec.auth.secret, url, headers));
    const origin = originOf(url);
    const silent = silentOrigins.get(origin);
    if (silent && silent.timeouts >= SILENT_AFTER)
      throw new CouldNotTest(
        `${silent.message}; ${origin} gave no answer ${silent.timeouts} times in a row, so not tried again`,
      );
    this.take();
    const sentAt = Date.now();
    try {
      const res = await httpRequest({
        method: spec.method,
        url,
        headers,
        body: spec.body,
        timeoutMs: this.timeoutMs,
        maxBodyBytes: this.maxBodyBytes,
        beforeResend: () => this.take(),
        resendTurn: spec.pace,
        signal: this.opts.signal,
        onHeadSent,
      });
      const exchange = this.recorder.record({
        method: spec.method,
        url,
        requestHeaders: headers,
        requestBody: spec.body,
        status: res.status,
        responseHeaders: res.headers,
        responseBody: res.body,
        sentAt: res.sentAt,
        receivedAt: res.receivedAt,
        purpose: spec.purpose,
        resent: res.resent,
      });
      silentOrigins.set(origin, { timeouts: 0, message: '', answeredAt: Date.now() });
      const result: CallResult = {
        status: res.status,
        headers: res.headers,
        body: res.body,
        bytes: res.bytes,
        json: parseJson(res.body),
        exchange,
        ok: is2xx(res.status),
      };
      if (!result.ok && note) this.noteNon2xx(spec.cause ?? UNEXPECTED_CAUSE, exchange, res.body);
      return result;
    } catch (e) {
      if (!(e instanceof HttpFailure)) throw e;
      if (e.kind === 'timeout' || /TIMEOUT/.test(e.message)) silence(origin, sentAt, e.message);
      else silentOrigins.set(origin, { timeouts: 0, message: '', answeredAt: Date.now() });
      const exchange = this.recorder.record({
        method: spec.method,
        url,
        requestHeaders: headers,
        requestBody: spec.body,
        status: e.partial?.status,
        responseHeaders: e.partial?.headers,
        sentAt,
        receivedAt: Date.now(),
        error: e.message,
        purpose: spec.purpose,
        resent: e.resent,
      });
      throw new CouldNotTest(e.message, [exchange]);
    }
  }

  /** Adds a refusal seen by another client (WebSocket upgrade, gRPC call) to the ERR-01 material. */
  noteNon2xx(cause: string, exchange: Exchange, rawBody?: string, status?: number | string): void {
    this.non2xx.push({
      cause,
      purpose: exchange.purpose,
      method: exchange.method,
      status: status ?? exchange.status ?? 'none',
      contentType: mediaType(exchange.responseHeaders),
      bodyShape: bodyShape(rawBody ?? exchange.responseBody),
      exchange,
    });
  }
}
