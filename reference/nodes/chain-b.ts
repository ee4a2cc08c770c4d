// Chain B's dedicated node: application REST, consensus RPC (JSON-RPC over HTTP), consensus REST
// (the same methods as URI calls), a WebSocket and gRPC. The answers follow the shapes of the
// consensus engine and application framework such chains run (heights as decimal strings,
// upper-case hex hashes); one simulated chain feeds every interface so they agree.
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { closeServer, listen, readBody, sendError, sendJson } from '../http/kit.js';
import type { ReferenceOptions } from '../options.js';
import { CHAIN_EPOCH_MS, createChain, startHeightOf, type Chain } from '../chain.js';
import { startGrpcNode, type GrpcBlock, type NodeServiceData } from './grpc.js';
import {
  decideToken,
  formsWithout,
  nodeHandler,
  presentedTokens,
  sendRefusal,
  type NodeTokenForm,
  type TokenPolicy,
  sharedTokenFaults,
} from './token.js';
import { startWebSocketNode } from './websocket.js';

// ---- The simulated chain: a block every 6 s, head from the shared chain clock, earliest height 1.

export const CHAIN_B_ID = 'chain-b-1';
export const CHAIN_B_BLOCK_MS = 6000;

export function chainBChain(seed: number, now: () => number): Chain {
  return createChain({ seed, now, blockTimeMs: CHAIN_B_BLOCK_MS });
}

class ChainB {
  private readonly chain: Chain;

  constructor(
    private readonly seed: number,
    now: () => number,
  ) {
    this.chain = chainBChain(seed, now);
  }

  hex(label: string, n: number | string = 0, bytes = 32): string {
    return createHash('sha256')
      .update(`${this.seed}:chain-b:${label}:${n}`)
      .digest('hex')
      .slice(0, bytes * 2)
      .toUpperCase();
  }

  head(): number {
    return this.chain.headOf(CHAIN_B_ID);
  }

  timeOf(height: number): string {
    return new Date(CHAIN_EPOCH_MS + (height - startHeightOf(this.seed, CHAIN_B_ID)) * CHAIN_B_BLOCK_MS).toISOString();
  }

  nodeInfo() {
    return {
      protocol_version: { p2p: '8', block: '11', app: '0' },
      default_node_id: this.hex('node-id', 0, 20).toLowerCase(),
      listen_addr: 'tcp://0.0.0.0:26656',
      network: CHAIN_B_ID,
      version: '0.38.12',
      channels: '40202122233038606100',
      moniker: 'node-b',
      other: { tx_index: 'on', rpc_address: 'tcp://0.0.0.0:26657' },
    };
  }

  applicationVersion() {
    return {
      name: 'chainb',
      app_name: 'chainbd',
      version: 'v4.2.1',
      git_commit: this.hex('commit', 0, 20).toLowerCase(),
      build_tags: 'netgo,ledger',
      go_version: 'go version go1.22.7 linux/amd64',
      build_deps: [],
      sdk_version: 'v0.50.10',
    };
  }

  proposer(height: number): string {
    return this.hex('validator', height % 7, 20);
  }

  block(height: number) {
    const hash = this.hex('block', height);
    const parts = { total: 1, hash: this.hex('parts', height) };
    const prev =
      height > 1
        ? { hash: this.hex('block', height - 1), parts: { total: 1, hash: this.hex('parts', height - 1) } }
        : { hash: '', parts: { total: 0, hash: '' } };
    return {
      block_id: { hash, parts },
      block: {
        header: {
          version: { block: '11', app: '0' },
          chain_id: CHAIN_B_ID,
          height: String(height),
          time: this.timeOf(height),
          last_block_id: prev,
          last_commit_hash: this.hex('commit-hash', height),
          data_hash: this.hex('data', height),
          validators_hash: this.hex('validators', 0),
          next_validators_hash: this.hex('validators', 0),
          consensus_hash: this.hex('consensus', 0),
          app_hash: this.hex('app', height),
          last_results_hash: this.hex('results', height),
          evidence_hash: this.hex('evidence', 0),
          proposer_address: this.proposer(height),
        },
        data: { txs: [] },
        evidence: { evidence: [] },
        last_commit: { height: String(Math.max(0, height - 1)), round: 0, block_id: prev, signatures: [] },
      },
    };
  }

