// `npm start` - the main job. Without --target it tests the embedded reference service.
// The flags, their checks and `--help` come from START below (docs/commands.md too).
// Exit: 0 no fail/error, 1 a check failed or errored, 2 the run could not start.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadTargetFile, resolveTarget, secretsOf, TargetError } from '../src/target-file/load.js';
import { withTlsFlags } from '../src/target-file/tls-flags.js';
import { coveredByCause, groupLine, type CauseGroup } from '../src/net/causes.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import { FAMILIES } from '../src/rules/catalogue.js';
import { parseSelectors, type Selection } from '../src/select.js';
import { isFleet } from '../src/fleet/units.js';
import type { ResultsFile } from '../src/results.js';
import { Redactor } from '../src/record/redact.js';
import { newRunSeed } from '../src/auth/near-miss.js';
import { exitWith, UsageError } from './fatal.js';
import { commandLine, defineCommand, type FlagValues } from './args.js';
import { prepareOutDir } from './outdir.js';
import { createProgress } from '../run/progress.js';
import type { RunningReference } from '../reference/start.js';

/** Errors that escape the run are printed through the target's redactor once it is known. */
let redactLine = (s: string): string => s;

const NODE_KINDS = { horizon: 'node,load', blockRest: 'node', chainB: 'node' } as const;
type NodeKind = keyof typeof NODE_KINDS;

export const START = defineCommand({
  invocation: 'npm start --',
  prefix: 'chainprobe',
  summary:
    'Tests a deployment of the blockchain access service against its description (docs/rules.md): ' +
    'the contract checks and the rate-limit probes, side by side. Without --target or --node it tests the embedded reference service.',
  flags: {
    target: {
      type: 'string',
      multiple: true,
      value: '<file.json>',
      path: true,
      help: 'the target file describing a deployment to test (see docs/target-file.md); repeat it to test several deployments in one run and one report',
    },
    only: {
      type: 'string',
      value: '<selectors>',
      help: `run a subset, comma-separated: ${['contracts', ...Object.keys(FAMILIES)].join(', ')}, a section (NFT) or a rule id (NFT-09)`,
    },
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: 'reports/latest',
      help: 'where the reports go: index.html, results.json, junit.xml',
    },
    baseline: {
      type: 'string',
      value: '<results.json>',
      path: true,
      help: 'an earlier results.json: report what changed in the observations',
    },
    history: {
      type: 'string',
      value: '<dir>',
      path: true,
      help: "a folder keeping every run's results.json: the report shows each rule's and node's last verdicts and the limiter estimates' drift",
    },
    'fail-on-drift': { type: 'boolean', help: 'with --baseline: exit 1 when an observation changed' },
    node: {
      type: 'string',
      choices: Object.keys(NODE_KINDS),
      help: 'ad hoc: test one dedicated node without a target file (needs --endpoint and --token-env)',
    },
    endpoint: { type: 'string', value: '<url>', help: "with --node: the node's endpoint URL" },
    'token-env': {
      type: 'string',
      value: '<VARIABLE>',
      help: "with --node: the environment variable holding the node's token (never the token itself)",
    },
    customer: {
      type: 'string',
      choices: ['dedicated', 'shared'],
      help: "with --node horizon or the embedded reference: the node's plan (without it, RL-09 reports which plan the measured rate matches)",
    },
    'hourly-limit': {
      type: 'string',
      integer: [1, 10_000_000],
      help: "with --node horizon or the embedded reference: the plan's requests per hour, when raised above the default",
    },
    'websocket-url': {
      type: 'string',
      value: '<ws(s)://...>',
      help: "with --node chainB: the node's WebSocket URL (default wss://<host>:8443/websocket)",
    },
    'grpc-address': {
      type: 'string',
      value: '<host:port>',
      help: "with --node chainB: the node's gRPC address (default <host>:443)",
    },
    'grpc-insecure': { type: 'boolean', help: 'with --node chainB: gRPC without TLS (a local or test node)' },
    fault: {
      type: 'string',
      multiple: true,
      list: true,
      value: '<name>',
      help: 'embedded reference only: switch on a fault that breaks one rule; npm run reference -- --list-faults lists them',
    },
    variant: {
      type: 'string',
      multiple: true,
      list: true,
      value: '<name>',
      help: 'embedded reference only: switch on an open-behaviour variant that breaks no rule; --list-variants lists them',
    },
    ca: {
      type: 'string',
      multiple: true,
      value: '<file.pem>',
      path: true,
      help: 'trust this CA (PEM) for HTTPS, WSS and gRPC over TLS, besides the system roots (repeatable)',
    },
    insecure: { type: 'boolean', help: 'verify no TLS certificate (staging only; the report headline says so)' },
    seed: {
      type: 'string',
      integer: [0, 9_999_999_999],
      value: '<N>',
      help: 'send the same near-miss credentials as the run whose results.json has "seed": N (default: a new seed per run)',
    },
  },
  examples: [
    'npm start',
    'npm start -- --target targets/staging.json --only nft,auth',
    'npm start -- --node horizon --endpoint https://node-c.example --token-env MY_TOKEN --customer shared',
    'npm start -- --node chainB --endpoint http://127.0.0.1:8080 --token-env MY_TOKEN ' +
      '--websocket-url ws://127.0.0.1:8081/websocket --grpc-address 127.0.0.1:9090 --grpc-insecure',
  ],
  exit: [
    '0  no check failed or errored',
    '1  a check failed or errored (or, with --fail-on-drift, an observation changed)',
    '2  the run could not start (bad flag, bad target file, unset or empty variable, unusable --out)',
    '130  interrupted (partial reports written)',
  ],
});

