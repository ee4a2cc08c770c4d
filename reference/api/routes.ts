// Universal REST and native JSON-RPC routes. Both read the same chain head for a network.
import { apiFault } from '../faults/api.js';
import { BodyTooLarge, readBody } from '../http/kit.js';
import type { ApiContext, Route } from './context.js';
import { answerRpc } from './jsonrpc.js';
import { chainKey, isUniversalNetwork, nativeNetwork } from './networks.js';
import { apiVariant } from './variants.js';

/** Lag of a stale universal endpoint (both bases, or the legacy one alone), in blocks: far beyond any tolerance. */
const STALE_LAG = 40;
const REPLICA_LAG = 25;

async function blockNumber(ctx: ApiContext): Promise<void> {
  const { protocol, network } = ctx.params as { protocol: string; network: string };
  if (!isUniversalNetwork(protocol, network))
    return ctx.reply.error(404, 'unknown_network', `no network ${network} for protocol ${protocol}`);
  const key = chainKey(protocol, network);
  let n = ctx.chain.headOf(key);
  const calls = (ctx.state.universalCalls.get(key) ?? 0) + 1;
  ctx.state.universalCalls.set(key, calls);
  if (apiFault(ctx.opts, 'block-number-negative')) n = -1;
  else if (apiFault(ctx.opts, 'universal-lags-native')) n -= STALE_LAG;
  else if (apiFault(ctx.opts, 'universal-goes-backwards') && calls % 2 === 0) n -= REPLICA_LAG;
  else if (ctx.server === 'legacy' && apiFault(ctx.opts, 'legacy-stale-block-number')) n -= STALE_LAG;
  return ctx.reply.json(200, { block_number: n });
}

async function native(ctx: ApiContext): Promise<void> {
  const { protocol, network } = ctx.params as { protocol: string; network: string };
  const net = nativeNetwork(protocol, network);
  if (!net) return ctx.reply.error(404, 'unknown_network', `no native access for ${protocol}/${network}`);
  if (net.name === 'sepolia' && apiFault(ctx.opts, 'network-sepolia-down')) {
    return ctx.reply.error(503, 'network_unavailable', `${protocol}/${network} is temporarily unavailable`);
  }
  let body: string;
  try {
    body = await readBody(ctx.req);
  } catch (e) {
    if (!(e instanceof BodyTooLarge)) throw e;
    // Let the client finish sending so it reads the answer instead of a reset connection.
    ctx.req.resume();
    return ctx.reply.error(413, 'payload_too_large', e.message, { connection: 'close' });
  }
  const answer = answerRpc(body, {
    network: net,
    head: () => ctx.chain.headOf(chainKey(protocol, network)),
    opts: ctx.opts,
  });
  if (answer.kind === 'json') return ctx.reply.json(200, answer.body);
  return ctx.reply.empty(apiVariant(ctx.opts, 'notification-200-empty') ? 200 : 204);
}

export const CHAIN_ROUTES: readonly Route[] = [
  {
    pattern: '/universal/v1/:protocol/:network/sync/block_number',
    methods: ['GET'],
    kind: 'universal',
    handle: blockNumber,
  },
  { pattern: '/:protocol/:network/native', methods: ['POST'], kind: 'native', handle: native },
];
