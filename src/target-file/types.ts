// The target after loading: variables substituted, validated, defaults filled.
// Checks read only this shape, never the raw file.
import type { TlsSettings } from '../tls/settings.js';

export type Customer = 'dedicated' | 'shared';

export interface ResolvedLimits {
  maxRequests: number;
  maxSeconds: number;
  timeoutMs: number;
  /** After a WebSocket upgrade that should be refused: the wait for a message or the close (NAUTH-07). */
  wsGraceMs: number;
  /** Contract requests in flight at once per host over the run; DEFAULT_CONCURRENCY when the file does not say. */
  concurrency?: number;
}

/** limits.concurrency when the target file does not set it. */
export const DEFAULT_CONCURRENCY = 32;

export interface ResolvedNative {
  protocol: string;
  networks: string[];
  optionalNetworks: string[];
  blockNumberMethod: string;
  blockNumberTolerance: number;
}

export interface ResolvedNft {
  protocol: string;
  network: string;
  eventIds: string[];
  collectionId?: string;
  pageTokenParam: string;
  maxPages: number;
  /** NFT-11: seeded sample size, besides the first and last item of every page. */
  crossCheck: number;
}

export interface ResolvedApi {
  baseUrl?: string;
  legacyBaseUrl?: string;
  apiKey?: string;
  legacyApiKey?: string;
  universal: { protocol: string; network: string }[];
  native?: ResolvedNative;
  nft?: ResolvedNft;
}

export interface ResolvedBlockRest {
  /** Given in the file (required for a node of a fleet array). */
  name?: string;
  endpoint: string;
  token: string;
  height: number;
}

export interface ResolvedChainB {
  /** Given in the file (required for a node of a fleet array). */
  name?: string;
  endpoint: string;
  token: string;
  websocketUrl: string;
  grpcAddress: string;
  grpcTls: boolean;
  consensusRpcMethod: string;
}

export interface ResolvedHorizon {
  /** Given in the file (required for a node of a fleet array). */
  name?: string;
  endpoint: string;
  token: string;
  customer: Customer;
  hourlyLimit: number;
  /** Neither customer nor hourlyLimit was given: customer and hourlyLimit are the defaults, not the user's word. */
  planAssumed?: boolean;
  perSecondCap: number;
}

export interface ResolvedTarget {
  name: string;
  api?: ResolvedApi;
  nodes: {
    blockRest?: ResolvedBlockRest;
    chainB?: ResolvedChainB;
    horizon?: ResolvedHorizon;
  };
  limits: ResolvedLimits;
  /** Trust for every client (tls section, --ca, --insecure); absent: node's defaults. */
  tls?: TlsSettings;
  /**
   * Present only when the file lists a kind as an array (a fleet): every node of every kind, each
   * named (a single object's name defaults to its kind). `nodes` then holds each kind's first node.
   */
  fleet?: ResolvedFleet;
}

export type NodeKind = 'blockRest' | 'chainB' | 'horizon';
export const NODE_KINDS: readonly NodeKind[] = ['blockRest', 'chainB', 'horizon'];

export interface ResolvedNodeOf {
  blockRest: ResolvedBlockRest;
  chainB: ResolvedChainB;
  horizon: ResolvedHorizon;
}

export type Named<T> = T & { name: string };

export type ResolvedFleet = { [K in NodeKind]: Named<ResolvedNodeOf[K]>[] };

/** Every node of a kind, named: the fleet's list, or the single node named after its kind. */
export function nodesOf<K extends NodeKind>(target: ResolvedTarget, kind: K): Named<ResolvedNodeOf[K]>[] {
  if (target.fleet) return target.fleet[kind];
  const one = target.nodes[kind] as ResolvedNodeOf[K] | undefined;
  return one ? [{ ...one, name: one.name ?? kind }] : [];
}

export const DEFAULT_HOURLY_LIMIT: Record<Customer, number> = { dedicated: 3600, shared: 2000 };

/** The hard cap set in the proxy: requests in any one second, unless the target file says. */
export const DEFAULT_PER_SECOND_CAP = 20;

/** limits.wsGraceMs when the target file does not set it. */
export const DEFAULT_WS_GRACE_MS = 2000;

/** Every credential value the target holds: the redactor's list. */
export function secretsOf(target: ResolvedTarget): string[] {
  const s = [
    target.api?.apiKey,
    target.api?.legacyApiKey,
    ...NODE_KINDS.flatMap((kind) => nodesOf(target, kind).map((n) => n.token)),
  ];
  return s.filter((v): v is string => typeof v === 'string' && v.length > 0);
}