type Cli = FlagValues<typeof START.flags>;

/** Whether a flag was given: a repeatable flag counts when it has a value (so --target can become repeatable). */
const given = (v: unknown): boolean => (Array.isArray(v) ? v.length > 0 : v !== undefined && v !== false);

/** Rules between flags the table cannot express. */
function checkCombinations(v: Cli): void {
  if (given(v.node) && given(v.target)) throw new UsageError('--node and --target exclude each other');
  if (given(v.node) && (!given(v.endpoint) || !given(v['token-env'])))
    throw new UsageError('--node needs --endpoint <url> and --token-env <VARIABLE>');
  const withNode: [keyof Cli, NodeKind[]][] = [
    ['endpoint', ['horizon', 'blockRest', 'chainB']],
    ['token-env', ['horizon', 'blockRest', 'chainB']],
    ['websocket-url', ['chainB']],
    ['grpc-address', ['chainB']],
    ['grpc-insecure', ['chainB']],
  ];
  for (const [flag, kinds] of withNode) {
    if (!given(v[flag])) continue;
    if (!v.node) throw new UsageError(`--${flag} goes with --node ${kinds.join('|')}`);
    if (!kinds.includes(v.node as NodeKind))
      throw new UsageError(`--${flag} goes with --node ${kinds.join('|')}, not --node ${v.node}`);
  }
  for (const flag of ['customer', 'hourly-limit'] as const) {
    if (!given(v[flag])) continue;
    if (v.node && v.node !== 'horizon')
      throw new UsageError(`--${flag} goes with --node horizon, not --node ${v.node}`);
    if (given(v.target))
      throw new UsageError(`--${flag}: a target file states the plan in nodes.horizon (customer, hourlyLimit)`);
  }
  const tokenEnv = v['token-env'];
  // A token pasted where the variable's name belongs must not be echoed back in an error line.
  if (
    tokenEnv !== undefined &&
    (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv) ||
      (process.env[tokenEnv] === undefined && !/^[A-Z_][A-Z0-9_]{0,63}$/.test(tokenEnv)))
  ) {
    throw new UsageError(
      '--token-env: expects the name of an environment variable holding the token (such as NODE_TOKEN); ' +
        'what was given is not one, and is not shown in case it is the token itself',
    );
  }
  if (v.history !== undefined && existsSync(v.history) && !statSync(v.history).isDirectory())
    throw new UsageError(`--history ${v.history}: a file, not a folder`);
  if ((given(v.fault) || given(v.variant)) && (given(v.target) || given(v.node)))
    throw new UsageError('--fault and --variant apply to the embedded reference only (drop --target/--node)');
  if (v['fail-on-drift'] && !given(v.baseline)) throw new UsageError('--fail-on-drift needs --baseline <results.json>');
}

