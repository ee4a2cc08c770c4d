// What a route handler of the API servers gets, and how it answers. Every answer goes through
// Reply, which applies the configured latency and the error-body variant in one place.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Chain } from '../chain.js';
import { delay, sendError, sendJson } from '../http/kit.js';
import type { Dataset } from '../nft/dataset.js';
import type { ReferenceOptions } from '../options.js';
import type { RouteKind, ServerKind } from './auth.js';
import { apiVariant } from './variants.js';

type Headers = Record<string, string | number>;

export interface Reply {
  json(status: number, body: unknown, headers?: Headers): Promise<void>;
  error(status: number, code: string, message: string, headers?: Headers): Promise<void>;
  /** No body at all (204, or the 200-empty variant for notifications). */
  empty(status: number): Promise<void>;
}

export function makeReply(
  res: ServerResponse,
  head: boolean,
  latency: () => number,
  opts: Pick<ReferenceOptions, 'variants'>,
): Reply {
  return {
    async json(status, body, headers = {}) {
      await delay(latency());
      sendJson(res, status, body, headers, head);
    },
    async error(status, code, message, headers = {}) {
      await delay(latency());
      if (apiVariant(opts, 'error-body-flat')) sendJson(res, status, { code, message }, headers, head);
      else sendError(res, status, code, message, headers, head);
    },
    async empty(status) {
      await delay(latency());
      res.writeHead(status, status === 204 ? {} : { 'content-length': 0 });
      res.end();
    },
  };
}

/** Per-server mutable state (a few faults need memory between requests). */
export interface ServerState {
  /** Block-number calls per network (the alternating-replica fault keys on it). */
  universalCalls: Map<string, number>;
}

export interface ApiContext {
  opts: ReferenceOptions;
  server: ServerKind;
  req: IncomingMessage;
  /** Decoded path parameters by name (`:protocol` -> params.protocol). */
  params: Record<string, string>;
  query: URLSearchParams;
  reply: Reply;
  chain: Chain;
  dataset: Dataset;
  state: ServerState;
}

export interface Route {
  /** Path pattern with `:name` segments, e.g. `/universal/v1/:protocol/:network/sync/block_number`. */
  pattern: string;
  /** Allowed methods; GET routes also answer HEAD. */
  methods: readonly ('GET' | 'POST')[];
  kind: RouteKind;
  handle(ctx: ApiContext): Promise<void>;
}