  status() {
    const head = this.head();
    return {
      node_info: this.nodeInfo(),
      sync_info: {
        latest_block_hash: this.hex('block', head),
        latest_app_hash: this.hex('app', head),
        latest_block_height: String(head),
        latest_block_time: this.timeOf(head),
        earliest_block_hash: this.hex('block', 1),
        earliest_app_hash: this.hex('app', 1),
        earliest_block_height: '1',
        earliest_block_time: this.timeOf(1),
        catching_up: false,
      },
      validator_info: {
        address: this.hex('self', 0, 20),
        pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.from(this.hex('pubkey'), 'hex').toString('base64') },
        voting_power: '0',
      },
    };
  }

  grpcBlock(height: number): GrpcBlock {
    return {
      hash: this.hex('block', height),
      header: {
        chain_id: CHAIN_B_ID,
        height: String(height),
        time: this.timeOf(height),
        app_hash: this.hex('app', height),
        proposer_address: this.proposer(height),
      },
      tx_count: 0,
    };
  }
}

// ---- JSON-RPC methods, shared by the consensus RPC, the consensus REST URI form and the WebSocket.

type RpcOutcome = { result: unknown } | { error: { code: number; message: string; data?: string } };

const invalidParams = (data: string): RpcOutcome => ({ error: { code: -32602, message: 'Invalid params', data } });

interface RpcMethod {
  /** Parameter names, for positional (array) and named (object or URI query) calls. */
  params: readonly string[];
  run(chain: ChainB, args: readonly unknown[]): RpcOutcome;
}

/** A height argument: absent means latest; numbers and decimal strings are read alike. */
function heightArg(chain: ChainB, v: unknown): number | RpcOutcome {
  const head = chain.head();
  if (v === undefined || v === null || v === '') return head;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) return invalidParams('height must be an integer');
  if (n < 1)
    return { error: { code: -32603, message: 'Internal error', data: 'height must be greater than 0, but got ' + n } };
  if (n > head)
    return {
      error: {
        code: -32603,
        message: 'Internal error',
        data: `height ${n} must be less than or equal to the current blockchain height ${head}`,
      },
    };
  return n;
}

const RPC_METHODS: Record<string, RpcMethod> = {
  status: { params: [], run: (c) => ({ result: c.status() }) },
  health: { params: [], run: () => ({ result: {} }) },
  abci_info: {
    params: [],
    run: (c) => ({
      result: {
        response: {
          data: 'chainb',
          version: c.applicationVersion().version,
          last_block_height: String(c.head()),
          last_block_app_hash: Buffer.from(c.hex('app', c.head()), 'hex').toString('base64'),
        },
      },
    }),
  },
  net_info: {
    params: [],
    run: () => ({ result: { listening: true, listeners: ['Listener(@)'], n_peers: '0', peers: [] } }),
  },
  block: {
    params: ['height'],
    run: (c, [h]) => {
      const height = heightArg(c, h);
      return typeof height === 'number' ? { result: c.block(height) } : height;
    },
  },
};

function argsOf(method: RpcMethod, params: unknown): unknown[] | undefined {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) return params;
  if (typeof params === 'object') return method.params.map((name) => (params as Record<string, unknown>)[name]);
  return undefined;
}

function callMethod(chain: ChainB, name: string, params: unknown): RpcOutcome {
  const method = Object.hasOwn(RPC_METHODS, name) ? RPC_METHODS[name] : undefined;
  if (!method)
    return { error: { code: -32601, message: 'Method not found', data: `unknown method ${name.slice(0, 64)}` } };
  const args = argsOf(method, params);
  return args ? method.run(chain, args) : invalidParams('params must be an array or an object');
}

