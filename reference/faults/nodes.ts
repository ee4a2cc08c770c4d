// Faults of the dedicated nodes (block-by-height REST and chain B). Each breaks one rule the way a
// misconfigured proxy or node would. NODE-07 and the limiter are the horizon node's (limiter.ts).
import type { FaultDef } from './types.js';

export const NODE_FAULTS: readonly FaultDef[] = [
  {
    name: 'blockrest-bearer-rejected',
    rule: 'NAUTH-01',
    family: 'nodes',
    description:
      'The block-by-height REST node ignores `Authorization: Bearer` (its proxy reads only X-Auth-Token and the auth query) and answers 401.',
  },
  {
    name: 'blockrest-xauth-rejected',
    rule: 'NAUTH-02',
    family: 'nodes',
    description:
      'The block-by-height REST node never sees `X-Auth-Token` (its proxy drops unknown headers) and answers 401.',
  },
  {
    name: 'blockrest-query-rejected',
    rule: 'NAUTH-03',
    family: 'nodes',
    description:
      'The block-by-height REST node reads the query parameter `auth_token` instead of `auth` and answers 401 to `?auth=`.',
  },
  {
    name: 'chainb-query-rejected',
    rule: 'NAUTH-04',
    family: 'nodes',
    description:
      'The chain B application REST path reads the token only from headers; `GET /app_rest/node_info?auth=` answers 401.',
  },
  {
    name: 'ws-header-rejected',
    rule: 'NAUTH-05',
    family: 'nodes',
    description:
      'The WebSocket endpoint reads the token only from the `auth` query; an upgrade with `X-Auth-Token` is refused with 401.',
  },
  {
    name: 'grpc-metadata-rejected',
    rule: 'NAUTH-06',
    family: 'nodes',
    description:
      'The gRPC endpoint reads only `authorization: Bearer` metadata; calls with `x-auth-token` metadata end UNAUTHENTICATED.',
  },
  {
    name: 'node-token-case-insensitive',
    rule: 'NAUTH-07',
    family: 'nodes',
    description:
      'Node tokens are compared ignoring letter case (REST paths, WebSocket, gRPC and the horizon node): the token in upper case is accepted.',
  },
  {
    name: 'node-token-prefix-compare',
    rule: 'NAUTH-07',
    family: 'nodes',
    description:
      'Node tokens are compared over the length of the offered value only (a strncmp with the wrong length): any prefix of the real token is accepted',
  },
  {
    name: 'blockrest-empty-token-accepted',
    rule: 'NAUTH-07',
    family: 'nodes',
    description:
      'The block-by-height REST node takes an empty `Authorization: Bearer ` or `auth=` as "no auth configured" and serves data.',
  },
  {
    name: 'chainb-bearer-any-value',
    rule: 'NAUTH-07',
    family: 'nodes',
    description:
      'The chain B application REST paths serve any `Authorization: Bearer` value (the undocumented form is only checked for presence).',
  },
  {
    name: 'node-missing-token-accepted',
    rule: 'NAUTH-07',
    family: 'nodes',
    description:
      'The node auth layer checks a token only when one is sent: requests, upgrades and calls with no token get data.',
  },
  {
    name: 'block-by-height-text',
    rule: 'NODE-01',
    family: 'nodes',
    description:
      'GET /v1/blocks/by_height/{height} answers 200 with a text/plain `key: value` rendering of the block instead of JSON.',
  },
  {
    name: 'ws-no-pong',
    rule: 'NODE-02',
    family: 'nodes',
    description: 'The WebSocket endpoint completes the upgrade but never answers a ping with a pong.',
  },
  {
    name: 'app-rest-not-json',
    rule: 'NODE-03',
    family: 'nodes',
    description: 'GET /app_rest/node_info answers 200 with an HTML page instead of JSON.',
  },
  {
    name: 'consensus-rpc-wrong-id',
    rule: 'NODE-04',
    family: 'nodes',
    description:
      'The consensus RPC proxy rewrites request ids to its own counter and does not restore them in the response.',
  },
  {
    name: 'consensus-rest-500',
    rule: 'NODE-05',
    family: 'nodes',
    description: 'POST /consensus_rest/status answers 500 (the REST gateway only handles GET).',
  },
  {
    name: 'grpc-no-reflection',
    rule: 'NODE-06',
    family: 'nodes',
    description: 'gRPC server reflection lists only the reflection services themselves, not the node service.',
  },
  {
    name: 'grpc-reflection-unimplemented',
    rule: 'NODE-06',
    family: 'nodes',
    description:
      'The gRPC server has no reflection service: ServerReflectionInfo (v1 and v1alpha) ends UNIMPLEMENTED; ' +
      'the node service and the health check still answer.',
  },
];
