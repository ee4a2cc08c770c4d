// The service's HTTP endpoints and other transports, from the endpoint tables of the description,
// as data: the contract specs build their URLs from these paths (contracts/urls.ts), and the
// OpenAPI export (src/export/) describes each one. Bodies are named schemas of schemas/; a body
// the description does not show has none, and nothing here invents one.
import type { NodePath } from '../auth/forms.js';
import type { Family } from '../rules/catalogue.js';
import type { SchemaName } from '../schemas/validate.js';
import { FEE_STATS_PATH } from './fee-stats.js';

/** Where an endpoint lives: {base_url} (new keys), {legacy_base_url} (legacy keys) or a node's Endpoint URL. */
export type ServerKind = 'base' | 'legacy' | 'node';
export type HttpMethod = 'GET' | 'POST' | 'HEAD';

export interface ParamDef {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  /** A named schema of schemas/; absent: a plain string. */
  readonly schema?: SchemaName;
  /** JSON type when no named schema fits (a block height is an integer). */
  readonly type?: 'string' | 'integer';
  readonly description: string;
  /** Values the description shows (not a closed list). */
  readonly shown?: readonly string[];
}

export interface BodyDef {
  /** The body's schema; absent: the description does not show it (the body is left open). */
  readonly schema?: SchemaName;
  /** Alternatives the standard allows besides `schema` (JSON-RPC error responses, batches). */
  readonly anyOf?: readonly SchemaName[];
  /** The standard also allows an array of these (a JSON-RPC batch answer). */
  readonly batch?: boolean;
  /** When the answer may have no body at all (a JSON-RPC notification). */
  readonly empty?: string;
  /** The media type, where a rule states it (`2xx JSON`); absent: not shown. */
  readonly mediaType?: 'application/json';
  /** Why the body is open, or what the schema leaves to the checks. */
  readonly note?: string;
  /** The rules that judge this body. */
  readonly rules: readonly string[];
}

export interface EndpointDef {
  /** Stable name: the OpenAPI operationId's stem. */
  readonly id: string;
  readonly family: Family;
  readonly methods: readonly HttpMethod[];
  /** Path template relative to the server, `{name}` for a path parameter. */
  readonly path: string;
  readonly servers: readonly ServerKind[];
  readonly summary: string;
  /** The part of the description the endpoint comes from. */
  readonly source: string;
  readonly params: readonly ParamDef[];
  /** Request headers the description shows (Content-Type: OpenAPI names it with the body, or in words). */
  readonly contentTypeJson?: boolean;
  readonly requestBody?: BodyDef;
  readonly response: BodyDef;
  /** The rules of the endpoint itself (its body schemas carry their own). */
  readonly rules: readonly string[];
  /** For node endpoints: the row of NODE_TOKEN_USAGES (src/auth/forms.ts) that says which token forms it takes. */
  readonly nodePath?: NodePath;
  /** Answers carry the rate-limit headers; the limiter refuses with 429 and retry-after. */
  readonly rateLimited?: boolean;
}

const API: readonly ServerKind[] = ['base', 'legacy'];
const NODE: readonly ServerKind[] = ['node'];

const chain: readonly ParamDef[] = [
  { name: 'protocol', in: 'path', required: true, description: 'Path segment naming a chain.' },
  {
    name: 'network',
    in: 'path',
    required: true,
    description: 'Path segment naming one of the networks of the chain.',
    shown: ['mainnet', 'ropsten', 'holesky', 'sepolia'],
  },
];

const notShown = (what: string, rules: readonly string[], mediaType?: 'application/json'): BodyDef => ({
  ...(mediaType && { mediaType }),
  note: `${what}: not shown in the description; left open.`,
  rules,
});

