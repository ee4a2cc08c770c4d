// The standard gRPC health check (grpc.health.v1.Health/Check), with metadata and a hard
// deadline. The node contracts ask it when reflection is not served, to see whether a token got
// past the auth layer (NAUTH-06); the reference serves it from the same proto.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  callError,
  channelCredentials,
  GrpcCallError,
  interrupted,
  metadataOf,
  recordGrpcCall,
  type GrpcCallOptions,
  type GrpcOutcome,
  withoutCallerStack,
} from './grpc-reflection.js';

export const HEALTH_PROTO = fileURLToPath(new URL('./proto/health.proto', import.meta.url));
export const HEALTH_SERVICE = 'grpc.health.v1.Health';
const CHECK_PATH = `${HEALTH_SERVICE}/Check`;

type HealthStub = grpc.Client & {
  Check(
    request: { service: string },
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (err: grpc.ServiceError | null, res?: { status?: string }) => void,
  ): grpc.ClientUnaryCall;
};

let ctor: (new (address: string, credentials: grpc.ChannelCredentials) => HealthStub) | undefined;

/** The loaded health service definition (the reference registers it from here too). */
export function healthDefinition(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(HEALTH_PROTO, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
}

function healthClient() {
  if (!ctor) {
    const pkg = grpc.loadPackageDefinition(healthDefinition()) as unknown as {
      grpc: { health: { v1: { Health: typeof ctor } } };
    };
    ctor = pkg.grpc.health.v1.Health;
  }
  return ctor!;
}

/**
 * The server's overall health (`service: ""`): its serving status name, e.g. `SERVING`.
 * Throws GrpcCallError (one-line message, gRPC code) when the call does not end OK.
 */
export function checkHealth(o: GrpcCallOptions): Promise<string> {
  const where = `gRPC health check at ${o.address}`;
  if (o.signal?.aborted) return Promise.reject(interrupted(where));
  const client = new (healthClient())(o.address, channelCredentials(o));
  const sentAt = Date.now();
  return new Promise<string>((resolve, reject) => {
    let done = false;
    const onAbort = () => finish({ error: interrupted(where) });
    const finish = (out: GrpcOutcome, status?: string) => {
      if (done) return;
      done = true;
      clearTimeout(guard);
      o.signal?.removeEventListener('abort', onAbort);
      call.cancel();
      client.close();
      recordGrpcCall(o, CHECK_PATH, JSON.stringify({ service: '' }), sentAt, out);
      if (out.error) reject(out.error);
      else resolve(status ?? 'UNKNOWN');
    };
    // The call deadline ends the call; this guard only covers a call that never settles at all.
    const guard = setTimeout(
      () =>
        finish({
          error: new GrpcCallError(`${where}: no answer within ${o.deadlineMs} ms`, grpc.status.DEADLINE_EXCEEDED),
        }),
      o.deadlineMs + 1000,
    );
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const call = withoutCallerStack(() =>
      client.Check({ service: '' }, metadataOf(o.metadata), { deadline: sentAt + o.deadlineMs }, (err, res) => {
        if (err) return finish(callError(where, err, o.address));
        const status = res?.status ?? 'UNKNOWN';
        finish({ responseBody: JSON.stringify({ status }), status: { code: grpc.status.OK, details: '' } }, status);
      }),
    );
  });
}