type RpcId = string | number | null;

interface RpcReply {
  /** HTTP status for the HTTP transport: 400 when the body is not a request at all. */
  status: number;
  body: unknown;
}

function answerOne(chain: ChainB, req: unknown): { malformed: boolean; body: unknown } {
  const r = req as { method?: unknown; params?: unknown; id?: unknown } | null;
  const id: RpcId = r && typeof r === 'object' && (typeof r.id === 'string' || typeof r.id === 'number') ? r.id : null;
  if (!r || typeof r !== 'object' || Array.isArray(r) || typeof r.method !== 'string') {
    return { malformed: true, body: { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request' } } };
  }
  return { malformed: false, body: { jsonrpc: '2.0', id, ...callMethod(chain, r.method, r.params) } };
}

/** One JSON-RPC request text (single or batch) to its reply. */
function answerRpc(chain: ChainB, text: string): RpcReply {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } };
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0)
      return {
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request', data: 'empty batch' } },
      };
    return { status: 200, body: parsed.slice(0, 100).map((r) => answerOne(chain, r).body) };
  }
  const one = answerOne(chain, parsed);
  return { status: one.malformed ? 400 : 200, body: one.body };
}

// ---- HTTP routes.

type Family = 'appRest' | 'consensusRpc' | 'consensusRest';

function familyOf(pathname: string): Family | undefined {
  if (pathname.startsWith('/app_rest/')) return 'appRest';
  if (pathname === '/consensus_rpc' || pathname === '/consensus_rpc/') return 'consensusRpc';
  if (pathname.startsWith('/consensus_rest/')) return 'consensusRest';
  return undefined;
}

function policies(opts: ReferenceOptions): Record<Family, TokenPolicy> {
  // Only the auth query is documented on these paths; headers are accepted unless the variant
  // chainb-query-only says otherwise (the description leaves them open).
  const queryOnly = opts.variants.has('chainb-query-only');
  const base: NodeTokenForm[] = queryOnly ? ['bearer', 'x-auth-token'] : [];
  const make = (removed: (NodeTokenForm | false)[], anyValue: NodeTokenForm[] = []): TokenPolicy => ({
    expected: opts.credentials.chainBToken,
    accepted: formsWithout([...base, ...removed]),
    ...sharedTokenFaults(opts),
    anyValue: new Set(anyValue),
  });
  return {
    // Fault chainb-query-rejected: the application REST proxy reads the token only from headers.
    // Fault chainb-bearer-any-value: its undocumented Bearer form is only checked for presence.
    appRest: make(
      [opts.faults.has('chainb-query-rejected') && 'auth-query'],
      opts.faults.has('chainb-bearer-any-value') ? ['bearer'] : [],
    ),
    consensusRpc: make([]),
    consensusRest: make([]),
  };
}

/** Fault app-rest-not-json: the proxy answers with its HTML landing page. */
function sendHtml(res: ServerResponse): void {
  const html =
    '<!DOCTYPE html><html><head><title>node-b</title></head><body><h1>Application REST</h1><p>See the API documentation.</p></body></html>';
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  sendError(res, 405, 'method_not_allowed', `use ${allow}`, { allow });
}