/** The ad hoc node target: built in memory, the token read from the environment. */
function nodeTarget(cli: Cli): ResolvedTarget {
  const node: Record<string, unknown> = { endpoint: cli.endpoint, token: `\${${cli['token-env']}}` };
  if (cli.customer) node.customer = cli.customer;
  if (cli['hourly-limit'] !== undefined) node.hourlyLimit = cli['hourly-limit'];
  if (cli['websocket-url'] !== undefined) node.websocketUrl = cli['websocket-url'];
  if (cli['grpc-address'] !== undefined) node.grpcAddress = cli['grpc-address'];
  if (cli['grpc-insecure']) node.grpcTls = false;
  try {
    return resolveTarget({ name: `node ${cli.node}`, nodes: { [cli.node!]: node } }, process.env, `node ${cli.node}`);
  } catch (e) {
    // The problems are worded for a target file; here each field came from a flag.
    if (e instanceof TargetError) throw new TargetError(e.problems.map((line) => flagWording(line, cli.node!)));
    throw e;
  }
}

/** "nodes.chainB.grpcAddress: must match ..." -> "--grpc-address: must match ...". */
function flagWording(line: string, node: string): string {
  const byField: Record<string, string> = {
    endpoint: '--endpoint',
    token: '--token-env',
    customer: '--customer',
    hourlyLimit: '--hourly-limit',
    websocketUrl: '--websocket-url',
    grpcAddress: '--grpc-address',
    grpcTls: '--grpc-insecure',
  };
  const m = new RegExp(`^nodes\\.${node}\\.(\\w+): (.*)$`).exec(line);
  const flag = m && byField[m[1]!];
  return flag ? `${flag}: ${m[2]}` : line;
}

/** Every --target file; deployments are told apart by name, so two with one name stop the run. */
function loadTargets(paths: string[]): ResolvedTarget[] {
  const targets = paths.map((p) => loadTargetFile(p));
  targets.forEach((t, i) => {
    const j = targets.findIndex((o) => o.name === t.name);
    if (j < i)
      throw new UsageError(
        `--target ${paths[i]}: the same target name as ${paths[j]} ("name" tells deployments apart in the report; give each its own)`,
      );
  });
  return targets;
}

function loadBaseline(path: string): ResultsFile {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as ResultsFile;
    if (!r || typeof r !== 'object' || !Array.isArray(r.checks)) throw new Error('not a chainprobe results.json');
    return r;
  } catch (e) {
    throw new UsageError(
      `--baseline ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (e as Error).message.split('\n')[0]}`,
    );
  }
}

function printSummary(results: ResultsFile, outDir: string, baselineLines: string[]): void {
  const s = results.summary;
  const failing = Object.entries(results.rules).filter(([, v]) => v === 'fail' || v === 'error');
  const out = process.stdout;
  out.write(`\nchainprobe ${results.tool.version} - target "${results.target}"\n`);
  // Causes first: one line per host that could not be reached, instead of one per check.
  for (const g of (results.causes as CauseGroup[] | undefined) ?? []) out.write(`  ${groupLine(g)}\n`);
  if ((results.tls as { insecure?: boolean } | undefined)?.insecure)
    out.write('  TLS verification OFF (--insecure): certificates were not checked\n');
  out.write(`  pass ${s.pass}  fail ${s.fail}  observed ${s.observed}  skipped ${s.skipped}  error ${s.error}\n`);
  for (const [rule, verdict] of failing) {
    const first = results.checks.find((c) => c.rule === rule && c.verdict === verdict && !coveredByCause(c));
    if (!first) continue;
    out.write(`  ${verdict.toUpperCase().padEnd(5)} ${rule.padEnd(8)} ${first?.message ?? ''}\n`);
  }
  if (baselineLines.length) {
    out.write('  baseline:\n');
    for (const l of baselineLines) out.write(`    ${l}\n`);
  }
  out.write(`  report: ${resolve(outDir, 'index.html')}\n`);
}

