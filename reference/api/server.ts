// One request handler for both API servers: route, method, authentication, then the route.
// {base_url} and {legacy_base_url} serve the same routes and differ only in the keys and
// credential forms they accept (a legacy key holder must reach every family too).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Chain } from '../chain.js';
import { latencyOf, sendError } from '../http/kit.js';
import { datasetOf } from '../nft/dataset.js';
import { NFT_ROUTES } from '../nft/routes.js';
import type { ReferenceOptions } from '../options.js';
import { authRequestOf, decideAuth, type ServerKind } from './auth.js';
import { makeReply, type ApiContext, type Route, type ServerState } from './context.js';
import { CHAIN_ROUTES } from './routes.js';

export const API_ROUTES: readonly Route[] = [...CHAIN_ROUTES, ...NFT_ROUTES];

interface CompiledRoute {
  route: Route;
  segments: string[];
}

const COMPILED: readonly CompiledRoute[] = API_ROUTES.map((route) => ({
  route,
  segments: route.pattern.split('/').slice(1),
}));

function match(segments: readonly string[]): { route: Route; params: Record<string, string> } | undefined {
  for (const c of COMPILED) {
    if (c.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const ok = c.segments.every((s, i) => {
      if (s.startsWith(':')) {
        params[s.slice(1)] = segments[i]!;
        return segments[i] !== '';
      }
      return s === segments[i];
    });
    if (ok) return { route: c.route, params };
  }
  return undefined;
}

function decodeSegments(path: string): string[] | undefined {
  try {
    return path
      .split('/')
      .slice(1)
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

export function createApiServer(server: ServerKind, opts: ReferenceOptions, chain: Chain): Server {
  const latency = latencyOf(opts);
  const state: ServerState = { universalCalls: new Map() };
  // Built as the server starts, as a real service has its data before its first request.
  const dataset = datasetOf(opts.seed, opts.bigCollectionSize);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    opts.counters.hit(server);
    const method = req.method ?? 'GET';
    const reply = makeReply(res, method === 'HEAD', latency, opts);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q >= 0 ? url.slice(0, q) : url;
    const rawQuery = q >= 0 ? url.slice(q + 1) : '';
    const segments = decodeSegments(rawPath);
    if (!segments) return reply.error(400, 'bad_path', 'the path is not valid percent-encoding');
    const found = match(segments);
    if (!found) return reply.error(404, 'not_found', 'no such endpoint');
    const { route, params } = found;
    const effective = method === 'HEAD' ? 'GET' : method;
    if (!(route.methods as readonly string[]).includes(effective)) {
      const allow = route.methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
      return reply.error(405, 'method_not_allowed', `use ${allow}`, { allow });
    }
    const auth = decideAuth(authRequestOf(req, server, route.kind, rawQuery), opts);
    if (!auth.ok)
      return reply.error(
        auth.status,
        auth.code,
        auth.message,
        auth.status === 401 ? { 'www-authenticate': 'Bearer' } : {},
      );
    const ctx: ApiContext = {
      opts,
      server,
      req,
      params,
      query: new URLSearchParams(rawQuery),
      reply,
      chain,
      dataset,
      state,
    };
    await route.handle(ctx);
  }

  return createServer((req, res) => {
    handle(req, res).catch(() => {
      // A bug must not take the server down or leak a stack trace: answer 500 if still possible.
      if (!res.headersSent) sendError(res, 500, 'internal', 'internal error');
      else res.destroy();
    });
  });
}
