// The simulated chain heads of the reference service. A head is a pure function of (seed, key,
// clock): every server that asks about one network (universal REST, native JSON-RPC, a node)
// gets the same number at the same instant, and two instances with one seed agree.
import { hash32, strHash } from './nft/derive.js';

/** Heads count blocks from this instant (fixed, so instances started at different times agree). */
export const CHAIN_EPOCH_MS = Date.UTC(2024, 0, 1);
export const DEFAULT_BLOCK_TIME_MS = 12_000;

export interface ChainOptions {
  seed: number;
  /** Clock in ms (ReferenceOptions.now). */
  now: () => number;
  blockTimeMs?: number;
}

export interface Chain {
  readonly blockTimeMs: number;
  /** Current head of a network. Any stable key works; the API servers use `protocol/network`. */
  headOf(network: string): number;
}

/** Height at the epoch: between 1,000,000 and 19,000,000, seeded per network. */
export function startHeightOf(seed: number, network: string): number {
  return 1_000_000 + (hash32(seed, strHash(network)) % 18_000_000);
}

export function createChain(opts: ChainOptions): Chain {
  const blockTimeMs = opts.blockTimeMs ?? DEFAULT_BLOCK_TIME_MS;
  return {
    blockTimeMs,
    headOf(network: string): number {
      const elapsed = Math.max(0, opts.now() - CHAIN_EPOCH_MS);
      return startHeightOf(opts.seed, network) + Math.floor(elapsed / blockTimeMs);
    },
  };
}
