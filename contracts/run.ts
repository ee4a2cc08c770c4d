// The contracts stage: runs the Playwright suite of contracts/ in a child process and collects its
// checks. The target travels in the child's environment only (never written to disk); the child's
// terminal output is parsed for progress and never shown raw. At the deadline or on abort the
// child is stopped; the stage says why the selected rules it left without a check got none (the
// run turns that into their `error` records, src/coverage.ts).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { compileCacheEnv } from '../src/compile-cache.js';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Budget } from '../src/budget.js';
import { ENV } from './env.js';
import { planStageWork } from './stage-work.js';
import { errorChecks } from './errors-summary.js';
import {
  NOT_TESTABLE_TITLE,
  PROGRESS_PREFIX,
  ruleTag,
  type ChecksLine,
  type Non2xx,
  type ProgressLine,
} from './protocol.js';
import { CONTRACT_FAMILIES, familyOf, rulesOf } from '../src/rules/catalogue.js';
import { DEFAULT_CONCURRENCY } from '../src/target-file/types.js';
import type { CheckResult } from '../src/verdict.js';
import type { Exchange } from '../src/record/recorder.js';
import type { Gap } from '../src/coverage.js';
import type { ContractsOutcome, ProbeAnswer, RunContext, TestTrace } from '../src/stages.js';
import { groupCauses, KNOWN_CAUSES_ENV } from '../src/net/causes.js';
import { PLAYWRIGHT_DIR } from '../src/out-files.js';
import { MODULE_EXT } from '../src/package.js';
import { compiledRoot, PLAYWRIGHT_JS_ENV } from '../src/compiled.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Time the runner gets after the deadline to stop its workers and write its reports. */
const GRACE_MS = 2_500;
/** After SIGINT/SIGTERM, how long before the process group is killed outright. */
const KILL_AFTER_MS = 1_000;

export const CONTRACT_RULES: readonly string[] = rulesOf('contracts');

export interface ContractsOptions {
  /**
   * Playwright workers. Default: 1 when the stage sends the contract work itself (a run of the
   * contract checks alone: the tests only judge, and a worker costs a second of CPU to start), else
   * 2 (the workers send: the suite is I/O bound on a small machine).
   */
  workers?: number;
  /** Write Playwright's HTML report under outDir/playwright (default true). */
  htmlReport?: boolean;
  /**
   * Run only the tests that report the rules this target cannot test (they send nothing): their
   * `skipped` checks, and no gaps (the caller says why the other rules got no check).
   */
  notTestableOnly?: boolean;
  /**
   * Settles once the probes are done with the horizon node (a full run: contracts and probes side by
   * side, run/pipeline.ts), with their answers: the stage sends the horizon node's contract requests
   * only then, and only those no probe answer serves (contracts/probe-answers.ts).
   */
  horizonAfter?: Promise<readonly ProbeAnswer[] | undefined>;
}

/**
 * What Playwright runs: chainprobe's JavaScript with Playwright's TypeScript loader off (src/compiled.ts
 * says why), or, where it cannot be compiled, the sources as they are (a slower start, the same tests).
 */
async function suiteFiles(): Promise<{ config: string; env: Readonly<Record<string, string>> }> {
  try {
    const root = await compiledRoot();
    return { config: join(root, 'contracts', 'playwright.config.js'), env: PLAYWRIGHT_JS_ENV };
  } catch {
    return { config: join(ROOT, 'contracts', `playwright.config${MODULE_EXT}`), env: {} };
  }
}

function playwrightCli(): string {
  return createRequire(import.meta.url).resolve('@playwright/test/cli');
}

/** Environment of the child: ours without stale chainprobe variables or a TS loader of the parent. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHAINPROBE_') && v !== undefined) env[k] = v;
  // Playwright compiles the TypeScript itself; a tsx loader inherited from `npm start` would compete.
  if (env.NODE_OPTIONS)
    env.NODE_OPTIONS = env.NODE_OPTIONS.replace(/--(import|require|loader)[= ]\S*tsx\S*/g, '').trim();
  return { ...env, FORCE_COLOR: '0', PLAYWRIGHT_HTML_OPEN: 'never', ...compileCacheEnv(), ...extra };
}

/** The --grep pattern selecting tests by their rule tags (Playwright greps title and tags); undefined: every test. */
export function grepFor(selected: readonly string[]): string | undefined {
  if (selected.length === CONTRACT_RULES.length) return undefined;
  return `(^|\\s)(${selected.map((id) => ruleTag(id).replace(/-/g, '\\-')).join('|')})(\\s|$)`;
}

interface Collected {
  checks: CheckResult[];
  tests: TestTrace[];
  runnerCpuMs?: number;
  non2xx: Non2xx[];
  exchanges: Exchange[];
  fatal: string[];
  /** The runner reached its end (a failing test then exits 1 without anything being wrong). */
  ended: boolean;
}