export const ENDPOINTS = {
  blockNumber: {
    id: 'blockNumber',
    family: 'universal',
    methods: ['GET'],
    path: '/universal/v1/{protocol}/{network}/sync/block_number',
    servers: API,
    summary: 'Current block number of a network',
    source: 'Endpoints / Universal REST',
    params: chain,
    response: notShown('Response body (chainprobe reads a non-negative integer from it, UNI-01)', ['UNI-01', 'UNI-02']),
    rules: ['UNI-01', 'UNI-02', 'AUTH-12'],
  },
  native: {
    id: 'native',
    family: 'native',
    methods: ['POST'],
    path: '/{protocol}/{network}/native',
    servers: API,
    summary: 'Forwards a JSON-RPC 2.0 call to a chain-native method',
    source: 'Endpoints / Native JSON-RPC',
    params: chain,
    contentTypeJson: true,
    requestBody: { schema: 'jsonrpc-request', mediaType: 'application/json', rules: ['RPC-01'] },
    response: {
      anyOf: ['jsonrpc-success-response', 'jsonrpc-error-response'],
      batch: true,
      empty: 'A notification (a request without id) gets no Response object (RPC-09); the HTTP status is open.',
      mediaType: 'application/json',
      note: 'A Response object, or an array of them for a batch (whether batches are served is open, RPC-08).',
      rules: ['RPC-01', 'RPC-04', 'RPC-12'],
    },
    rules: [
      'RPC-01',
      'RPC-02',
      'RPC-03',
      'RPC-04',
      'RPC-05',
      'RPC-06',
      'RPC-07',
      'RPC-08',
      'RPC-09',
      'RPC-10',
      'RPC-11',
      'RPC-12',
    ],
  },
  event: {
    id: 'nftEvent',
    family: 'nft',
    methods: ['GET'],
    path: '/nft/v1/{protocol}/{network}/event/{event_id}',
    servers: API,
    summary: 'One NFT event',
    source: 'Endpoints / NFT data API',
    params: [
      ...chain,
      {
        name: 'event_id',
        in: 'path',
        required: true,
        schema: 'common#/$defs/uuid',
        description:
          'UUID-formatted event id, from the `id` of an event of the events list (whose endpoint is not shown).',
      },
    ],
    response: { schema: 'event-response', mediaType: 'application/json', rules: ['NFT-01'] },
    rules: ['NFT-01', 'NFT-02', 'NFT-03', 'NFT-04', 'NFT-12', 'NFT-13', 'RES-01', 'RES-02'],
  },
  collection: {
    id: 'nftCollection',
    family: 'nft',
    methods: ['GET'],
    path: '/nft/v1/{protocol}/{network}/collection/{collection_id}',
    servers: API,
    summary: 'One NFT collection',
    source: 'Endpoints / NFT data API',
    params: [
      ...chain,
      {
        name: 'collection_id',
        in: 'path',
        required: true,
        schema: 'common#/$defs/uuid',
        description:
          'UUID-formatted collection id, from the `id` of a record of the collections list or search (whose endpoints are not shown).',
      },
    ],
    response: { schema: 'collection-response', mediaType: 'application/json', rules: ['NFT-05'] },
    rules: ['NFT-05', 'NFT-11', 'NFT-12', 'NFT-13', 'RES-01', 'RES-02'],
  },
  asset: {
    id: 'nftAsset',
    family: 'nft',
    methods: ['GET'],
    path: '/nft/v1/{protocol}/{network}/asset',
    servers: API,
    summary: 'One NFT asset, selected by contract address and token id together',
    source: 'Endpoints / NFT data API',
    params: [
      ...chain,
      { name: 'contract_address', in: 'query', required: true, description: 'Contract address; used with token_id.' },
      { name: 'token_id', in: 'query', required: true, description: 'Token id; used with contract_address.' },
    ],
    response: { schema: 'asset-response', mediaType: 'application/json', rules: ['NFT-06'] },
    rules: ['NFT-06', 'NFT-07', 'NFT-11', 'NFT-12', 'RES-01', 'RES-02', 'AUTH-06'],
  },
  rarity: {
    id: 'nftRarityList',
    family: 'nft',
    methods: ['GET'],
    path: '/nft/v1/{protocol}/{network}/assets/rarity/{collection_id}',
    servers: API,
    summary: "A collection's assets by rarity rank, one page at a time",
    source: 'Endpoints / NFT data API',
    params: [
      ...chain,
      {
        name: 'collection_id',
        in: 'path',
        required: true,
        schema: 'common#/$defs/uuid',
        description: 'UUID-formatted collection id.',
      },
      {
        name: 'sort_by',
        in: 'query',
        required: false,
        description:
          'Sort order; with rarity_rank the list holds every asset of the collection, rarest first. ' +
          'The name of the parameter that carries a page token back, and any other parameter: not shown ' +
          '(chainprobe sends the name in the target file, api.nft.pageTokenParam).',
        shown: ['rarity_rank'],
      },
    ],
    response: { schema: 'rarity-list-response', mediaType: 'application/json', rules: ['NFT-08'] },
    rules: ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'NFT-11', 'RES-01', 'RES-02', 'AUTH-06'],
  },
  blockByHeight: {
    id: 'nodeBlockByHeight',
    family: 'node',
    methods: ['GET'],
    path: '/v1/blocks/by_height/{height}',
    servers: NODE,
    summary: 'A block by its height (node with REST access)',
    source: 'Endpoints / Dedicated node endpoints (block-by-height REST)',
    params: [{ name: 'height', in: 'path', required: true, type: 'integer', description: 'Block height.' }],
    contentTypeJson: true,
    response: notShown('Response shape (NODE-01 wants 2xx JSON)', ['NODE-01'], 'application/json'),
    rules: ['NODE-01', 'NAUTH-01', 'NAUTH-02', 'NAUTH-03', 'NAUTH-07'],
    nodePath: 'blockRest',
  },
  appRestNodeInfo: {
    id: 'nodeAppRestNodeInfo',
    family: 'node',
    methods: ['GET'],
    path: '/app_rest/node_info',
    servers: NODE,
    summary: 'Node information, application REST (chain B)',
    source: 'Endpoints / Dedicated node endpoints (application REST)',
    params: [],
    contentTypeJson: true,
    response: notShown('Response body (NODE-03 wants 2xx JSON)', ['NODE-03'], 'application/json'),
    rules: ['NODE-03', 'NAUTH-04', 'NAUTH-07'],
    nodePath: 'appRest',
  },
  consensusRpc: {
    id: 'nodeConsensusRpc',
    family: 'node',
    methods: ['POST'],
    path: '/consensus_rpc',
    servers: NODE,
    summary: 'Consensus RPC call (chain B)',
    source: 'Endpoints / Dedicated node endpoints (consensus RPC)',
    params: [],
    requestBody: { schema: 'node-rpc-request', mediaType: 'application/json', rules: ['NODE-04'] },
    response: notShown(
      'Response body (NODE-04 wants 2xx JSON echoing the request id)',
      ['NODE-04'],
      'application/json',
    ),
    rules: ['NODE-04', 'NAUTH-04', 'NAUTH-07'],
    nodePath: 'consensusRpc',
  },
  consensusRestStatus: {
    id: 'nodeConsensusRestStatus',
    family: 'node',
    methods: ['POST'],
    path: '/consensus_rest/status',
    servers: NODE,
    summary: 'Consensus status, consensus REST (chain B)',
    source: 'Endpoints / Dedicated node endpoints (consensus REST)',
    params: [],
    contentTypeJson: true,
    response: notShown('Response body (NODE-05 wants 2xx JSON)', ['NODE-05'], 'application/json'),
    rules: ['NODE-05', 'NAUTH-04', 'NAUTH-07'],
    nodePath: 'consensusRest',
  },
  feeStats: {
    id: 'nodeFeeStats',
    family: 'node',
    methods: ['GET', 'HEAD'],
    path: FEE_STATS_PATH,
    servers: NODE,
    summary: 'Fee statistics of the horizon-style node; HEAD is what rate-limit checks use',
    source: 'Endpoints / Dedicated node endpoints (fee statistics); Limits; Errors',
    params: [],
    response: notShown(
      'Response body (NODE-07 wants 2xx JSON to GET, no body to HEAD)',
      ['NODE-07'],
      'application/json',
    ),
    rules: ['NODE-07', 'NAUTH-04', 'NAUTH-07'],
    nodePath: 'feeStats',
    rateLimited: true,
  },
} as const satisfies Record<string, EndpointDef>;

