// One probe run's traffic: every request claims the shared budget, is recorded (redacted) through
// the Recorder, has its rate-limit headers parsed, and becomes a Sample. No request leaves after
// an abort or once the budget is spent: those stop the running phase with a StopProbe.
import type { Exchange, ExchangeInput } from '../src/record/recorder.js';
import type { ProbeAnswer } from '../src/stages.js';
import type { Engine, EngineResponse, ProbeMethod } from './engine/types.js';
import { parseRateLimitHeaders, type Sample } from './sample.js';
import { PLAIN_FORM, tagOf, type Variation } from './variations.js';
import { DEFAULT_BOUNDS, type HeaderBounds } from './model/possible.js';
import {
  gapSinceForwarded,
  headerlessRefusal,
  pacingGapMs,
  ProxySpacing,
  surelyElapsedSinceForwarded,
} from './model/proxy.js';

/** Why a phase stopped early: the run's budget, an abort, or a node that gave no usable answer. */
export type StopReason = 'budget' | 'interrupted' | 'network' | 'refused';

export { parseRateLimitHeaders, RL_HEADERS, type RateLimitHeaders, type RlField, type Sample } from './sample.js';

export class StopProbe extends Error {
  constructor(
    readonly reason: StopReason,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
    this.name = 'StopProbe';
  }
}

/** The budget as the probes see it (src/budget.ts in Node, a plain counter under k6). */
export interface BudgetLike {
  /** Claims one request; throws when the run may not send it. */
  take(): void;
  fits(n: number): boolean;
  /** Which bound keeps n more requests from fitting, in words; undefined when they fit. */
  shortfall(n: number): string | undefined;
  msLeft(): number;
}

export interface SessionEnv {
  engine: Engine;
  budget: BudgetLike;
  record: (x: ExchangeInput) => Exchange;
  aborted: () => boolean;
  progress: (phase: string, expectedRemainingMs: number | undefined, requestsSent: number) => void;
}

const noop = (): void => undefined;

/**
 * How a request is paced: `spaced` keeps the proxy's learned least gap after the previous send (the
 * default); `burst` does not; `aside` does not either, and the next paced request keeps its gap from
 * the one before this (a request sent between paced ones).
 */
export type Pacing = 'spaced' | 'burst' | 'aside';

/** Tries of one probe request the proxy refused for spacing (each after a wider gap). */
export const PROXY_RETRIES = 3;

/** How often a paced request waits again for the request before it to answer (Session.waitPaced). */
export const PACED_WAITS = 4;

/** Statuses that answer a request for what it is (data, or the token refused), not for when it came. */
const REUSABLE_STATUS = (status: number): boolean =>
  (status >= 200 && status < 300) || status === 401 || status === 403;

export class Session {
  readonly samples: Sample[] = [];
  /** The first complete answer to each method and token form (ProbeAnswer: the horizon contract checks judge these). */
  readonly answers = new Map<string, ProbeAnswer>();
  /** What the proxy's refusals have taught about its spacing (every sample feeds it). */
  readonly spacing: ProxySpacing;
  private phase = 'start';
  private seq = 0;
  private inFlight = new Set<Promise<Sample>>();

  constructor(
    readonly env: SessionEnv,
    cap = 20,
    /** What a GCRA limiter can send at all (model/possible.ts): values beyond are parsed as absent. */
    readonly headerBounds: HeaderBounds = DEFAULT_BOUNDS,
  ) {
    this.spacing = new ProxySpacing(cap);
  }

  now(): number {
    return this.env.engine.now();
  }

  /**
   * The least gap kept between paced sends, ms: never under one cap interval with the margin (what a
   * strict-spacing proxy such as nginx `limit_req` without burst accepts, known before it refuses
   * anything, so its spacing costs no refusals to learn), and wider once the proxy taught more.
   */
  get paceMs(): number {
    const cap = this.spacing.cap;
    const prior = cap > 0 && Number.isFinite(cap) ? pacingGapMs(1000 / cap, cap) : 0;
    return Math.max(this.spacing.gapMs, prior);
  }

  /** When the latest request fired leaves, as the pacing has it (engine ms): the engine keeps each gap from the previous send. */
  private departsAt = -Infinity;
  /** The latest answer's arrival (engine ms). */
  private lastAnswerAt = -Infinity;
  /** The latest request fired, and when its answer came (undefined while in flight). */
  private lastFired: { seq: number; answeredAt?: number } | undefined;

  /** A cap interval plus 1 ms (a proxy's whole-millisecond clock), ms; undefined without a finite cap. */
  private capIntervalMs(): number | undefined {
    const cap = this.spacing.cap;
    return cap > 0 && Number.isFinite(cap) ? 1000 / cap + 1 : undefined;
  }

