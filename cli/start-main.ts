// What `npm start` (the bin's `chainprobe`) does once its flags are read (cli/start-flags.ts): checks
// the flags together, loads the targets, starts the embedded reference when there is none, runs,
// and prints the closing lines. Loaded only after the command line is known good, so --help and
// --version never load a run.
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadTargetFile, resolveTarget, secretsOf, TargetError } from '../src/target-file/load.js';
import { withTlsFlags } from '../src/target-file/tls-flags.js';
import { groupLine, type CauseGroup } from '../src/net/causes.js';
import { countLines, failingRules } from '../src/run-summary.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import { parseSelectors, type Selection } from '../src/select.js';
import { faultsOf, type ResultsFile } from '../src/results.js';
import { nothingCheckedLine } from '../src/coverage.js';
import { Redactor } from '../src/record/redact.js';
import { newRunSeed } from '../src/auth/near-miss.js';
import { UsageError } from './fatal.js';
import type { FlagValues } from './args.js';
import { prepareOutDir } from './outdir.js';
import { createProgress } from '../run/progress.js';
import type { RunningReference } from '../reference/start.js';
import { NODE_SELECTION, START, type NodeKind } from './start-flags.js';
import { runQueueWaitMs } from '../src/run-queue.js';
import { checkMetricsFlags, metricsAfterRun } from './metrics-flags.js';
import { checkShardFlag, shardRun } from './shard-flag.js';
import { checkCompareFlags } from './compare-flags.js';
import { isWaived } from '../src/waivers/waivers.js';

/** Errors that escape the run are printed through the target's redactor once it is known. */
/** The most the partial reports may take after a signal on a machine that keeps chainprobe waiting for a CPU. */
const STARVED_EXIT_MS = 10_000;

/**
 * Exits (130) `ms` after now, whatever happens: a hung writer or child never keeps an interrupted run.
 * The time the machine kept this process waiting for a CPU meanwhile is added (up to STARVED_EXIT_MS
 * in all): a starved process writing its partial reports is slow, not stuck.
 */
function leaveAfter(ms: number): void {
  const start = performance.now();
  const waitedAt = runQueueWaitMs();
  const check = () => {
    const waited = waitedAt === undefined ? 0 : (runQueueWaitMs() ?? waitedAt) - waitedAt;
    const due = Math.min(ms + waited, STARVED_EXIT_MS) - (performance.now() - start);
    if (due <= 0) process.exit(130);
    setTimeout(check, due).unref();
  };
  setTimeout(check, ms).unref();
}

export let redactLine = (s: string): string => s;

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
  if (v.har !== undefined) harWritable(v.har);
  checkMetricsFlags(v);
  checkShardFlag(v.shard);
  checkCompareFlags(v);
}

