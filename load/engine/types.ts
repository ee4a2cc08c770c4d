// What the probe logic needs from an HTTP engine. The probes are engine-free: the Node engine
// (undici) and the k6 adapter both implement this, so the same plan runs under either.
import { applyForm, withQueryParam, type FormId } from '../../src/auth/forms.js';
import { FEE_STATS_HEADERS, feeStatsUrlOf } from '../../src/service/fee-stats.js';

export type ProbeMethod = 'GET' | 'HEAD';

export interface EngineResponse {
  /** Engine clock (ms since the engine started): when the request left and when the answer was complete. */
  sentAt: number;
  receivedAt: number;
  status?: number;
  /** Response headers, names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The start of the body (up to the engine's cap) and its full size in bytes. */
  body?: string;
  bodyBytes?: number;
  error?: string;
  /** The request exactly as sent. It carries the credential: only the Recorder may read it. */
  request: { method: ProbeMethod; url: string; headers: Record<string, string> };
}

export interface PacingStats {
  /** Requests sent on a schedule, and how late they left (sentAt - scheduledAt), ms. */
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Requests sent with a least gap after the previous send, and the smallest actual gap less the one asked for, ms (never negative). */
  gapped?: { count: number; minSlackMs: number; minGapMs: number };
}

export interface Engine {
  readonly name: string;
  /** Wall-clock ms (epoch) at engine time 0. */
  readonly epochMs: number;
  now(): number;
  /** Resolves at `t` (engine ms), or at once when the run is aborted. */
  sleepUntil(t: number): Promise<void>;
  /**
   * Sends now, or once `minGapMs` have passed since the previous send (measured between actual send
   * times, so a late request never leaves closer to the next one). Never rejects: failures come
   * back in `error`. `scheduledAt` feeds the pacing statistics.
   */
  send(method: ProbeMethod, scheduledAt?: number, minGapMs?: number, opts?: SendOptions): Promise<EngineResponse>;
  pacing(): PacingStats;
  close(): Promise<void>;
}

/** The horizon node's fee-statistics path with the token in the `auth` query parameter. */
export function feeStatsUrl(endpoint: string, token: string): string {
  return withQueryParam(feeStatsUrlOf(endpoint), 'auth', token);
}

export interface SendOptions {
  /** The request varied (RL-14); plain when absent. */
  variation?: RequestVariation;
  /** Sent between paced requests: it waits for no gap and the next one keeps its gap from the one before it. */
  aside?: boolean;
}

/**
 * How one request departs from the plain one (the token in `auth`, nothing else): the token in
 * another form, query parameters besides it (before or after it), extra headers. RL-14's probes.
 */
export interface RequestVariation {
  form?: FormId;
  params?: readonly (readonly [name: string, value: string])[];
  paramsFirst?: boolean;
  headers?: Readonly<Record<string, string>>;
}

/** The fee-statistics request with the token, plain or varied. It carries the credential: for the engines and the Recorder only. */
export function feeStatsRequest(
  endpoint: string,
  token: string,
  v: RequestVariation = {},
): { url: string; headers: Record<string, string> } {
  let url = feeStatsUrlOf(endpoint);
  const addParams = () => {
    for (const [name, value] of v.params ?? []) url = withQueryParam(url, name, value);
  };
  if (v.paramsFirst) addParams();
  const r = applyForm(v.form ?? 'auth-query', token, url, { ...FEE_STATS_HEADERS, ...v.headers });
  url = r.url;
  if (!v.paramsFirst) addParams();
  return { url, headers: r.headers };
}