/** Drift kinds --fail-on-drift fails on: the target now behaves differently where the description is open. */
const OBSERVATION_DRIFT = new Set(['observation-changed', 'observation-new', 'observation-vanished']);

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.some((a) => a === '--token' || a.startsWith('--token='))) {
    throw new UsageError(
      '--token: tokens are never taken from the command line; put it in an environment variable and pass --token-env <NAME>',
    );
  }
  const cli = commandLine(START, argv).values;
  checkCombinations(cli);
  const selection: Selection = parseSelectors(cli.only ?? (cli.node ? NODE_KINDS[cli.node as NodeKind] : undefined));
  const baseline = cli.baseline ? loadBaseline(cli.baseline) : undefined;

  // First, before the first request and before the target's schema is compiled: a report that
  // cannot be written must not cost a node's quota, nor keep the user waiting to learn it.
  prepareOutDir(cli.out);
  let targets: ResolvedTarget[] = [];
  if (cli.node) targets = [nodeTarget(cli)];
  else if (cli.target.length) targets = loadTargets(cli.target);

  // The run's heavy modules load only once the command line and the target are known good.
  const [{ runChainprobe, summarizeBaseline }, { runFleet }, { startReference }] = await Promise.all([
    import('../run/pipeline.js'),
    import('../run/fleet.js'),
    import('../reference/start.js'),
  ]);
  let reference: RunningReference | undefined;
  const extra: Record<string, unknown> = {};
  if (!targets.length) {
    const customer = cli.customer as 'dedicated' | 'shared' | undefined;
    try {
      reference = await startReference({
        ...(customer && { customer, hourlyLimit: customer === 'shared' ? 2000 : 3600 }),
        ...(cli['hourly-limit'] !== undefined && { hourlyLimit: cli['hourly-limit'] }),
        ...(cli.fault.length && { faults: new Set(cli.fault) }),
        ...(cli.variant.length && { variants: new Set(cli.variant) }),
      });
    } catch (e) {
      throw new UsageError(`embedded reference service could not start: ${(e as Error).message.split('\n')[0]}`);
    }
    targets = [resolveTarget(reference.target, {}, 'reference')];
    extra.reference = { faults: cli.fault, variants: cli.variant };
  }

  targets = targets.map((t) => withTlsFlags(t, cli.ca ?? [], cli.insecure ?? false));
  const seed = cli.seed !== undefined ? Number(cli.seed) % 2 ** 31 : newRunSeed();
  const redactor = new Redactor(targets.flatMap(secretsOf), seed);
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
      seed,
      history: cli.history,
    };
    const outcome = isFleet(targets)
      ? await runFleet({ ...common, targets })
      : await runChainprobe({ ...common, target: targets[0]! });
    progress.end();
    printSummary(
      outcome.results,
      cli.out,
      outcome.baseline ? summarizeBaseline(outcome.baseline).map((l) => redactor.text(l)) : [],
    );
    if (outcome.interrupted) return 130;
    const drifted = cli['fail-on-drift']
      ? (outcome.baseline?.items ?? []).filter((i) => OBSERVATION_DRIFT.has(i.kind)).length
      : 0;
    if (drifted)
      process.stdout.write(
        `  --fail-on-drift: ${drifted} observation${drifted === 1 ? '' : 's'} changed since the baseline\n`,
      );
    return drifted ? 1 : outcome.exitCode;
  } finally {
    await reference?.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().then(
    (code) => process.exit(code),
    (e) => exitWith(START.prefix, e, (s) => redactLine(s)),
  );
}