export async function startChainBNode(
  opts: ReferenceOptions,
): Promise<{ endpoint: string; websocketUrl: string; grpcAddress: string; close(): Promise<void> }> {
  const chain = new ChainB(opts.seed, opts.now);
  const f = opts.faults;
  const policy = policies(opts);
  let proxyId = 900_001;

  const appRest = (res: ServerResponse, method: string, path: string) => {
    if (method !== 'GET') return methodNotAllowed(res, 'GET');
    if (path === 'node_info') {
      if (f.has('app-rest-not-json')) return sendHtml(res);
      return sendJson(res, 200, {
        default_node_info: chain.nodeInfo(),
        application_version: chain.applicationVersion(),
      });
    }
    if (path === 'syncing') return sendJson(res, 200, { syncing: false });
    const block = /^blocks\/(latest|\d{1,16})$/.exec(path);
    if (block) {
      const height = heightArg(chain, block[1] === 'latest' ? undefined : block[1]);
      if (typeof height === 'number') return sendJson(res, 200, chain.block(height));
      return sendJson(res, 400, {
        code: 3,
        message: 'error' in height ? (height.error.data ?? height.error.message) : 'bad height',
        details: [],
      });
    }
    sendJson(res, 501, { code: 12, message: 'Not Implemented', details: [] });
  };

  const consensusRest = (res: ServerResponse, method: string, name: string, query: URLSearchParams) => {
    if (method !== 'GET' && method !== 'POST') return methodNotAllowed(res, 'GET, POST');
    // Fault consensus-rest-500: the REST gateway breaks on anything but GET.
    if (method === 'POST' && f.has('consensus-rest-500'))
      return sendError(res, 500, 'internal', 'gateway error: upstream handler failed');
    const rpc = Object.hasOwn(RPC_METHODS, name) ? RPC_METHODS[name] : undefined;
    if (!rpc) return sendError(res, 404, 'not_found', `unknown consensus path ${name.slice(0, 64)}`);
    const named = Object.fromEntries(rpc.params.map((p) => [p, query.get(p) ?? undefined]));
    // The URI form answers with a JSON-RPC envelope whose id is -1, as the consensus engine does.
    const out = callMethod(chain, name, named);
    sendJson(res, 'error' in out ? 500 : 200, { jsonrpc: '2.0', id: -1, ...out });
  };

  const server = createServer(
    nodeHandler(opts, 'chainB', async (req, res, url) => {
      const family = familyOf(url.pathname);
      if (!family) return sendError(res, 404, 'not_found', `no route for ${url.pathname}`);
      const decision = decideToken(presentedTokens(req.headers, url), policy[family]);
      if (!decision.ok) return sendRefusal(res, decision.reason);
      const method = req.method ?? 'GET';
      if (family === 'appRest') return appRest(res, method, url.pathname.slice('/app_rest/'.length));
      if (family === 'consensusRest')
        return consensusRest(res, method, url.pathname.slice('/consensus_rest/'.length), url.searchParams);
      if (method !== 'POST') return methodNotAllowed(res, 'POST');
      const reply = answerRpc(chain, await readBody(req));
      // Fault consensus-rpc-wrong-id: the proxy's own upstream id leaks into the response.
      if (
        f.has('consensus-rpc-wrong-id') &&
        reply.body &&
        typeof reply.body === 'object' &&
        !Array.isArray(reply.body)
      ) {
        (reply.body as { id: RpcId }).id = proxyId++;
      }
      sendJson(res, reply.status, reply.body);
    }),
  );

  const grpcData: NodeServiceData = {
    nodeInfo: () => {
      const info = chain.nodeInfo();
      const app = chain.applicationVersion();
      return {
        node_id: info.default_node_id,
        network: info.network,
        moniker: info.moniker,
        version: info.version,
        app_name: app.app_name,
        app_version: app.version,
      };
    },
    latestBlock: () => chain.grpcBlock(chain.head()),
    blockAt: (h) => (h <= chain.head() ? chain.grpcBlock(h) : undefined),
  };

  const closers: (() => Promise<void>)[] = [];
  try {
    const port = await listen(server, opts);
    closers.push(() => closeServer(server));
    const ws = await startWebSocketNode(opts, opts.credentials.chainBToken, (text) =>
      JSON.stringify(answerRpc(chain, text).body),
    );
    closers.push(ws.close);
    const grpcNode = await startGrpcNode(opts, opts.credentials.chainBToken, grpcData);
    closers.push(grpcNode.close);
    return {
      endpoint: `http://127.0.0.1:${port}`,
      websocketUrl: ws.url,
      grpcAddress: grpcNode.address,
      close: async () => {
        await Promise.allSettled(closers.map((c) => c()));
      },
    };
  } catch (e) {
    await Promise.allSettled(closers.map((c) => c()));
    throw e;
  }
}
