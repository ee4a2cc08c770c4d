// Options shared by every server of the reference service. One object is built at start-up
// (CLI flags or the embedded default) and handed to each server.
import type { Customer } from '../src/target-file/types.js';
import type { HorizonLimiter } from './limiter/pipeline.js';

/** The most nodes of one kind a fleet reference serves (each is a server with its own port). */
export const MAX_FLEET_NODES = 64;

export interface ReferenceCredentials {
  apiKey: string;
  legacyApiKey: string;
  blockRestToken: string;
  chainBToken: string;
  horizonToken: string;
}

export interface ReferenceOptions {
  /** Names from the fault catalogue that are switched on. */
  faults: ReadonlySet<string>;
  /**
   * Open-behaviour variants: choices where the description is silent (status for missing
   * credentials, the apiKey query on the base URL with a new key, ...). They never break a rule;
   * they let tests show that observations and baselines notice a change.
   */
  variants: ReadonlySet<string>;
  customer: Customer;
  /** Requests per hour; T = 3600 s / hourlyLimit. Default by customer kind. */
  hourlyLimit: number;
  /** GCRA burst; Limit = burst + 1. Real nodes use 100. */
  burst: number;
  /** The proxy's cap on accepted requests in any one second, per token. */
  perSecondCap: number;
  /** Added delay on every answer: base ms and uniform jitter ms (seeded). */
  latency?: { baseMs: number; jitterMs: number };
  seed: number;
  credentials: ReferenceCredentials;
  /** Size of the extra large collection for scale tests (0 = none). */
  bigCollectionSize: number;
  /** Injectable clock (ms). Defaults to performance.timeOrigin + performance.now(). */
  now: () => number;
  /** Server-side request counters, for budget tests. */
  counters: RequestCounters;
  /** One limiter for every horizon node this reference serves (variant horizon-account-bucket); otherwise each node has its own. */
  horizonLimiter?: HorizonLimiter;
}

/** Counts every request each server receives (HTTP, WebSocket upgrades, gRPC calls). */
export class RequestCounters {
  private readonly counts = new Map<string, number>();
  private readonly listeners: ((server: string) => void)[] = [];

  hit(server: string): void {
    this.counts.set(server, (this.counts.get(server) ?? 0) + 1);
    for (const l of this.listeners) l(server);
  }

  of(server: string): number {
    return this.counts.get(server) ?? 0;
  }

  total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  onHit(listener: (server: string) => void): void {
    this.listeners.push(listener);
  }
}

export const preciseNow = (): number => performance.timeOrigin + performance.now();

export function defaultOptions(partial: Partial<ReferenceOptions> = {}): ReferenceOptions {
  const customer = partial.customer ?? 'dedicated';
  return {
    faults: new Set(),
    variants: new Set(),
    customer,
    hourlyLimit: customer === 'shared' ? 2000 : 3600,
    burst: 100,
    perSecondCap: 20,
    seed: 42,
    credentials: {
      apiKey: 'ref-new-key-7f3a9c2e41d84b6f',
      legacyApiKey: 'ref-legacy-key-2b8e5d1c9a7f4e03',
      blockRestToken: 'ref-node-a-token-5c1e9b7d3f2a',
      chainBToken: 'ref-node-b-token-8d4f2a6c1e9b',
      horizonToken: 'ref-node-c-token-3a7c9e1b5d2f',
    },
    bigCollectionSize: 0,
    now: preciseNow,
    counters: new RequestCounters(),
    ...partial,
  };
}
