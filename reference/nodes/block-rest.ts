// The block-by-height REST node ("chain with REST node"). Its answers follow the REST API such
// nodes really run: heights, versions and timestamps as decimal strings, 0x hashes, error bodies
// with `message` and `error_code`. The head advances with the injected clock (reference/chain.ts),
// so any height from 0 to the head exists and a later one does not yet.
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { closeServer, listen, sendJson } from '../http/kit.js';
import type { ReferenceOptions } from '../options.js';
import { CHAIN_EPOCH_MS, createChain, startHeightOf, type Chain } from '../chain.js';
import {
  decideToken,
  formsWithout,
  nodeHandler,
  presentedTokens,
  sendRefusal,
  type TokenPolicy,
  sharedTokenFaults,
} from './token.js';

/** A fast-finality chain: a block every 250 ms. Its head comes from the shared chain clock. */
export const BLOCK_REST_CHAIN = 'block-rest-node';
export const BLOCK_REST_BLOCK_MS = 250;

export function blockRestChain(seed: number, now: () => number): Chain {
  return createChain({ seed, now, blockTimeMs: BLOCK_REST_BLOCK_MS });
}

/** When block `height` was made: heights count from the chain's seeded start height at the epoch. */
function blockTimeMs(seed: number, height: number): number {
  return CHAIN_EPOCH_MS + (height - startHeightOf(seed, BLOCK_REST_CHAIN)) * BLOCK_REST_BLOCK_MS;
}

/** Transactions before block `h` when block i holds 1 + (i mod 5): a closed form, no loop. */
function firstVersion(h: number): number {
  const cycles = Math.floor(h / 5);
  const r = h % 5;
  return cycles * 15 + r + (r * (r - 1)) / 2;
}

export interface RestBlock {
  block_height: string;
  block_hash: string;
  block_timestamp: string;
  first_version: string;
  last_version: string;
  transactions: null;
}

export function blockAtHeight(seed: number, height: number): RestBlock {
  const hash = createHash('sha256').update(`${seed}:block-rest:${height}`).digest('hex');
  const micros = blockTimeMs(seed, height) * 1000;
  return {
    block_height: String(height),
    block_hash: `0x${hash}`,
    block_timestamp: String(micros),
    first_version: String(firstVersion(height)),
    last_version: String(firstVersion(height + 1) - 1),
    transactions: null,
  };
}

function sendNodeError(res: ServerResponse, status: number, errorCode: string, message: string): void {
  sendJson(res, status, { message, error_code: errorCode, vm_error_code: null });
}

/** Fault `block-by-height-text`: the block as `key: value` lines, the way a debug endpoint prints it. */
function sendBlockAsText(res: ServerResponse, block: RestBlock): void {
  const text =
    Object.entries(block)
      .map(([k, v]) => `${k}: ${v ?? ''}`)
      .join('\n') + '\n';
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const BY_HEIGHT = /^\/v1\/blocks\/by_height\/([^/]*)\/?$/;

export async function startBlockRestNode(
  opts: ReferenceOptions,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const f = opts.faults;
  const policy: TokenPolicy = {
    expected: opts.credentials.blockRestToken,
    accepted: formsWithout([
      f.has('blockrest-bearer-rejected') && 'bearer',
      f.has('blockrest-xauth-rejected') && 'x-auth-token',
      f.has('blockrest-query-rejected') && 'auth-query',
    ]),
    ...sharedTokenFaults(opts),
    // Fault blockrest-empty-token-accepted: an empty token reads as "no auth configured".
    emptyAccepted: new Set(f.has('blockrest-empty-token-accepted') ? (['bearer', 'auth-query'] as const) : []),
  };

  const chain = blockRestChain(opts.seed, opts.now);
  const server = createServer(
    nodeHandler(opts, 'blockRest', (req, res, url) => {
      const decision = decideToken(presentedTokens(req.headers, url), policy);
      if (!decision.ok) return sendRefusal(res, decision.reason);
      const m = BY_HEIGHT.exec(url.pathname);
      if (!m) return sendNodeError(res, 404, 'web_framework_error', `no route for ${url.pathname}`);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        return sendNodeError(res, 405, 'web_framework_error', `method ${req.method ?? ''} not allowed`);
      }
      const raw = m[1] ?? '';
      const height = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(height)) {
        return sendNodeError(
          res,
          400,
          'web_framework_error',
          `failed to parse path param block_height: "${raw.slice(0, 40)}" is not an unsigned integer`,
        );
      }
      const head = chain.headOf(BLOCK_REST_CHAIN);
      if (height > head) {
        return sendNodeError(
          res,
          404,
          'block_not_found',
          `Block height ${height} not found; the latest block height is ${head}`,
        );
      }
      const block = blockAtHeight(opts.seed, height);
      if (f.has('block-by-height-text')) return sendBlockAsText(res, block);
      sendJson(res, 200, block, { 'x-node-block-height': head }, req.method === 'HEAD');
    }),
  );
  const port = await listen(server, opts);
  return { endpoint: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}
