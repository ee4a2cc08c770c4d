// The dedicated nodes' works (contracts/work.ts), one per node path: the REST paths' (node-rest.ts),
// then chain B's WebSocket and gRPC (node-streams.ts).
import { restWorks } from './node-rest.js';
import { streamWorks } from './node-streams.js';
import type { FamilyWork, WorkEnv } from './work.js';

export function nodeWorks(env: Pick<WorkEnv, 'target' | 'seed'>): FamilyWork[] {
  return [...restWorks(env.target, env.seed), ...streamWorks(env.target, env.seed)];
}