function readChecksFile(file: string): Collected {
  const out: Collected = { checks: [], tests: [], non2xx: [], exchanges: [], fatal: [], ended: false };
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let parsed: ChecksLine;
    try {
      parsed = JSON.parse(line) as ChecksLine;
    } catch {
      continue; // a line cut short by a kill
    }
    if (parsed.kind === 'check') out.checks.push(parsed.check);
    else if (parsed.kind === 'non2xx') out.non2xx.push(parsed.item);
    else if (parsed.kind === 'exchange') out.exchanges.push(parsed.exchange);
    else if (parsed.kind === 'fatal') out.fatal.push(parsed.message);
    else if (parsed.kind === 'test') out.tests.push(parsed.test);
    else if (parsed.kind === 'end') {
      out.ended = true;
      out.runnerCpuMs = parsed.runnerCpuMs;
    }
  }
  return out;
}

const NO_EVIDENCE =
  'no evidence: every answer this rule reads from failed or was refused (see the other checks of its family)';

/** The connection cause of a rule's family when none of its checks got an answer: why the rule had no evidence. */
function familyCause(checks: readonly CheckResult[], rule: string): string | undefined {
  const mine = checks.filter((c) => familyOf(c.rule) === familyOf(rule));
  if (mine.some((c) => c.verdict !== 'error' && c.verdict !== 'skipped')) return undefined;
  return groupCauses(mine)[0]?.line;
}

/** How the contract runner's run ended, as runContracts saw it. */
interface RunnerEnd {
  /** Set when the run was stopped (interrupt, deadline...): the words for it. */
  stopReason: string | undefined;
  exitCode: number | null;
  collected: Collected;
  stderrTail: readonly string[];
}

/**
 * Why a rule got no check, before redaction, the first that applies: the run was stopped, a budget
 * limit was reached, the runner reported a failure, the runner ended normally (no evidence), or it
 * stopped otherwise (its exit code and first stderr line naming an error, else its first line).
 */
function gapReason(ctx: RunContext, end: RunnerEnd): string {
  if (end.stopReason !== undefined) return end.stopReason;
  if (Date.now() >= ctx.deadline) return 'budget: the run reached limits.maxSeconds';
  const { maxRequests } = ctx.target.limits;
  if (Budget.usedIn(ctx.budgetFile) >= maxRequests)
    return `budget: the run reached limits.maxRequests (${maxRequests})`;
  const fatal = end.collected.fatal[0];
  if (fatal) return `the contract runner failed: ${fatal}`;
  const { exitCode, stderrTail } = end;
  if (exitCode === 0 || (exitCode === 1 && end.collected.ended)) return NO_EVIDENCE;
  const errorLine = stderrTail.find((l) => /error/i.test(l)) ?? stderrTail[0];
  const tail = stderrTail.length ? `: ${errorLine}` : '';
  return `the contract runner stopped (exit ${exitCode ?? 'signal'})${tail}`;
}

