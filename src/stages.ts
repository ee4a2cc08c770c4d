// The stages of a run and what they hand each other. The pipeline (run/pipeline.ts) composes them:
// resolve target -> contracts (contracts/run.ts) and probes (load/run.ts), side by side -> reports.
import type { ResolvedTarget } from './target-file/types.js';
import type { CheckResult } from './verdict.js';
import type { LimiterEstimates } from './results.js';
import type { Exchange } from './record/recorder.js';
import type { Gap } from './coverage.js';
import type { Redactor } from './record/redact.js';

/** What every stage gets. */
export interface RunContext {
  target: ResolvedTarget;
  /** Rule ids selected by --only. */
  selected: (ruleId: string) => boolean;
  /** The output folder (reports/latest by default). */
  outDir: string;
  /** The run's request counter (src/budget.ts newCounter), shared with the probes' threads. */
  budget: SharedArrayBuffer;
  /** Counts this part's own requests besides the shared budget (a fleet's per-node spend). */
  tally?: SharedArrayBuffer;
  /** Absolute deadline of the whole run (ms since epoch), from limits.maxSeconds. */
  deadline: number;
  /** The run seed (near-miss credentials of the auth checks). */
  seed: number;
  /**
   * The run's one redactor (every secret of every target, and their near misses under `seed`).
   * Built once per run and handed down; a thread or child process builds its own from the same
   * target and seed, since an object does not cross.
   */
  redactor: Redactor;
  /** Aborted on SIGINT/SIGTERM: stop sending at once. */
  signal: AbortSignal;
  /** Progress lines for the terminal (TTY) or CI log. */
  progress: (event: ProgressEvent) => void;
  /** Hand every recorded exchange back in the outcome (the run writes a HAR). */
  recordExchanges?: boolean;
}

export type ProgressEvent =
  /** `done` of `total` rules of the family have all their checks judged. */
  | { stage: 'contracts'; family?: string; done: number; total: number }
  | { stage: 'probes'; phase: string; expectedRemainingMs?: number; requestsSent: number }
  | { stage: 'info'; message: string };

/** One request of a probe, for the report's raw timeline and charts. */
export interface TimelineEntry {
  probe: string;
  /** A request varied for RL-14: how (load/variations.ts ids). */
  variation?: string;
  method: string;
  /** ms relative to the probe run's start: scheduled, actually sent, response received. */
  scheduledAt: number;
  sentAt: number;
  receivedAt?: number;
  status?: number;
  limit?: number;
  remaining?: number;
  reset?: number;
  retryAfter?: number;
  /** The model's prediction for this request, when the probe had one. */
  predicted?: { accepted: boolean; remaining?: number; reset?: number; retryAfter?: number };
  error?: string;
  /** A fleet run's timeline names the deployment and horizon node of each request. */
  target?: string;
  node?: string;
}

export interface ContractsOutcome {
  checks: CheckResult[];
  /** Why the selected rules left without a check got none (src/coverage.ts turns them into records). */
  gaps: Gap[];
  /** Relative path (under outDir) of the Playwright HTML report, when written. */
  playwrightReport?: string;
  /** The run seed the contracts used (printed in the reports, so a run can be repeated). */
  seed?: number;
  /** Every exchange the contract tests recorded (redacted), when ctx.recordExchanges. */
  exchanges?: Exchange[];
}

/**
 * The first answer the probes got to one shape of fee_stats request (method and token form, nothing
 * else varied): the horizon node's contract checks judge it instead of sending the same request
 * again after the probes, when the bucket is empty and each one would wait a whole T for quota.
 * Only complete answers that are data or an auth refusal (never a 429, never a cut body).
 */
export interface ProbeAnswer {
  method: 'GET' | 'HEAD';
  /** The token's form (src/auth/forms.ts FormId). */
  form: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  bytes: number;
  /** The probe's recorded (redacted) exchange: the evidence names the probe request it came from. */
  exchange: Exchange;
}

export interface ProbesOutcome {
  checks: CheckResult[];
  limiter: LimiterEstimates | null;
  timeline: TimelineEntry[];
  /** Answers the horizon node's contract checks may judge as their own (ProbeAnswer). */
  answers?: ProbeAnswer[];
  /** Every exchange the probes recorded (redacted), when ctx.recordExchanges. */
  exchanges?: Exchange[];
}

export type { Exchange };
