// autocannon, driven programmatically: saturating throughput runs and fixed-rate runs.
import autocannon from 'autocannon';

export interface CannonRun {
  /** Successful (2xx) responses per second over the run. */
  rps: number;
  requests: number;
  non2xx: number;
  errors: number;
  durationS: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
}

export interface CannonOptions {
  url: string;
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  seconds: number;
  connections?: number;
  /** Requests per second over all connections (autocannon's own pacing). */
  overallRate?: number;
}

/**
 * autocannon's response parser (http-parser-js) does not know its request was a HEAD, so it waits
 * for the body that Content-Length announces and never completes the response. Its
 * headers-complete callback may return a "skip the body" flag; the client assigns that callback
 * after `setupClient` runs, so a setter on the parser wraps whatever is assigned.
 */
function skipBodies(client: autocannon.Client): void {
  const parser = (client as unknown as { parser: Record<number, unknown> }).parser;
  const ON_HEADERS_COMPLETE = 2; // http-parser-js HTTPParser.kOnHeadersComplete
  let wrapped: unknown;
  Object.defineProperty(parser, ON_HEADERS_COMPLETE, {
    configurable: true,
    get: () => wrapped,
    set: (fn: (...a: unknown[]) => unknown) => {
      wrapped = (...a: unknown[]) => {
        fn(...a);
        return true;
      };
    },
  });
}

export async function cannon(o: CannonOptions): Promise<CannonRun> {
  const r = await autocannon({
    url: o.url,
    method: o.method ?? 'GET',
    headers: o.headers,
    duration: o.seconds,
    connections: o.connections ?? 16,
    ...(o.overallRate && { overallRate: o.overallRate }),
    ...(o.method === 'HEAD' && { setupClient: skipBodies }),
  });
  const ok = r['2xx'];
  return {
    rps: ok / r.duration,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    durationS: r.duration,
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    latencyMaxMs: r.latency.max,
  };
}