export async function runContracts(ctx: RunContext, opts: ContractsOptions = {}): Promise<ContractsOutcome> {
  const selected = CONTRACT_RULES.filter((id) => ctx.selected(id));
  if (selected.length === 0) return { checks: [], gaps: [] };
  const { seed, redactor } = ctx;
  const families = CONTRACT_FAMILIES.filter((f) => selected.some((id) => familyOf(id) === f));
  const checksFile = join(ctx.workDir, 'contract-checks.jsonl');
  rmSync(checksFile, { force: true });
  const htmlDir = opts.htmlReport === false ? undefined : join(ctx.outDir, PLAYWRIGHT_DIR);

  // Families are spec files (file filters are regular expressions on the path).
  const suite = await suiteFiles();
  // Either extension: the compiled copy's specs, or the sources where it could not be compiled.
  const args = [playwrightCli(), 'test', '-c', suite.config, ...families.map((f) => `[/\\\\]${f}\\.spec\\.[jt]s$`)];
  // The rule selection still applies to the checks the tests report (ENV.only below).
  const grep = opts.notTestableOnly ? NOT_TESTABLE_TITLE : grepFor(selected);
  if (grep) args.push('--grep', grep);

  const inStage = (id: string) => selected.includes(id);
  // The stage's own work (contracts/stage-work.ts): none when only the not-testable reports run (they
  // send nothing); the early work in a run of the contract checks alone, not beside the probes.
  const early = !opts.notTestableOnly && !opts.horizonAfter;
  const stageWork = planStageWork(ctx, opts.notTestableOnly ? () => false : inStage, {
    early,
    horizonAfter: opts.horizonAfter,
  });
  const workers = opts.workers ?? (early ? 1 : 2);
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: childEnv({
      ...suite.env,
      [ENV.target]: JSON.stringify(ctx.target),
      [ENV.only]: selected.length === CONTRACT_RULES.length ? 'all' : selected.join(','),
      [ENV.budgetFile]: ctx.budgetFile,
      ...(ctx.tallyFile ? { [ENV.tallyFile]: ctx.tallyFile } : {}),
      [ENV.deadline]: String(ctx.deadline),
      [ENV.checksFile]: checksFile,
      // Each worker takes an even share of limits.concurrency, so there are never more workers than it.
      [ENV.workers]: String(Math.min(workers, ctx.target.limits.concurrency ?? DEFAULT_CONCURRENCY)),
      ...(ctx.knownCauses ? { [KNOWN_CAUSES_ENV]: ctx.knownCauses } : {}),
      [ENV.seed]: String(seed),
      ...(ctx.recordExchanges ? { [ENV.exchanges]: '1' } : {}),
      ...stageWork.env,
      ...(htmlDir ? { [ENV.htmlDir]: htmlDir } : {}),
      [ENV.parentPipe]: '1',
    }),
    // stdin: held open, never written (the runner's watchParent in contracts/playwright.config.ts).
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so stopping it stops its workers too.
    detached: true,
  });

  let stopReason: string | undefined;
  const stderrTail: string[] = [];
  let stdoutRest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (stdoutRest + chunk).split('\n');
    stdoutRest = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith(PROGRESS_PREFIX)) continue;
      try {
        const p = JSON.parse(line.slice(PROGRESS_PREFIX.length)) as ProgressLine;
        ctx.progress({ stage: 'contracts', family: p.family, done: p.done, total: p.total });
      } catch {
        // not a progress line after all
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (line.trim()) stderrTail.push(line);
    if (stderrTail.length > 40) stderrTail.splice(0, stderrTail.length - 40);
  });

  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (reason: string, sig: NodeJS.Signals) => {
    if (stopReason || child.exitCode !== null) return;
    stopReason = reason;
    signalGroup(sig);
    killTimer = setTimeout(() => signalGroup('SIGKILL'), KILL_AFTER_MS);
  };
  // An interrupt kills the group outright: Playwright workers ignore SIGINT and finish their
  // current test (a test can send dozens of requests), so a graceful stop keeps sending for a
  // while. Finished tests are already in the checks file; the HTML report of the run is lost.
  const onAbort = () => stop('interrupted', 'SIGKILL');
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  const deadlineTimer = setTimeout(
    () => stop('budget: the run reached limits.maxSeconds', 'SIGTERM'),
    Math.max(0, ctx.deadline - Date.now()) + GRACE_MS,
  );

  const stageSent = stageWork.run();
  // The stage's work failed outright (a file of the run folder could not be written): its tests
  // would wait for that file until the deadline, so the runner is stopped now. The failure itself is
  // thrown where the stage is awaited below, and the run says it in one line (stageFailed).
  stageSent.catch(() => stop('the contract stage failed', 'SIGTERM'));
  const exitCode = await new Promise<number | null>((res) => {
    child.on('error', () => res(null));
    child.on('close', (code) => res(code));
  });
  const closedAt = Date.now();
  child.stdin.destroy();
  clearTimeout(deadlineTimer);
  if (killTimer) clearTimeout(killTimer);
  ctx.signal.removeEventListener('abort', onAbort);

  const collected = readChecksFile(checksFile);
  // The runner is gone: its tests read the file or never will. An interrupt stops this work too.
  const sent = await stageSent;
  collected.non2xx.push(...sent.non2xx);
  collected.exchanges.push(...sent.exchanges);
  const checks = [...collected.checks];
  if (opts.notTestableOnly) return { checks, gaps: [], seed };
  // No answer at all, and a connection cause to say why: it explains the rules left without evidence too.
  const noAnswer =
    collected.non2xx.length === 0 && checks.every((c) => c.verdict === 'error' || c.verdict === 'skipped')
      ? groupCauses(checks)[0]
      : undefined;
  // ERR-01 is built here from every family's non-2xx answers; "none met" only from a whole run.
  if (selected.includes('ERR-01')) {
    const hasOwn = checks.some((c) => c.rule === 'ERR-01');
    // "None met" needs answers: a run whose requests all failed to connect met nothing, it says why.
    if (noAnswer)
      checks.push({
        id: 'errors.non2xx[no-answer]',
        rule: 'ERR-01',
        verdict: 'error',
        message: `could not check: ${noAnswer.line}`,
        evidence: { cause: noAnswer.line },
      });
    else if (collected.non2xx.length > 0 || (!hasOwn && !stopReason && exitCode !== null))
      checks.push(...errorChecks(collected.non2xx));
  }

  // Why a rule got no check: one line, without a secret.
  const reason = gapReason(ctx, { stopReason, exitCode, collected, stderrTail });
  const reasonOf = (rule: string) =>
    redactor
      .text(reason === NO_EVIDENCE ? (familyCause(checks, rule) ?? reason) : reason)
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 300);
  const gaps: Gap[] = [{ rules: (id) => selected.includes(id), reason: reasonOf }];

  const report = htmlDir && existsSync(join(htmlDir, 'index.html')) ? `${PLAYWRIGHT_DIR}/index.html` : undefined;
  const trace = {
    spawnedAt,
    closedAt,
    runnerCpuMs: collected.runnerCpuMs,
    tests: collected.tests,
    ...(sent.trace.length && { stageWork: sent.trace }),
  };
  return {
    checks,
    gaps,
    seed,
    trace,
    ...(report ? { playwrightReport: report } : {}),
    ...(ctx.recordExchanges ? { exchanges: collected.exchanges } : {}),
  };
}
