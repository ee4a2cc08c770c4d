// Lists a gRPC server's services through server reflection (the ServerReflectionInfo bidi
// stream), with metadata and a hard deadline. Used by the node contracts (NODE-06, NAUTH-06/07)
// and by the reference's own tests. The reflection .proto files are the ones @grpc/reflection
// ships, so the client speaks exactly the published schema.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Exchange, Recorder } from '../record/recorder.js';
import { causeOfFailure, knownCause } from '../net/causes.js';
import { grpcCredentials } from '../tls/grpc.js';

export type ReflectionVersion = 'v1' | 'v1alpha';

export const REFLECTION_SERVICES: Record<ReflectionVersion, string> = {
  v1: 'grpc.reflection.v1.ServerReflection',
  v1alpha: 'grpc.reflection.v1alpha.ServerReflection',
};

const REFLECTION_METHOD = 'ServerReflectionInfo';

/** Path of the reflection schema of one version, as shipped by @grpc/reflection. */
export function reflectionProtoPath(version: ReflectionVersion): string {
  const entry = createRequire(import.meta.url).resolve('@grpc/reflection');
  return join(dirname(entry), '..', 'proto', 'grpc', 'reflection', version, 'reflection.proto');
}

/** True for the reflection services themselves (NODE-06 wants at least one other). */
export function isReflectionService(name: string): boolean {
  return name.startsWith('grpc.reflection.');
}

/** A call that ended without a usable answer; `message` is one line, with the gRPC status name. */
export class GrpcCallError extends Error {
  constructor(
    message: string,
    /** gRPC status code, when the call got one (undefined: no answer of the expected kind). */
    readonly code: number | undefined,
    /** The server answered, in the stream, with an error instead of what was asked (reflection's error_response). */
    readonly inBand = false,
  ) {
    super(message);
    this.name = 'GrpcCallError';
  }

  get codeName(): string {
    return this.code === undefined ? 'NONE' : statusName(this.code);
  }
}

export function statusName(code: number): string {
  return (grpc.status as unknown as Record<number, string>)[code] ?? `CODE_${code}`;
}

function oneLine(s: string, max = 200): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** What every gRPC call of the suite's clients takes. */
export interface GrpcCallOptions {
  /** host:port, no scheme. */
  address: string;
  tls: boolean;
  /** Sent as call metadata, e.g. `{ 'x-auth-token': token }`. Keys are lower-cased. */
  metadata?: Record<string, string>;
  /** Bound on the whole call (for a listing: all versions tried included). */
  deadlineMs: number;
  recorder?: Recorder;
  purpose?: string;
  /** Aborted: the call is cancelled at once (a call not yet sent never reaches the server). */
  signal?: AbortSignal;
}

/** The outcome of a call cut short by the run's interrupt. */
export const interrupted = (where: string): GrpcCallError =>
  new GrpcCallError(`${where}: interrupted`, grpc.status.CANCELLED);

export interface ListServicesOptions extends GrpcCallOptions {
  /** Tried in order; the next one only when the server answers UNIMPLEMENTED. */
  versions?: readonly ReflectionVersion[];
}

interface ReflectionResponse {
  list_services_response?: { service?: { name?: string }[] };
  error_response?: { error_code?: number; error_message?: string };
}

type ReflectionStub = grpc.Client & {
  [REFLECTION_METHOD](
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
  ): grpc.ClientDuplexStream<object, ReflectionResponse>;
};
type ReflectionCtor = new (address: string, credentials: grpc.ChannelCredentials) => ReflectionStub;

const ctorCache = new Map<ReflectionVersion, ReflectionCtor>();

function reflectionClient(version: ReflectionVersion): ReflectionCtor {
  let ctor = ctorCache.get(version);
  if (!ctor) {
    const def = protoLoader.loadSync(reflectionProtoPath(version), {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: false,
      oneofs: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      grpc: { reflection: Record<ReflectionVersion, { ServerReflection: ReflectionCtor }> };
    };
    ctor = pkg.grpc.reflection[version].ServerReflection;
    ctorCache.set(version, ctor);
  }
  return ctor;
}

export function channelCredentials(o: Pick<GrpcCallOptions, 'tls'>): grpc.ChannelCredentials {
  return grpcCredentials(o.tls);
}

/**
 * Starts a call without the caller's stack trace. grpc-js captures one at the start of every call
 * and formats it when the call ends with an error status; under Playwright, formatting maps every
 * frame through source maps (about half a second of CPU per worker, the first time, in a profile
 * of the contract run). The suite judges a call by its status, never by where it was made.
 */
export function withoutCallerStack<T>(start: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return start();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export function metadataOf(pairs: Record<string, string> = {}): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(pairs)) md.set(k.toLowerCase(), v);
  return md;
}

/** How one call ended: the answer (as JSON for the record), or the error; the status when one came. */
export interface GrpcOutcome {
  responseBody?: string;
  error?: GrpcCallError;
  status?: { code: number; details: string };
}

interface Outcome extends GrpcOutcome {
  services?: string[];
}

/** The call's status as a GrpcCallError, with its one-line message. */
export function callError(where: string, err: grpc.ServiceError, address: string): GrpcOutcome {
  const details = oneLine(err.details || err.message || '');
  // UNAVAILABLE before any answer may be our side of the wire (refused, DNS, TLS): then its cause line.
  // (grpc-js says so with these words; a proxy's UNAVAILABLE answer is the target's, and stays one.)
  const ours =
    err.code === grpc.status.UNAVAILABLE &&
    /No connection established|Name resolution failed|DNS resolution failed/i.test(err.details ?? '');
  const cause = ours ? causeOfFailure(err.details, address) : undefined;
  return {
    error: new GrpcCallError(
      cause?.line ?? `${where}: ${statusName(err.code)}${details ? `: ${details}` : ''}`,
      err.code,
    ),
    status: { code: err.code, details },
  };
}