  /**
   * The earliest a paced request fired now may leave (engine ms): one paced gap after the latest
   * request fired (the engine keeps it between actual sends; a loop that schedules no sooner never has
   * a request held back, which would leave late, even after the answer that should have stopped it,
   * and let small delays add up). And a cap interval after that request reached the server, taken as
   * its answer less the median round trip, or now while it is unanswered: a request the server read
   * late (a stalled machine, a new connection) is not followed closer than a strict proxy allows.
   */
  nextPacedAt(): number {
    const paced = this.departsAt + this.paceMs;
    const interval = this.capIntervalMs();
    if (!this.lastFired || interval === undefined) return paced;
    const rtts = this.samples
      .filter((s) => s.status !== undefined)
      .map((s) => s.receivedAt - s.sentAt)
      .sort((a, b) => a - b);
    const typical = rtts[Math.floor(rtts.length / 2)] ?? 0;
    return Math.max(paced, (this.lastFired.answeredAt ?? this.now()) - typical + interval);
  }

  /**
   * Waits until `at` and until a paced request may leave (nextPacedAt, judged again as answers come
   * in, at most PACED_WAITS times); returns the time it waited for.
   */
  async waitPaced(at: number): Promise<number> {
    let t = Math.max(at, this.nextPacedAt());
    for (let i = 0; i < PACED_WAITS; i++) {
      await this.waitUntil(t);
      const next = this.nextPacedAt();
      if (next <= this.now()) break;
      t = next;
    }
    return t;
  }

  /**
   * While nothing is in flight: a cap interval (plus 1 ms for a proxy's whole-millisecond clock) after
   * the latest answer, when the request before surely reached the proxy whatever the network delays
   * (the first request on a new connection, or one the server read late, arrives well after it was
   * sent): from then on a strict-spacing proxy cannot refuse the next one for spacing. -Infinity otherwise.
   */
  private quietAt(): number {
    const interval = this.capIntervalMs();
    if (this.inFlight.size > 0 || interval === undefined) return -Infinity;
    return this.lastAnswerAt + interval;
  }

  get requestsSent(): number {
    return this.samples.length + this.inFlight.size;
  }

  enter(phase: string, expectedRemainingMs?: number): void {
    this.phase = phase;
    this.env.progress(phase, expectedRemainingMs, this.requestsSent);
  }

  /** Runs f under another phase's name, inside a phase that goes on after it (a hook). */
  async aside<T>(phase: string, f: () => Promise<T>): Promise<T> {
    const was = this.phase;
    this.enter(phase);
    try {
      return await f();
    } finally {
      this.phase = was;
    }
  }

  private checkAbort(): void {
    if (this.env.aborted()) throw new StopProbe('interrupted', `stopped during ${this.phase}`);
  }

  /** Waits until engine time t; throws when the run is aborted or the wait outlives the time budget. */
  async waitUntil(t: number): Promise<void> {
    this.checkAbort();
    if (t - this.now() > this.env.budget.msLeft()) {
      throw new StopProbe(
        'budget',
        `${this.phase} needs to wait ${Math.ceil((t - this.now()) / 1000)} s, past the run's time limit (limits.maxSeconds)`,
      );
    }
    await this.env.engine.sleepUntil(t);
    this.checkAbort();
  }

  /** Claims the budget and sends now (plain, or varied); resolves when the answer is in. */
  fire(
    method: ProbeMethod,
    purpose: string,
    scheduledAt?: number,
    pacing: Pacing = 'spaced',
    variation?: Variation,
  ): Promise<Sample> {
    this.checkAbort();
    try {
      this.env.budget.take();
    } catch (e) {
      throw new StopProbe('budget', e instanceof Error ? e.message : String(e));
    }
    const phase = this.phase;
    const seq = ++this.seq;
    const planned = scheduledAt ?? this.now();
    const minGapMs = pacing === 'spaced' ? this.paceMs : 0;
    if (pacing !== 'aside') {
      this.departsAt = Math.max(this.now(), this.departsAt + minGapMs);
      this.lastFired = { seq };
    }
    this.unanswered.add(seq);
    const p = this.env.engine
      .send(method, scheduledAt, minGapMs, { variation: variation?.request, aside: pacing === 'aside' })
      .then((r) => this.toSample(r, seq, phase, purpose, method, planned, pacing, variation));
    this.inFlight.add(p);
    // `then`, not `finally`: the k6 bundles target engines without Promise.prototype.finally.
    const forget = () => void this.inFlight.delete(p);
    p.then(forget, forget);
    return p;
  }

  /**
   * Waits until `at` (when given; a time already past means now), then sends and awaits the answer.
   * A request sent on its own (nothing in flight) also waits until the one before surely reached the
   * proxy a cap interval earlier (quietAt): one round trip at most, and no strict proxy refuses it.
   */
  async send(method: ProbeMethod, purpose: string, at?: number, variation?: Variation): Promise<Sample> {
    const quiet = this.quietAt();
    if (at === undefined && quiet <= this.now()) return this.fire(method, purpose, undefined, 'spaced', variation);
    const planned = Math.max(at ?? -Infinity, quiet, this.now());
    await this.waitUntil(planned);
    return this.fire(method, purpose, planned, 'spaced', variation);
  }

