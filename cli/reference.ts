// `npm run reference`: starts only the reference service, writes a target file for it, prints the
// ready line, and serves until SIGINT/SIGTERM. Flags: REFERENCE below (also `--help`). With a
// --<kind>-nodes count above 1 it serves that many nodes of the kind, each with its own token, and
// the target file lists the kind as an array of named nodes (a fleet).
import { accessSync, constants, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { FleetCounts } from '../reference/fleet.js';
import { MAX_FLEET_NODES, type ReferenceOptions } from '../reference/options.js';
import { packagePath, userCommand } from '../src/package.js';
import { didYouMean } from '../src/suggest.js';
import { exitWith, UsageError } from './fatal.js';
import { commandLine, defineCommand, isMain, parseCommand, userCwd, type FlagValues } from './args.js';

export const REFERENCE = defineCommand({
  invocation: 'npm run reference --',
  prefix: 'chainprobe reference',
  summary:
    'Starts only the reference service on 127.0.0.1 (ports chosen by the system), ' +
    'writes a target file for it (credentials written in), prints {"ready":true,"target":"<file.json>"} and serves until Ctrl-C.',
  flags: {
    'target-out': {
      type: 'string',
      value: '<file.json>',
      help: 'where to write the target file for the running service (required)',
    },
    fault: {
      type: 'string',
      multiple: true,
      list: true,
      value: '<name>',
      help: 'switch on a fault that breaks one rule (see --list-faults)',
    },
    variant: {
      type: 'string',
      multiple: true,
      list: true,
      value: '<name>',
      help: 'switch on an open-behaviour variant that breaks no rule (see --list-variants)',
    },
    customer: {
      type: 'string',
      choices: ['dedicated', 'shared'],
      help: "the horizon node's plan: 3600 or 2000 requests per hour (default dedicated)",
    },
    'hourly-limit': {
      type: 'string',
      integer: [1, 10_000_000],
      help: 'requests per hour of the horizon node, overriding the plan',
    },
    burst: { type: 'string', integer: [1, 100_000], help: "the horizon limiter's burst (default: the hourly limit's)" },
    'latency-ms': {
      type: 'string',
      value: '<A[:J]>',
      help: 'answer after A ms, plus up to J ms of random jitter, e.g. 80:40',
    },
    seed: {
      type: 'string',
      integer: [-2_147_483_648, 2_147_483_647],
      help: 'seed of the data set and of the latency jitter',
    },
    'big-collection': {
      type: 'string',
      integer: [0, 1_000_000],
      help: 'assets in the big NFT collection (paging and scale tests)',
    },
    'horizon-nodes': {
      type: 'string',
      integer: [1, MAX_FLEET_NODES],
      help: 'serve this many horizon nodes, each with its own token; the target file lists them as an array (a fleet)',
    },
    'block-rest-nodes': {
      type: 'string',
      integer: [1, MAX_FLEET_NODES],
      help: 'serve this many block-by-height REST nodes (a fleet)',
    },
    'chain-b-nodes': { type: 'string', integer: [1, MAX_FLEET_NODES], help: 'serve this many chain B nodes (a fleet)' },
    'list-faults': { type: 'boolean', help: 'list the fault catalogue (name, rule, what it breaks) and exit' },
    'list-variants': { type: 'boolean', help: 'list the open-behaviour variants and exit' },
  },
  examples: [
    'npm run reference -- --target-out ref.json',
    'npm run reference -- --target-out fleet.json --horizon-nodes 4',
    'npm run reference -- --target-out ref.json --fault rl-wrong-hourly-rate --customer shared',
  ],
  exit: ['0  stopped by Ctrl-C/SIGTERM, or a list printed', '2  bad flag, or the service could not start'],
});

/** The fleet flags: node kind -> flag. */
const FLEET_FLAGS = { horizon: 'horizon-nodes', blockRest: 'block-rest-nodes', chainB: 'chain-b-nodes' } as const;

type ReferenceArgs = {
  targetOut?: string;
  listFaults: boolean;
  listVariants: boolean;
  options: Partial<ReferenceOptions>;
  fleet: FleetCounts;
};

/** The flags of argv as the reference's options (tests call it; main() gets --help handled first). */
export function parseReferenceArgs(argv: string[]): ReferenceArgs {
  const r = parseCommand(REFERENCE, argv);
  if ('show' in r) throw new UsageError(`unexpected --${r.show}`);
  return toOptions(r.values);
}

function toOptions(v: FlagValues<typeof REFERENCE.flags>): ReferenceArgs {
  const options: Partial<ReferenceOptions> = {};
  if (v.customer !== undefined) {
    options.customer = v.customer as ReferenceOptions['customer'];
    options.hourlyLimit = v.customer === 'shared' ? 2000 : 3600;
  }
  if (v['hourly-limit'] !== undefined) options.hourlyLimit = v['hourly-limit'];
  if (v.burst !== undefined) options.burst = v.burst;
  if (v.seed !== undefined) options.seed = v.seed;
  if (v['big-collection'] !== undefined) options.bigCollectionSize = v['big-collection'];
  if (v['latency-ms'] !== undefined) {
    const m = /^(\d+(?:\.\d+)?)(?::(\d+(?:\.\d+)?))?$/.exec(v['latency-ms']);
    if (!m) throw new UsageError(`--latency-ms: expected A or A:J in milliseconds, e.g. 80:40`);
    const baseMs = Number(m[1]);
    const jitterMs = Number(m[2] ?? 0);
    if (jitterMs > baseMs) throw new UsageError(`--latency-ms: jitter must not exceed the base latency`);
    options.latency = { baseMs, jitterMs };
  }
  if (v.fault.length) options.faults = new Set(v.fault);
  if (v.variant.length) options.variants = new Set(v.variant);
  const fleet: FleetCounts = {};
  for (const [kind, flag] of Object.entries(FLEET_FLAGS) as [
    keyof FleetCounts,
    (typeof FLEET_FLAGS)[keyof FleetCounts],
  ][]) {
    if (v[flag] !== undefined) fleet[kind] = v[flag];
  }
  return { targetOut: v['target-out'], listFaults: v['list-faults'], listVariants: v['list-variants'], options, fleet };
}

/**
 * The target schema as a target file at `file` names it: relative to the file's folder, which is
 * how editors resolve "$schema" (the package's copy, or the clone's schemas/).
 */
export function schemaRef(file: string): string {
  const rel = relative(dirname(file), packagePath('schemas', 'target.schema.json')).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * --fault and --variant names, checked before the service starts (here and for the run's embedded
 * reference): an unknown one names the list to pick from, as the user runs it.
 */
export async function checkSwitches(faults: readonly string[], variants: readonly string[]): Promise<void> {
  if (!faults.length && !variants.length) return;
  const [{ FAULTS }, { VARIANTS }] = await Promise.all([
    import('../reference/faults/index.js'),
    import('../reference/variants.js'),
  ]);
  const lists = [
    ['fault', FAULTS, 'see the fault catalogue', '--list-faults', faults],
    ['variant', VARIANTS, 'see the variants', '--list-variants', variants],
  ] as const;
  for (const [kind, known, see, listFlag, given] of lists) {
    const names = known.map((k) => k.name);
    const unknown = given.find((n) => !names.includes(n));
    if (unknown !== undefined)
      throw new UsageError(
        `--${kind}: unknown ${kind} "${unknown}"${didYouMean(unknown, names)}; ${see}: ${userCommand('reference', listFlag)}`,
      );
  }
}

async function main(): Promise<void> {
  const args = toOptions(commandLine(REFERENCE).values);
  // The service loads only for a command that uses it: --help answers at once.
  if (args.listFaults) {
    const { FAULTS } = await import('../reference/faults/index.js');
    for (const f of FAULTS) process.stdout.write(`${f.name.padEnd(34)} ${f.rule.padEnd(9)} ${f.description}\n`);
    return;
  }
  if (args.listVariants) {
    const { VARIANTS } = await import('../reference/variants.js');
    for (const v of VARIANTS) process.stdout.write(`${v.name.padEnd(28)} ${v.rule.padEnd(9)} ${v.description}\n`);
    return;
  }
  if (!args.targetOut) throw new UsageError('--target-out <file.json> is required');
  await checkSwitches([...(args.options.faults ?? [])], [...(args.options.variants ?? [])]);
  // Relative to where the user ran npm; the ready line repeats the path as given.
  const file = resolve(userCwd(), args.targetOut);
  const write = (text: string) => {
    try {
      writeFileSync(file, text, { mode: 0o600 });
    } catch (e) {
      throw new UsageError(
        `--target-out ${file}: cannot write the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  };
  try {
    // Found before the service starts; the file itself appears only once it is ready.
    accessSync(dirname(file), constants.W_OK);
  } catch (e) {
    throw new UsageError(
      `--target-out ${file}: cannot write in ${dirname(file)} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const fleet = Object.values(args.fleet).some((n) => n > 1);
  const ref = fleet
    ? await (await import('../reference/fleet.js')).startFleetReference(args.fleet, args.options)
    : await (await import('../reference/start.js')).startReference(args.options);
  try {
    write(`${JSON.stringify({ $schema: schemaRef(file), ...ref.target }, null, 2)}\n`);
  } catch (e) {
    await ref.close();
    throw e;
  }
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

/** Runs the command on process.argv (npm run reference, or chainprobe reference). */
export function cli(): void {
  main().catch((e) => exitWith(REFERENCE.prefix, e));
}

if (isMain(import.meta.url)) cli();
