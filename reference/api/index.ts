// Starts {base_url} and {legacy_base_url} on 127.0.0.1 and says what they serve, in the terms
// a target file needs.
import { createChain } from '../chain.js';
import { closeServer, listen } from '../http/kit.js';
import { datasetOf, NFT_NETWORK, NFT_PROTOCOL } from '../nft/dataset.js';
import { publicEventId } from '../nft/views.js';
import type { ReferenceOptions } from '../options.js';
import { ADVERTISED_UNIVERSAL, NATIVE_NETWORKS, NATIVE_PROTOCOL } from './networks.js';
import { createApiServer } from './server.js';

export { API_VARIANTS, type ApiVariant } from './variants.js';

export interface ApiServers {
  baseUrl: string;
  legacyBaseUrl: string;
  universal: { protocol: string; network: string }[];
  native: { protocol: string; networks: string[] };
  nft: { protocol: string; network: string; collectionId: string; eventIds: string[]; bigCollectionId?: string };
  close(): Promise<void>;
}

/** How many event ids the target file lists: enough to cover every kind (see buildEvents). */
const ADVERTISED_EVENTS = 6;

export async function startApiServers(opts: ReferenceOptions): Promise<ApiServers> {
  const chain = createChain(opts);
  const dataset = datasetOf(opts.seed, opts.bigCollectionSize);
  const base = createApiServer('base', opts, chain);
  const legacy = createApiServer('legacy', opts, chain);
  let basePort: number;
  let legacyPort: number;
  try {
    basePort = await listen(base, opts);
    legacyPort = await listen(legacy, opts);
  } catch (e) {
    await Promise.all([closeServer(base), closeServer(legacy)]);
    throw e;
  }
  return {
    baseUrl: `http://127.0.0.1:${basePort}`,
    legacyBaseUrl: `http://127.0.0.1:${legacyPort}`,
    universal: ADVERTISED_UNIVERSAL.map((u) => ({ ...u })),
    native: { protocol: NATIVE_PROTOCOL, networks: NATIVE_NETWORKS.map((n) => n.name) },
    nft: {
      protocol: NFT_PROTOCOL,
      network: NFT_NETWORK,
      collectionId: dataset.main.id,
      eventIds: dataset.events.slice(0, ADVERTISED_EVENTS).map((e) => publicEventId(e.id, opts)),
      ...(dataset.big ? { bigCollectionId: dataset.big.id } : {}),
    },
    close: async () => {
      await Promise.all([closeServer(base), closeServer(legacy)]);
    },
  };
}