export type EndpointName = keyof typeof ENDPOINTS;

/** A path template with its parameters filled in, each one encoded as one path segment. */
export function fillPath(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`path ${template}: no value for {${name}}`);
    return encodeURIComponent(String(v));
  });
}

/** The node transports that are not HTTP requests with a body: listed beside the HTTP endpoints. */
export interface TransportDef {
  readonly id: string;
  readonly transport: 'websocket' | 'grpc';
  /** As the description writes the address. */
  readonly address: string;
  readonly summary: string;
  readonly source: string;
  readonly nodePath: NodePath;
  readonly rules: readonly string[];
}

export const TRANSPORTS: readonly TransportDef[] = [
  {
    id: 'nodeWebSocket',
    transport: 'websocket',
    address: 'wss://{node_endpoint}:8443/websocket',
    summary: 'WebSocket connection; messages exchanged: not shown',
    source: 'Endpoints / Dedicated node endpoints (WebSocket)',
    nodePath: 'websocket',
    rules: ['NODE-02', 'NAUTH-05', 'NAUTH-07'],
  },
  {
    id: 'nodeGrpc',
    transport: 'grpc',
    address: '{node_endpoint}:443',
    summary: 'gRPC; services are listed by server reflection, their contents: not shown',
    source: 'Endpoints / Dedicated node endpoints (gRPC)',
    nodePath: 'grpc',
    rules: ['NODE-06', 'NAUTH-06', 'NAUTH-07'],
  },
];

export interface ServerDef {
  /** As the description writes the address. */
  readonly url: string;
  readonly variable: string;
  /** A placeholder value (a reserved .invalid name), for tools that need a default. */
  readonly example: string;
  readonly description: string;
  readonly source: string;
}

export const SERVERS: Readonly<Record<ServerKind, ServerDef>> = {
  base: {
    url: '{base_url}',
    variable: 'base_url',
    example: 'https://api.example.invalid',
    description: 'The service for new API keys (created after August 2022).',
    source: 'What the service does; Authentication / Key types',
  },
  legacy: {
    url: '{legacy_base_url}',
    variable: 'legacy_base_url',
    example: 'https://legacy.example.invalid',
    description:
      'The service for legacy API keys (created before September 2022) and Enterprise tier users. The family table ' +
      'names it for universal REST; the key types table makes it the base address of legacy keys, and chainprobe ' +
      'checks legacy keys on every API endpoint there (AUTH-04, AUTH-05).',
    source: 'What the service does; Authentication / Key types',
  },
  node: {
    url: 'https://{node_endpoint}',
    variable: 'node_endpoint',
    example: 'node.example.invalid',
    description: "A dedicated node's Endpoint URL, issued per purchased node together with its Auth Token.",
    source: 'Endpoints / Dedicated node endpoints; Authentication / Node access',
  },
};
