// --shard i/n (the run command): its flag line, and the run's targets cut down to part i of n
// before the first request (src/fleet/shard.ts says how the parts are made). The part is recorded
// in results.json (`shard`); `chainprobe merge` joins the parts.
import type { FlagDef } from './args.js';
import { UsageError } from './fatal.js';
import { parseShard, shardTargets } from '../src/fleet/shard.js';
import type { ResolvedTarget } from '../src/target-file/types.js';

export const SHARD_FLAG = {
  type: 'string',
  value: '<i>/<n>',
  help:
    "run only the i-th of n parts of the run's deployments and nodes " +
    "(deterministic; a deployment's horizon nodes stay together); chainprobe merge joins the parts",
} as const satisfies FlagDef;

/** Before anything loads: a --shard that is not i/n stops the run (exit 2). */
export function checkShardFlag(shard: string | undefined): void {
  if (shard === undefined) return;
  try {
    parseShard(shard);
  } catch (e) {
    throw new UsageError(`--shard: ${(e as Error).message}`);
  }
}

/** The targets of part i/n, with `extra.shard` saying which part it was; unchanged without --shard. */
export function shardRun(
  targets: ResolvedTarget[],
  shard: string | undefined,
  extra: Record<string, unknown>,
): ResolvedTarget[] {
  if (shard === undefined) return targets;
  checkShardFlag(shard);
  try {
    const part = shardTargets(targets, parseShard(shard));
    extra.shard = part.record;
    return part.targets;
  } catch (e) {
    throw new UsageError(`--shard ${shard}: ${(e as Error).message}`);
  }
}
