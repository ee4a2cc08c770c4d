// The requests of a run as the metrics count them: one sample per request, named by the access
// family that sent it and the endpoint's templated path (/nft/v1/{protocol}/{network}/event/{event_id}),
// never by its URL, its ids or its credentials, so a label holds one of a short, fixed list of
// values whatever the target answers. Samples come from the exchanges the checks carry as evidence
// (each exchange once, however many checks cite it), so a merge of runs made elsewhere has them
// too; a stage that knows its requests may hand them over directly instead.
import { ENDPOINTS } from '../service/endpoints.js';
import { familyOf } from '../rules/catalogue.js';
import type { Exchange } from '../record/recorder.js';
import type { CheckResult } from '../verdict.js';

export interface RequestSample {
  /** The access family that sent the request (auth, universal, native, nft, node, errors, load), or `other`. */
  family: string;
  /** The endpoint's path template, or one of the fixed names below for other transports. */
  endpoint: string;
  /** The HTTP status of the answer; absent when none came (refused, timed out, cut off, a gRPC call). */
  status?: number;
  /** From the request leaving to its answer complete (or its failure), ms; absent when not recorded. */
  networkMs?: number;
  /** The deployment it went to (a fleet's checks name it; a single run's is the run's target). */
  target?: string;
}

/** Endpoint names for what has no path template of its own. */
export const WEBSOCKET_ENDPOINT = '(websocket)';
export const OTHER_ENDPOINT = '(other)';
/** gRPC services chainprobe calls by name; any other service's method is templated. */
const KNOWN_GRPC = /^\/grpc\.(?:reflection\.v1(?:alpha)?\.ServerReflection|health\.v1\.Health)\/\w+$/;
export const GRPC_OTHER_ENDPOINT = '(grpc) /{service}/{method}';

interface Template {
  endpoint: string;
  family: string;
  match: RegExp;
  /** Literal characters: the more, the more specific (tried first). */
  literal: number;
}

const TEMPLATES: readonly Template[] = Object.values(ENDPOINTS)
  .map((e) => ({
    endpoint: e.path,
    family: e.family,
    // Matched at the end of the path: a base URL may carry a path of its own before it.
    match: new RegExp(`${e.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`),
    literal: e.path.replace(/\{[^}]+\}/g, '').length,
  }))
  .sort((a, b) => b.literal - a.literal || a.endpoint.localeCompare(b.endpoint));

/** The endpoint (and the family the endpoint table gives it) of a request, from its method and URL. */
export function endpointOf(method: string, url: string): { endpoint: string; family?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { endpoint: OTHER_ENDPOINT };
  }
  if (method === 'GRPC' || u.protocol === 'grpc:' || u.protocol === 'grpcs:')
    return { endpoint: KNOWN_GRPC.test(u.pathname) ? `(grpc) ${u.pathname}` : GRPC_OTHER_ENDPOINT, family: 'node' };
  if (u.protocol === 'ws:' || u.protocol === 'wss:') return { endpoint: WEBSOCKET_ENDPOINT, family: 'node' };
  const t = TEMPLATES.find((x) => x.match.test(u.pathname));
  return t ? { endpoint: t.endpoint, family: t.family } : { endpoint: OTHER_ENDPOINT };
}

function familyOfRule(rule: string): string | undefined {
  try {
    return familyOf(rule);
  } catch {
    return undefined;
  }
}

/** Samples gathered one check at a time (a merge reads its checks back from disk once): each exchange once. */
export class SampleCollector {
  readonly samples: RequestSample[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly defaultTarget?: string) {}

  add(c: CheckResult): void {
    const exchanges = c.evidence?.exchanges;
    if (!Array.isArray(exchanges)) return;
    for (const x of exchanges as Exchange[]) {
      if (!x || typeof x.url !== 'string' || typeof x.method !== 'string') continue;
      // A run's exchanges are numbered per recorder (a fleet has one per unit): the time and URL tell them apart.
      const key = [c.target, c.node, c.nodeKind, x.seq, x.sentAt, x.method, x.url].join('\u0000');
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      const { endpoint, family } = endpointOf(x.method, x.url);
      const target = c.target ?? this.defaultTarget;
      this.samples.push({
        family: familyOfRule(c.rule) ?? family ?? 'other',
        endpoint,
        ...(typeof x.status === 'number' && { status: x.status }),
        ...(typeof x.durationMs === 'number' && { networkMs: x.durationMs }),
        ...(target !== undefined && { target }),
      });
    }
  }
}

/** One sample per distinct exchange the checks carry, in the order first met. */
export function samplesFromChecks(checks: Iterable<CheckResult>, defaultTarget?: string): RequestSample[] {
  const collector = new SampleCollector(defaultTarget);
  for (const c of checks) collector.add(c);
  return collector.samples;
}

/** `1xx` ... `5xx`, or `none` when no HTTP status came (no answer; a gRPC call, which has none). */
export function statusClass(status: number | undefined): string {
  if (status === undefined || !Number.isInteger(status) || status < 100 || status > 599) return 'none';
  return `${Math.floor(status / 100)}xx`;
}
