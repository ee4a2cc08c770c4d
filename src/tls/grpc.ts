// gRPC channel credentials from the run's trust (src/tls/trust.ts). Always built from explicit
// roots: grpc-js otherwise replaces every root with GRPC_DEFAULT_SSL_ROOTS_FILE_PATH when that is
// set (many images point it at the system bundle), which drops NODE_EXTRA_CA_CERTS and --ca.
import * as grpc from '@grpc/grpc-js';
import { insecure, secureContext } from './trust.js';

const skipIdentity = (): undefined => undefined;

export function grpcCredentials(useTls: boolean): grpc.ChannelCredentials {
  if (!useTls) return grpc.credentials.createInsecure();
  return grpc.credentials.createFromSecureContext(
    secureContext(),
    insecure() ? { rejectUnauthorized: false, checkServerIdentity: skipIdentity } : {},
  );
}
