// The target after loading: variables substituted, validated, defaults filled.
// Checks read only this shape, never the raw file.
import type { TlsSettings } from '../tls/settings.js';

export type Customer = 'dedicated' | 'shared';

export interface ResolvedLimits {
  maxRequests: number;
  maxSeconds: number;
  timeoutMs: number;
}

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
  endpoint: string;
  token: string;
  height: number;
}

export interface ResolvedChainB {
  endpoint: string;
  token: string;
  websocketUrl: string;
  grpcAddress: string;
  grpcTls: boolean;
  consensusRpcMethod: string;
}

export interface ResolvedHorizon {
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
}

export const DEFAULT_HOURLY_LIMIT: Record<Customer, number> = { dedicated: 3600, shared: 2000 };