/** One ServerReflectionInfo stream: send list_services, read the first answer, half-close. */
function listOnce(version: ReflectionVersion, o: ListServicesOptions, deadline: number): Promise<Outcome> {
  const where = `gRPC reflection ${version} at ${o.address}`;
  if (o.signal?.aborted) return Promise.resolve({ error: interrupted(where) });
  const client = new (reflectionClient(version))(o.address, channelCredentials(o));
  return new Promise<Outcome>((resolve) => {
    let done = false;
    const onAbort = () => finish({ error: interrupted(where) });
    const finish = (out: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(guard);
      o.signal?.removeEventListener('abort', onAbort);
      call.cancel();
      client.close();
      resolve(out);
    };
    // The call deadline ends the stream; this guard only covers a stream that never settles at all.
    const guard = setTimeout(
      () =>
        finish({
          error: new GrpcCallError(`${where}: no answer within ${o.deadlineMs} ms`, grpc.status.DEADLINE_EXCEEDED),
        }),
      Math.max(0, deadline - Date.now()) + 1000,
    );
    const call = withoutCallerStack(() => client[REFLECTION_METHOD](metadataOf(o.metadata), { deadline }));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    call.on('data', (resp: ReflectionResponse) => {
      if (resp.list_services_response) {
        const names = (resp.list_services_response.service ?? []).map((s) => s.name ?? '').filter(Boolean);
        finish({
          services: names,
          responseBody: JSON.stringify({ list_services_response: { service: names.map((name) => ({ name })) } }),
          status: { code: grpc.status.OK, details: '' },
        });
      } else {
        const e = resp.error_response;
        finish({
          error: new GrpcCallError(
            `${where}: error response ${e?.error_code ?? '?'}: ${oneLine(e?.error_message ?? '')}`,
            e?.error_code,
            true,
          ),
        });
      }
    });
    call.on('error', (err: grpc.ServiceError) => finish(callError(where, err, o.address)));
    call.on('end', () =>
      finish({ error: new GrpcCallError(`${where}: stream ended without a list_services answer`, undefined) }),
    );
    call.write({ host: '', list_services: '' });
    call.end();
  });
}

/** Records one call as an exchange: method GRPC, the status as grpc-status / grpc-message. */
export function recordGrpcCall(
  o: GrpcCallOptions,
  path: string,
  requestBody: string,
  sentAt: number,
  out: GrpcOutcome,
): Exchange | undefined {
  if (!o.recorder) return undefined;
  const responseHeaders: Record<string, string> = {};
  if (out.status) {
    responseHeaders['grpc-status'] = String(out.status.code);
    if (out.status.details) responseHeaders['grpc-message'] = out.status.details;
  }
  return o.recorder.record({
    method: 'GRPC',
    url: `${o.tls ? 'grpcs' : 'grpc'}://${o.address}/${path}`,
    requestHeaders: o.metadata,
    requestBody,
    responseHeaders,
    responseBody: out.responseBody,
    sentAt,
    receivedAt: Date.now(),
    error: out.error?.message,
    purpose: o.purpose,
  });
}

/**
 * The full names of the services the server lists by reflection (reflection itself included, as
 * servers list it). Throws GrpcCallError (one-line message, gRPC code) when no list came back.
 */
export async function listServicesByReflection(o: ListServicesOptions): Promise<string[]> {
  const versions = o.versions ?? (['v1', 'v1alpha'] as const);
  const known = knownCause(o.address);
  if (known) {
    // Not tried again; still one recorded exchange, so the check's evidence is this call's.
    const error = new GrpcCallError(known.line, grpc.status.UNAVAILABLE);
    recordGrpcCall(
      o,
      `${REFLECTION_SERVICES[versions[0] ?? 'v1']}/${REFLECTION_METHOD}`,
      JSON.stringify({ list_services: '' }),
      Date.now(),
      { error },
    );
    throw error;
  }
  const deadline = Date.now() + o.deadlineMs;
  let last: GrpcCallError | undefined;
  const tried: ReflectionVersion[] = [];
  for (const version of versions) {
    const sentAt = Date.now();
    const out = await listOnce(version, o, deadline);
    recordGrpcCall(
      o,
      `${REFLECTION_SERVICES[version]}/${REFLECTION_METHOD}`,
      JSON.stringify({ list_services: '' }),
      sentAt,
      out,
    );
    if (out.services) return out.services;
    last = out.error;
    tried.push(version);
    if (last?.code !== grpc.status.UNIMPLEMENTED || last.inBand) break;
  }
  // Every version ended UNIMPLEMENTED: say so once, naming them all.
  if (
    last &&
    tried.length > 1 &&
    tried.length === versions.length &&
    last.code === grpc.status.UNIMPLEMENTED &&
    !last.inBand
  ) {
    throw new GrpcCallError(
      `gRPC reflection at ${o.address}: UNIMPLEMENTED for ${tried.join(' and ')} (no reflection service)`,
      last.code,
    );
  }
  throw last ?? new GrpcCallError(`gRPC reflection at ${o.address}: no reflection version to try`, undefined);
}
