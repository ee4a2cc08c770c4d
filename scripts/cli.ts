// `npm start` - the main job. Without --target it tests the embedded reference service.
//   npm start -- [--target <file.json>]... [--only <selectors>] [--out <dir>] [--baseline <results.json>] [--history <dir>]
//   npm start -- --node horizon|blockRest|chainB --endpoint <url> --token-env <VAR> [--customer dedicated|shared] [--hourly-limit N]
//   npm start -- --fault <name> ... --variant <name> ...   (embedded reference only: switch a fault or
//   an open-behaviour variant on)
// Exit: 0 no fail/error, 1 a check failed or errored, 2 the run could not start.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadTargetFile, resolveTarget, secretsOf } from '../src/target/load.js';
import type { ResolvedTarget } from '../src/target/types.js';
import { parseSelectors, type Selection } from '../src/select.js';
import { runChainprobe, summarizeBaseline } from '../src/run/pipeline.js';
import { runFleet } from '../src/run/fleet.js';
import { isFleet } from '../src/fleet/units.js';
import type { ResultsFile } from '../src/results.js';
import { Redactor } from '../src/record/redact.js';
import { exitWith, UsageError } from '../src/cli/fatal.js';
import { createProgress } from '../src/progress.js';
import { startReference, type RunningReference } from '../reference/start.js';

/** Errors that escape the run are printed through the target's redactor once it is known. */
let redactLine = (s: string): string => s;

const NODE_KINDS = { horizon: 'node,load', blockRest: 'node', chainB: 'node' } as const;
type NodeKind = keyof typeof NODE_KINDS;

interface Cli {
  /** Several: a fleet run over several deployments, one report. */
  targets: string[];
  only?: string;
  out: string;
  baseline?: string;
  /** A folder keeping every run's results.json; the report shows the trends of the last runs. */
  history?: string;
  node?: NodeKind;
  endpoint?: string;
  tokenEnv?: string;
  customer?: string;
  hourlyLimit?: string;
  faults: string[];
  variants: string[];
}

function parseCli(argv: string[]): Cli {
  let p;
  try {
    p = parseArgs({
      args: argv,
      options: {
        target: { type: 'string', multiple: true },
        only: { type: 'string' },
        out: { type: 'string', default: 'reports/latest' },
        baseline: { type: 'string' },
        history: { type: 'string' },
        node: { type: 'string' },
        endpoint: { type: 'string' },
        'token-env': { type: 'string' },
        token: { type: 'string' },
        customer: { type: 'string' },
        'hourly-limit': { type: 'string' },
        fault: { type: 'string', multiple: true },
        variant: { type: 'string', multiple: true },
      },
      strict: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, ''));
  }
  const v = p.values;
  if (v.history !== undefined && existsSync(v.history) && !statSync(v.history).isDirectory()) throw new UsageError(`--history ${v.history}: a file, not a folder`);
  if (v.token !== undefined) throw new UsageError('--token: tokens are never taken from the command line; put it in an environment variable and pass --token-env <NAME>');
  if (v.node !== undefined && !(v.node in NODE_KINDS)) throw new UsageError(`--node: must be one of ${Object.keys(NODE_KINDS).join(', ')}`);
  if (v.node && v.target?.length) throw new UsageError('--node and --target exclude each other');
  if (v.node && (!v.endpoint || !v['token-env'])) throw new UsageError('--node needs --endpoint <url> and --token-env <VARIABLE>');
  if (!v.node && (v.endpoint || v['token-env'])) throw new UsageError('--endpoint and --token-env go with --node');
  if ((v.fault?.length || v.variant?.length) && (v.target?.length || v.node)) throw new UsageError('--fault and --variant apply to the embedded reference only (drop --target/--node)');
  return {
    targets: v.target ?? [],
    only: v.only,
    out: v.out!,
    baseline: v.baseline,
    history: v.history,
    node: v.node as NodeKind | undefined,
    endpoint: v.endpoint,
    tokenEnv: v['token-env'],
    customer: v.customer,
    hourlyLimit: v['hourly-limit'],
    faults: (v.fault ?? []).flatMap((f) => f.split(',')).filter(Boolean),
    variants: (v.variant ?? []).flatMap((f) => f.split(',')).filter(Boolean),
  };
}

/** The ad hoc node target: built in memory, the token read from the environment. */
function nodeTarget(cli: Cli): ResolvedTarget {
  const node: Record<string, unknown> = { endpoint: cli.endpoint, token: `\${${cli.tokenEnv}}` };
  if (cli.node === 'horizon') {
    if (cli.customer) node.customer = cli.customer;
    if (cli.hourlyLimit) node.hourlyLimit = Number(cli.hourlyLimit);
  }
  return resolveTarget({ name: `node ${cli.node}`, nodes: { [cli.node!]: node } }, process.env, `node ${cli.node}`);
}