  /**
   * Like send, but a request the proxy may have refused (a headerless refusal while quota was left,
   * or possibly sooner at the proxy after the last forwarded request than twice the learned spacing:
   * sent less than that after its answer) is sent again after
   * the wider gap, up to PROXY_RETRIES times: a probe that must reach the limiter does. Every try is
   * recorded and judged; the answer returned is the last.
   */
  async sendToLimiter(method: ProbeMethod, purpose: string, at?: number, variation?: Variation): Promise<Sample> {
    let s = await this.send(method, purpose, at, variation);
    for (let i = 0; i < PROXY_RETRIES && this.proxyMayHaveRefused(s); i++) {
      this.env.progress(
        `${this.phase}: the proxy refused a request ${Math.round(gapSinceForwarded(this.samples, s))} ms after the last one; ` +
          `again ${Math.round(this.paceMs)} ms apart`,
        undefined,
        this.requestsSent,
      );
      s = await this.send(method, `${purpose} (again: the proxy refused it)`, undefined, variation);
    }
    return s;
  }

  /** A headerless refusal the proxy may have made (see sendToLimiter). */
  proxyMayHaveRefused(s: Sample): boolean {
    if (!headerlessRefusal(s)) return false;
    // A variation refused with another status was refused for what it varies (a token form the node does not read).
    if (s.variation && s.status !== 429 && s.status !== 503) return false;
    // Before any limiter answer nothing says the bucket is empty: a headerless refusal then is no evidence either way.
    // (Only for the statuses a cap answers with: a 401 is the token's, not a proxy's cap.)
    const nothingKnown =
      (s.status === 429 || s.status === 503) && !this.samples.some((x) => x !== s && x.rl.remaining !== undefined);
    return (
      nothingKnown ||
      this.spacingRefused.has(s) ||
      (this.spacing.gapMs > 0 && surelyElapsedSinceForwarded(this.samples, s) < 2 * this.spacing.gapMs)
    );
  }

  private readonly spacingRefused = new WeakSet<Sample>();
  private readonly unanswered = new Set<number>();

  /** Every request still in flight has answered. */
  async settle(): Promise<void> {
    await Promise.all([...this.inFlight].map((p) => p.then(noop, noop)));
  }

  private keepAnswer(r: EngineResponse, method: ProbeMethod, exchange: Exchange, variation?: Variation): void {
    const v = variation?.request;
    // Only the token's form may differ from the plain request: a parameter or a header changes what is asked.
    if (v && (v.params?.length || v.headers || v.paramsFirst)) return;
    const form = v?.form ?? PLAIN_FORM;
    const key = `${method} ${form}`;
    if (r.status === undefined || r.error || !REUSABLE_STATUS(r.status) || this.answers.has(key)) return;
    const body = r.body ?? '';
    const kept = Buffer.byteLength(body);
    if (r.bodyBytes !== undefined && r.bodyBytes !== kept && method !== 'HEAD') return; // cut at the engine's cap
    const bytes = r.bodyBytes ?? kept;
    this.answers.set(key, { method, form, status: r.status, headers: r.headers, body, bytes, exchange });
  }

  private toSample(
    r: EngineResponse,
    seq: number,
    phase: string,
    purpose: string,
    method: ProbeMethod,
    scheduledAt: number,
    pacing: Pacing,
    variation?: Variation,
  ): Sample {
    const epoch = this.env.engine.epochMs;
    const exchange = this.env.record({
      method,
      url: r.request.url,
      requestHeaders: r.request.headers,
      status: r.status,
      responseHeaders: r.headers,
      responseBody: r.body,
      sentAt: epoch + r.sentAt,
      receivedAt: epoch + r.receivedAt,
      error: r.error,
      purpose: `${phase}: ${purpose}`,
    });
    const sample: Sample = {
      seq,
      phase,
      purpose,
      method,
      scheduledAt,
      sentAt: r.sentAt,
      receivedAt: r.receivedAt,
      status: r.status,
      rl: parseRateLimitHeaders(r.headers, this.headerBounds),
      // Messages quote errors; the recorded one is redacted.
      error: exchange.error,
      exchange,
      ...(variation ? { variation: tagOf(variation) } : {}),
    };
    this.samples.push(sample);
    this.keepAnswer(r, method, exchange, variation);
    this.unanswered.delete(seq);
    this.lastAnswerAt = Math.max(this.lastAnswerAt, r.receivedAt);
    if (this.lastFired?.seq === seq) this.lastFired.answeredAt = r.receivedAt;
    // A burst is above the cap on purpose: its refusals say nothing about a least spacing. Nor does
    // a refusal whose predecessor has not answered yet: its gap after it is unknown.
    const predecessorsIn = ![...this.unanswered].some((x) => x < seq);
    // Nor does a variation's: it may be refused for what it varies.
    if (pacing === 'spaced' && predecessorsIn && !variation && this.spacing.observe(this.samples, sample))
      this.spacingRefused.add(sample);
    return sample;
  }
}
