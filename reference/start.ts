// Starts the whole reference service on 127.0.0.1 and describes it as a target file.
// `npm run reference` and the embedded default target of `npm start` both come through here.
import { userCommand } from '../src/package.js';
import type { BlockRestNode, ChainBNode, HorizonNode, TargetFile } from '../src/types/generated/target.js';
import { startApiServers } from './api/index.js';
import { startBlockRestNode } from './nodes/block-rest.js';
import { startChainBNode } from './nodes/chain-b.js';
import { startHorizonNode } from './nodes/horizon.js';
import { faultByName } from './faults/index.js';
import { isVariant } from './variants.js';
import { defaultOptions, type ReferenceOptions } from './options.js';
import { ACCOUNT_BUCKET_VARIANT, createHorizonLimiter } from './limiter/pipeline.js';

/** The reference's target file: one node of each kind (a fleet reference lists arrays instead, see fleet.ts). */
export type ReferenceTarget = TargetFile & {
  nodes: { blockRest: BlockRestNode; chainB: ChainBNode; horizon: HorizonNode };
};

export interface RunningReference {
  /** A target file for this instance, credentials written in (no variables). */
  target: ReferenceTarget;
  options: ReferenceOptions;
  /** Dataset facts a target file has no field for (the scale collection). */
  dataset: { bigCollectionId?: string };
  close(): Promise<void>;
}

export class ReferenceStartError extends Error {}

export async function startReference(partial: Partial<ReferenceOptions> = {}): Promise<RunningReference> {
  const options = defaultOptions(partial);
  for (const name of options.faults) {
    if (!faultByName(name))
      throw new ReferenceStartError(
        `unknown fault "${name}" (see the fault catalogue: ${userCommand('reference', '--list-faults')})`,
      );
  }
  for (const name of options.variants) {
    if (!isVariant(name))
      throw new ReferenceStartError(`unknown variant "${name}" (see ${userCommand('reference', '--list-variants')})`);
  }
  // Shared by every horizon node started with these options, the fleet's extra ones included.
  if (options.variants.has(ACCOUNT_BUCKET_VARIANT)) options.horizonLimiter ??= createHorizonLimiter(options);
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    await Promise.allSettled(closers.reverse().map((c) => c()));
  };
  try {
    const api = await startApiServers(options);
    closers.push(() => api.close());
    const blockRest = await startBlockRestNode(options);
    closers.push(() => blockRest.close());
    const chainB = await startChainBNode(options);
    closers.push(() => chainB.close());
    const horizon = await startHorizonNode(options);
    closers.push(() => horizon.close());

    const c = options.credentials;
    const target: ReferenceTarget = {
      name: 'reference',
      api: {
        baseUrl: api.baseUrl,
        legacyBaseUrl: api.legacyBaseUrl,
        apiKey: c.apiKey,
        legacyApiKey: c.legacyApiKey,
        universal: api.universal,
        native: {
          protocol: api.native.protocol,
          networks: api.native.networks as [string, ...string[]],
          blockNumberMethod: 'eth_blockNumber',
          blockNumberTolerance: 2,
        },
        nft: {
          protocol: api.nft.protocol,
          network: api.nft.network,
          eventIds: api.nft.eventIds,
          collectionId: api.nft.collectionId,
          pageTokenParam: 'page_token',
          maxPages: 500,
        },
      },
      nodes: {
        blockRest: { endpoint: blockRest.endpoint, token: c.blockRestToken, height: 1 },
        chainB: {
          endpoint: chainB.endpoint,
          token: c.chainBToken,
          websocketUrl: chainB.websocketUrl,
          grpcAddress: chainB.grpcAddress,
          grpcTls: false,
          consensusRpcMethod: 'status',
        },
        horizon: {
          endpoint: horizon.endpoint,
          token: c.horizonToken,
          customer: options.customer,
          hourlyLimit: options.hourlyLimit,
          perSecondCap: options.perSecondCap,
        },
      },
      limits: { maxRequests: 1000, maxSeconds: 300, timeoutMs: 10000 },
    };
    return { target, options, dataset: { bigCollectionId: api.nft.bigCollectionId }, close: closeAll };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
