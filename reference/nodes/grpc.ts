// Chain B's gRPC endpoint: its own NodeService, the standard health check and server reflection
// (v1 and v1alpha). A server interceptor checks the token on every call before any handler runs,
// reflection's bidi stream included, so an unauthenticated client learns nothing, not even the
// service names. (A method the server does not have ends UNIMPLEMENTED before any interceptor
// runs, as grpc-js servers do: so without reflection only the health check shows the token.)
import type { IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HEALTH_PROTO } from '../../src/clients/grpc-health.js';
import { REFLECTION_SERVICES, reflectionProtoPath } from '../../src/clients/grpc-reflection.js';
import type { ReferenceOptions } from '../options.js';
import {
  decideToken,
  presentedTokens,
  refusalMessage,
  type NodeTokenForm,
  type TokenPolicy,
  sharedTokenFaults,
} from './token.js';

export const NODE_SERVICE = 'chainb.node.v1.NodeService';
const NODE_PROTO = fileURLToPath(new URL('./proto/chainb_node.proto', import.meta.url));
const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

export interface GrpcBlock {
  hash: string;
  header: { chain_id: string; height: string; time: string; app_hash: string; proposer_address: string };
  tx_count: number;
}

export interface GrpcNodeInfo {
  node_id: string;
  network: string;
  moniker: string;
  version: string;
  app_name: string;
  app_version: string;
}

/** What the service answers with; chain B supplies it so REST, RPC and gRPC agree. */
export interface NodeServiceData {
  nodeInfo(): GrpcNodeInfo;
  latestBlock(): GrpcBlock;
  /** undefined when the chain has no block at that height (yet). */
  blockAt(height: number): GrpcBlock | undefined;
}

/** Metadata is HTTP/2 headers underneath, so the REST token parsing applies as is. */
function tokensOfMetadata(metadata: grpc.Metadata) {
  const headers: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(metadata.getMap())) if (typeof v === 'string') headers[k] = v;
  return presentedTokens(headers, new URL('http://grpc.invalid/'));
}

function authInterceptor(opts: ReferenceOptions, policy: TokenPolicy): grpc.ServerInterceptor {
  return (_method, call) => {
    opts.counters.hit('grpc');
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const decision = decideToken(tokensOfMetadata(metadata), policy);
        if (decision.ok) next(metadata);
        else call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: refusalMessage(decision.reason) });
      })
      .build();
    const responder = new grpc.ResponderBuilder().withStart((next) => next(listener)).build();
    return new grpc.ServerInterceptingCall(call, responder);
  };
}

function nodeServiceHandlers(data: NodeServiceData): grpc.UntypedServiceImplementation {
  const unary =
    <Req>(answer: (req: Req) => object): grpc.handleUnaryCall<Req, object> =>
    (call, callback) => {
      try {
        callback(null, answer(call.request));
      } catch (e) {
        callback(e as grpc.ServiceError);
      }
    };
  const fail = (code: grpc.status, details: string) => Object.assign(new Error(details), { code, details });
  return {
    GetNodeInfo: unary(() => data.nodeInfo()),
    GetLatestBlock: unary(() => ({ block: data.latestBlock() })),
    GetBlockByHeight: unary((req: { height?: string }) => {
      const height = Number(req.height ?? '0');
      if (!Number.isSafeInteger(height) || height < 1)
        throw fail(grpc.status.INVALID_ARGUMENT, 'height must be a positive integer');
      const block = data.blockAt(height);
      if (!block) throw fail(grpc.status.NOT_FOUND, `no block at height ${height}`);
      return { block };
    }),
  };
}

export interface GrpcNode {
  address: string;
  close(): Promise<void>;
}

export async function startGrpcNode(opts: ReferenceOptions, token: string, data: NodeServiceData): Promise<GrpcNode> {
  const accepted: NodeTokenForm[] = opts.faults.has('grpc-metadata-rejected') ? ['bearer'] : ['x-auth-token', 'bearer'];
  const policy: TokenPolicy = { expected: token, accepted: new Set(accepted), ...sharedTokenFaults(opts) };

  // One definition holding the node service and the reflection schemas, so reflection lists
  // itself next to the node service, as production servers do.
  const definition = protoLoader.loadSync(
    [NODE_PROTO, HEALTH_PROTO, reflectionProtoPath('v1'), reflectionProtoPath('v1alpha')],
    LOADER_OPTIONS,
  );
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    chainb: { node: { v1: { NodeService: grpc.ServiceClientConstructor } } };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };

  const server = new grpc.Server({ interceptors: [authInterceptor(opts, policy)] });
  server.addService(loaded.chainb.node.v1.NodeService.service, nodeServiceHandlers(data));
  server.addService(loaded.grpc.health.v1.Health.service, {
    Check: (_call: unknown, callback: grpc.sendUnaryData<object>) => callback(null, { status: 'SERVING' }),
  });
  // Fault grpc-no-reflection: reflection is set up with only its own services.
  const listed = opts.faults.has('grpc-no-reflection') ? { services: Object.values(REFLECTION_SERVICES) } : undefined;
  // Fault grpc-reflection-unimplemented: no reflection service at all.
  if (!opts.faults.has('grpc-reflection-unimplemented')) new ReflectionService(definition, listed).addToServer(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: async () => {
      server.forceShutdown();
    },
  };
}
