// Every family's works (contracts/work.ts) by the family's name. The contract stage sends them
// (contracts/stage-work.ts) and each spec file declares its rule tests from them
// (SharedWork.addFamily), under the same names: a work's stage key is its family and its place here.
import { errorsWorks } from './errors-work.js';
import { nativeWorks } from './native-work.js';
import { nftWorks } from './nft-work.js';
import { nodeWorks } from './node-work.js';
import { universalWorks } from './universal-work.js';
import type { FamilyWork, WorkEnv } from './work.js';

export const FAMILY_WORKS = {
  node: nodeWorks,
  nft: nftWorks,
  native: nativeWorks,
  universal: universalWorks,
  errors: errorsWorks,
} as const satisfies Record<string, (env: WorkEnv) => FamilyWork[]>;

export type WorkFamily = keyof typeof FAMILY_WORKS;