/** Every --target file; deployments are told apart by name, so two with one name stop the run. */
function loadTargets(paths: string[]): ResolvedTarget[] {
  const targets = paths.map((p) => loadTargetFile(p));
  targets.forEach((t, i) => {
    const j = targets.findIndex((o) => o.name === t.name);
    if (j < i) throw new UsageError(`--target ${paths[i]}: the same target name as ${paths[j]} ("name" tells deployments apart in the report; give each its own)`);
  });
  return targets;
}

function loadBaseline(path: string): ResultsFile {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as ResultsFile;
    if (!r || typeof r !== 'object' || !Array.isArray(r.checks)) throw new Error('not a chainprobe results.json');
    return r;
  } catch (e) {
    throw new UsageError(`--baseline ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (e as Error).message.split('\n')[0]}`);
  }
}

function printSummary(results: ResultsFile, outDir: string, baselineLines: string[]): void {
  const s = results.summary;
  const failing = Object.entries(results.rules).filter(([, v]) => v === 'fail' || v === 'error');
  const out = process.stdout;
  out.write(`\nchainprobe ${results.tool.version} - target "${results.target}"\n`);
  out.write(`  pass ${s.pass}  fail ${s.fail}  observed ${s.observed}  skipped ${s.skipped}  error ${s.error}\n`);
  for (const [rule, verdict] of failing) {
    const first = results.checks.find((c) => c.rule === rule && c.verdict === verdict);
    out.write(`  ${verdict.toUpperCase().padEnd(5)} ${rule.padEnd(8)} ${first?.message ?? ''}\n`);
  }
  if (baselineLines.length) {
    out.write('  baseline:\n');
    for (const l of baselineLines) out.write(`    ${l}\n`);
  }
  out.write(`  report: ${resolve(outDir, 'index.html')}\n`);
}

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  let selection: Selection = parseSelectors(cli.node ? NODE_KINDS[cli.node] : cli.only);
  if (cli.node && cli.only) selection = parseSelectors(cli.only);
  const baseline = cli.baseline ? loadBaseline(cli.baseline) : undefined;

  let reference: RunningReference | undefined;
  let targets: ResolvedTarget[];
  const extra: Record<string, unknown> = {};
  if (cli.node) targets = [nodeTarget(cli)];
  else if (cli.targets.length) targets = loadTargets(cli.targets);
  else {
    const customer = cli.customer === 'shared' || cli.customer === 'dedicated' ? cli.customer : undefined;
    if (cli.customer && !customer) throw new UsageError('--customer: must be "dedicated" or "shared"');
    try {
      reference = await startReference({
        ...(customer && { customer, hourlyLimit: customer === 'shared' ? 2000 : 3600 }),
        ...(cli.faults.length && { faults: new Set(cli.faults) }),
        ...(cli.variants.length && { variants: new Set(cli.variants) }),
      });
    } catch (e) {
      throw new UsageError(`embedded reference service could not start: ${(e as Error).message.split('\n')[0]}`);
    }
    targets = [resolveTarget(reference.target, {}, 'reference')];
    extra.reference = { faults: cli.faults, variants: cli.variants };
  }

  const redactor = new Redactor(targets.flatMap(secretsOf));
  redactLine = (s) => redactor.text(s);
  const controller = new AbortController();
  let signals = 0;
  const onSignal = () => {
    signals++;
    controller.abort();
    process.stderr.write('\nchainprobe: interrupted; writing partial reports\n');
    // Whatever happens, leave within 2 seconds of the first signal.
    setTimeout(() => process.exit(130), signals > 1 ? 100 : 1800).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = createProgress(process.stderr);
  try {
    const common = {
      selection,
      outDir: cli.out,
      baseline,
      progress,
      signal: controller.signal,
      extra,
      history: cli.history,
    };
    const outcome = isFleet(targets) ? await runFleet({ ...common, targets }) : await runChainprobe({ ...common, target: targets[0]! });
    progress.end();
    printSummary(outcome.results, cli.out, outcome.baseline ? summarizeBaseline(outcome.baseline).map((l) => redactor.text(l)) : []);
    if (outcome.interrupted) return 130;
    return outcome.exitCode;
  } finally {
    await reference?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => exitWith('chainprobe', e, (s) => redactLine(s)),
);
