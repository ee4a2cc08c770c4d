// `npm run reference -- --target-out <file.json> [--fault <name>]... [--variant <name>]...
//   [--hourly-limit N] [--customer dedicated|shared] [--burst N] [--latency-ms A[:J]] [--seed N]
//   [--big-collection N] [--horizon-nodes N] [--block-rest-nodes N] [--chain-b-nodes N]
//   [--list-faults] [--list-variants]`
// With a --<kind>-nodes count above 1 the reference serves that many nodes of the kind, each with
// its own token, and the target file lists the kind as an array of named nodes (a fleet).
// Starts only the reference service, writes a target file for it, prints the ready line, and
// serves until SIGINT/SIGTERM.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startReference } from '../reference/start.js';
import { MAX_FLEET_NODES, startFleetReference, type FleetCounts } from '../reference/fleet.js';
import { FAULTS } from '../reference/faults/index.js';
import { VARIANTS } from '../reference/variants.js';
import type { ReferenceOptions } from '../reference/options.js';
import { exitWith, UsageError } from '../src/cli/fatal.js';

function positiveInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) <= 0) throw new UsageError(`${flag}: expected a positive integer, got "${v}"`);
  return Number(v);
}

/** The fleet flags: node kind -> flag. */
const FLEET_FLAGS = { horizon: 'horizon-nodes', blockRest: 'block-rest-nodes', chainB: 'chain-b-nodes' } as const;

export function parseReferenceArgs(argv: string[]): { targetOut?: string; listFaults: boolean; listVariants: boolean; options: Partial<ReferenceOptions>; fleet: FleetCounts } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        'target-out': { type: 'string' },
        fault: { type: 'string', multiple: true },
        variant: { type: 'string', multiple: true },
        'hourly-limit': { type: 'string' },
        customer: { type: 'string' },
        burst: { type: 'string' },
        'latency-ms': { type: 'string' },
        seed: { type: 'string' },
        'big-collection': { type: 'string' },
        'horizon-nodes': { type: 'string' },
        'block-rest-nodes': { type: 'string' },
        'chain-b-nodes': { type: 'string' },
        'list-faults': { type: 'boolean', default: false },
        'list-variants': { type: 'boolean', default: false },
      },
      strict: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  const options: Partial<ReferenceOptions> = {};
  if (v.customer !== undefined) {
    if (v.customer !== 'dedicated' && v.customer !== 'shared') throw new UsageError(`--customer: must be "dedicated" or "shared"`);
    options.customer = v.customer;
    options.hourlyLimit = v.customer === 'shared' ? 2000 : 3600;
  }
  const hourly = positiveInt('--hourly-limit', v['hourly-limit']);
  if (hourly) options.hourlyLimit = hourly;
  const burst = positiveInt('--burst', v.burst);
  if (burst) options.burst = burst;
  const seed = v.seed === undefined ? undefined : Number(v.seed);
  if (seed !== undefined) {
    if (!Number.isInteger(seed)) throw new UsageError(`--seed: expected an integer`);
    options.seed = seed;
  }
  const big = v['big-collection'] === undefined ? undefined : Number(v['big-collection']);
  if (big !== undefined) {
    if (!Number.isInteger(big) || big < 0 || big > 1_000_000) throw new UsageError(`--big-collection: expected an integer from 0 to 1000000`);
    options.bigCollectionSize = big;
  }
  if (v['latency-ms'] !== undefined) {
    const m = /^(\d+(?:\.\d+)?)(?::(\d+(?:\.\d+)?))?$/.exec(v['latency-ms']);
    if (!m) throw new UsageError(`--latency-ms: expected A or A:J in milliseconds, e.g. 80:40`);
    const baseMs = Number(m[1]);
    const jitterMs = Number(m[2] ?? 0);
    if (jitterMs > baseMs) throw new UsageError(`--latency-ms: jitter must not exceed the base latency`);
    options.latency = { baseMs, jitterMs };
  }
  const faults = (v.fault ?? []).flatMap((f) => f.split(',')).filter(Boolean);
  if (faults.length) options.faults = new Set(faults);
  const variants = (v.variant ?? []).flatMap((f) => f.split(',')).filter(Boolean);
  if (variants.length) options.variants = new Set(variants);
  const fleet: FleetCounts = {};
  for (const [kind, flag] of Object.entries(FLEET_FLAGS) as [keyof FleetCounts, string][]) {
    const n = positiveInt(`--${flag}`, v[flag as keyof typeof v] as string | undefined);
    if (n !== undefined && n > MAX_FLEET_NODES) throw new UsageError(`--${flag}: at most ${MAX_FLEET_NODES}`);
    if (n !== undefined) fleet[kind] = n;
  }
  return { targetOut: v['target-out'], listFaults: v['list-faults'] ?? false, listVariants: v['list-variants'] ?? false, options, fleet };
}

async function main(): Promise<void> {
  const args = parseReferenceArgs(process.argv.slice(2));
  if (args.listFaults) {
    for (const f of FAULTS) process.stdout.write(`${f.name.padEnd(34)} ${f.rule.padEnd(9)} ${f.description}\n`);
    return;
  }
  if (args.listVariants) {
    for (const v of VARIANTS) process.stdout.write(`${v.name.padEnd(28)} ${v.rule.padEnd(9)} ${v.description}\n`);
    return;
  }
  if (!args.targetOut) throw new UsageError('--target-out <file.json> is required');
  const fleet = Object.values(args.fleet).some((n) => n > 1);
  const ref = fleet ? await startFleetReference(args.fleet, args.options) : await startReference(args.options);
  const file = resolve(args.targetOut);
  writeFileSync(file, `${JSON.stringify(ref.target, null, 2)}\n`, { mode: 0o600 });
  process.stdout.write(`${JSON.stringify({ ready: true, target: args.targetOut })}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    ref.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().catch((e) => exitWith('chainprobe reference', e));
}