/** Before the first request: a HAR that cannot be written at the end must not cost the run. */
function harWritable(file: string): void {
  if (existsSync(file) && statSync(file).isDirectory()) throw new UsageError(`--har ${file}: a folder, not a file`);
  try {
    mkdirSync(dirname(file), { recursive: true });
    accessSync(dirname(file), constants.W_OK);
  } catch (e) {
    throw new UsageError(`--har ${file}: cannot write there (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
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

function printSummary(results: ResultsFile, outDir: string, baselineLines: string[], more: string[] = []): void {
  const out = process.stdout;
  out.write(`\nchainprobe ${results.tool.version} - target "${results.target}"\n`);
  // Causes first: one line per host that could not be reached, instead of one per check.
  for (const g of (results.causes as CauseGroup[] | undefined) ?? []) out.write(`  ${groupLine(g)}\n`);
  if ((results.tls as { insecure?: boolean } | undefined)?.insecure)
    out.write('  TLS verification OFF (--insecure): certificates were not checked\n');
  // A run against a broken reference says so here, not only in the report.
  for (const f of faultsOf(results)) out.write(`  fault ${f.name} switched on: breaks ${f.rule} (${f.description})\n`);
  for (const line of countLines(results)) out.write(`  ${line}\n`);
  // New failures first; a rule failing only under unexpired waivers (--waivers) after them, as WAIVED.
  const waived = (rule: string) =>
    results.checks.filter((c) => c.rule === rule && (c.verdict === 'fail' || c.verdict === 'error')).every(isWaived);
  const failing = failingRules(results);
  for (const { rule, verdict, check } of [
    ...failing.filter((f) => !waived(f.rule)),
    ...failing.filter((f) => waived(f.rule)),
  ])
    out.write(`  ${(waived(rule) ? 'WAIVED' : verdict.toUpperCase()).padEnd(6)} ${rule.padEnd(8)} ${check.message}\n`);
  if (baselineLines.length) {
    out.write('  baseline:\n');
    for (const l of baselineLines) out.write(`    ${l}\n`);
  }
  for (const l of more) out.write(`  ${l}\n`);
  out.write(`  report: ${resolve(outDir, 'index.html')}\n`);
}

/** Drift kinds --fail-on-drift fails on: the target now behaves differently where the description is open. */
const OBSERVATION_DRIFT = new Set(['observation-changed', 'observation-new', 'observation-vanished']);

/** The run, once the command line is read (cli/start.ts); returns the exit status. */
export async function main(cli: Cli): Promise<number> {
  checkCombinations(cli);
  // Fault and variant names are flags like the others: checked before anything is made or started.
  if (cli.fault.length || cli.variant.length)
    await (await import('./reference.js')).checkSwitches(cli.fault, cli.variant);
  const selection: Selection = parseSelectors(
    cli.only ?? (cli.node ? NODE_SELECTION[cli.node as NodeKind] : undefined),
  );
  const baseline = cli.baseline ? loadBaseline(cli.baseline) : undefined;

  // First, before the first request and before the target's schema is compiled: a report that
  // cannot be written must not cost a node's quota, nor keep the user waiting to learn it.
  prepareOutDir(cli.out);
  let targets: ResolvedTarget[] = [];
  if (cli.node) targets = [nodeTarget(cli)];
  else if (cli.target.length) targets = loadTargets(cli.target);
  // --waivers and --compare are read, and the compare target tried, before the first request (exit 2 when bad).
  const compareRun = await import('./compare-run.js');
  const compareSetup = await compareRun.setupCompare(cli);

  // The run's heavy modules load only once the command line and the target are known good, and
  // only those this run uses (the embedded reference when there is no target, one runner).
  let reference: RunningReference | undefined;
  const extra: Record<string, unknown> = {};
  if (!targets.length) {
    const [{ startReference }, { faultByName }] = await Promise.all([
      import('../reference/start.js'),
      import('../reference/faults/index.js'),
    ]);
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
    // What each fault breaks travels in the results: the reports name it without the reference's catalogue.
    const faultDetails = cli.fault.flatMap((name) => {
      const f = faultByName(name);
      return f ? [{ name, rule: f.rule, description: f.description }] : [];
    });
    extra.reference = { faults: cli.fault, variants: cli.variant, ...(faultDetails.length && { faultDetails }) };
  }

  targets = targets.map((t) => withTlsFlags(t, cli.ca ?? [], cli.insecure ?? false));
  const seed = cli.seed !== undefined ? Number(cli.seed) % 2 ** 31 : newRunSeed();
  const redactor = new Redactor(
    [...targets, ...(compareSetup?.compare ? [compareSetup.compare.target] : [])].flatMap(secretsOf),
    seed,
  );
  targets = shardRun(targets, cli.shard, extra);
  redactLine = (s) => redactor.text(s);
  const controller = new AbortController();
  let signals = 0;
  const onSignal = () => {
    signals++;
    controller.abort();
    process.stderr.write('\nchainprobe: interrupted; writing partial reports\n');
    // A second signal: leave now.
    if (signals > 1) setTimeout(() => process.exit(130), 100).unref();
    else leaveAfter(1800);
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
      redactor,
      history: cli.history,
      har: cli.har,
      runner: cli.runner as 'engine' | 'playwright',
    };
    // One run, or with --compare two (cli/compare-run.ts); waivers applied before the reports are written.
    const outcome = await compareRun.runWith(targets, common, compareSetup);
    progress.end();
    const baselineLines = outcome.baseline
      ? (await import('../reports/baseline.js')).summarizeBaseline(outcome.baseline).map((l) => redactor.text(l))
      : [];
    const compared = compareRun.comparedLines(outcome.results, cli['fail-on-difference']).map((l) => redactor.text(l));
    printSummary(outcome.results, cli.out, baselineLines, compared);
    // A run that tested nothing is no pass (exit 1): one line says so, and why.
    const nothing = outcome.results.nothingChecked;
    if (nothing) process.stderr.write(`chainprobe: ${redactor.text(nothingCheckedLine(nothing))}\n`);
    if (cli['summary-md']) {
      const { writeSummaryMd } = await import('../reports/summary-md.js');
      writeSummaryMd(outcome.results, cli['summary-md'], cli.out);
    }
    const exitStatus = outcome.interrupted ? 130 : outcome.exitCode;
    const metricsFailed = await metricsAfterRun(START.prefix, { results: outcome.results, exitStatus }, cli);
    if (outcome.interrupted) return 130;
    const drifted = cli['fail-on-drift']
      ? (outcome.baseline?.items ?? []).filter((i) => OBSERVATION_DRIFT.has(i.kind)).length
      : 0;
    if (drifted)
      process.stdout.write(
        `  --fail-on-drift: ${drifted} observation${drifted === 1 ? '' : 's'} changed since the baseline\n`,
      );
    return drifted || metricsFailed ? 1 : outcome.exitCode;
  } finally {
    await reference?.close();
  }
}
