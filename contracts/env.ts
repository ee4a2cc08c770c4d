// What the parent run (contracts/run.ts) hands the Playwright processes: environment variables
// only, so the resolved target with its credentials is never written to disk.
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { StageHold } from './stage-files.js';
import { runStartOf } from './work.js';

export const ENV = {
  /** The ResolvedTarget as JSON. */
  target: 'CHAINPROBE_TARGET',
  /** Comma-separated rule ids that are selected, or `all`. */
  only: 'CHAINPROBE_ONLY',
  /** Counter file of the run's request budget (src/budget.ts). */
  budgetFile: 'CHAINPROBE_BUDGET_FILE',
  /** Counter of this suite run's own requests within a shared budget (a fleet's per-node spend). */
  tallyFile: 'CHAINPROBE_TALLY_FILE',
  /** Absolute deadline, ms since epoch. */
  deadline: 'CHAINPROBE_DEADLINE',
  /** JSON-lines file the reporter appends checks and non-2xx summaries to. */
  checksFile: 'CHAINPROBE_CHECKS_FILE',
  /** Folder of Playwright's HTML report (omit: no HTML report). */
  htmlDir: 'CHAINPROBE_HTML_DIR',
  /** Worker count (default 2). */
  workers: 'CHAINPROBE_WORKERS',
  /** The run seed: which near-miss credentials the auth checks send (src/auth/near-miss.ts), which list items NFT-11 samples. */
  seed: 'CHAINPROBE_SEED',
  /** `1`: each test hands its recorded exchanges to the reporter too (a HAR is being written). */
  exchanges: 'CHAINPROBE_EXCHANGES',
  /**
   * The works the contract stage sends itself (contracts/stage-work.ts), as JSON: each one's key
   * (contracts/work.ts stageKey) to the file of its checks; a work not listed is sent by its tests.
   */
  stageChecks: 'CHAINPROBE_STAGE_CHECKS',
  /**
   * The file of the AUTH checks the contract stage judged over the auth matrix it sent itself while
   * Playwright started (contracts/stage-work.ts); absent: the first AUTH test sends the matrix.
   */
  authChecks: 'CHAINPROBE_AUTH_CHECKS',
  /** The hosts whose requests wait while the stage sends, and the files they wait for (StageHold, as JSON). */
  stageHold: 'CHAINPROBE_STAGE_HOLD',
  /**
   * `1`: the runner's stdin is a pipe its parent holds open and never writes; it closes when the
   * parent is gone however it died, and the runner then ends its own process group (watchParent).
   */
  parentPipe: 'CHAINPROBE_PARENT_PIPE',
} as const;

export class SuiteEnvError extends Error {}

export interface SuiteEnv {
  target: ResolvedTarget;
  selected: (rule: string) => boolean;
  budgetFile?: string;
  tallyFile?: string;
  deadline: number;
  /** The run's start (ms since epoch): every run sets its deadline limits.maxSeconds after it. */
  startedAt: number;
  checksFile?: string;
  htmlDir?: string;
  workers: number;
  /** 0 when the variable is absent (a Playwright run outside `npm start`): still one seed for all. */
  seed: number;
  /** Tests attach their recorded exchanges (for the run's HAR). */
  exchanges: boolean;
  /** A work's stage key -> the file of its checks, for the works the stage sends. */
  stageChecks: Readonly<Record<string, string>>;
  authChecks?: string;
  stageHold?: StageHold;
  parentPipe: boolean;
}

let cached: SuiteEnv | undefined;

/** A variable holding JSON the stage wrote; undefined when absent. */
function jsonOf<T>(raw: string | undefined, name: string): T | undefined {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    throw new SuiteEnvError(`${name} is not valid JSON`);
  }
}

export function suiteEnv(env: NodeJS.ProcessEnv = process.env): SuiteEnv {
  if (cached && env === process.env) return cached;
  const raw = env[ENV.target];
  if (!raw) throw new SuiteEnvError(`${ENV.target} is not set: run the contract suite through \`npm start\``);
  let target: ResolvedTarget;
  try {
    target = JSON.parse(raw) as ResolvedTarget;
  } catch {
    throw new SuiteEnvError(`${ENV.target} is not valid JSON`);
  }
  const only = (env[ENV.only] ?? 'all').trim();
  const ids = new Set(
    only
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const deadline = Number(env[ENV.deadline]);
  const workers = Number(env[ENV.workers]);
  const seed = Number(env[ENV.seed]);
  const runSpan = target.limits.maxSeconds * 1000;
  const end = Number.isFinite(deadline) && deadline > 0 ? deadline : Date.now() + runSpan;
  const out: SuiteEnv = {
    target,
    selected: only === 'all' || only === '' ? () => true : (rule) => ids.has(rule),
    budgetFile: env[ENV.budgetFile] || undefined,
    tallyFile: env[ENV.tallyFile] || undefined,
    deadline: end,
    startedAt: runStartOf(target, end),
    checksFile: env[ENV.checksFile] || undefined,
    htmlDir: env[ENV.htmlDir] || undefined,
    workers: Number.isInteger(workers) && workers > 0 ? workers : 2,
    seed: env[ENV.seed] && Number.isInteger(seed) ? seed : 0,
    exchanges: env[ENV.exchanges] === '1',
    stageChecks: jsonOf(env[ENV.stageChecks], ENV.stageChecks) ?? {},
    authChecks: env[ENV.authChecks] || undefined,
    stageHold: jsonOf(env[ENV.stageHold], ENV.stageHold),
    parentPipe: env[ENV.parentPipe] === '1',
  };
  if (env === process.env) cached = out;
  return out;
}
