// The probe suite under k6: the same plan and checks as the Node runner, through the k6 adapter,
// and the same results JSON (built by src/results.ts) for handleSummary to write.
import { Recorder } from '../../src/record/recorder.js';
import { Redactor } from '../../src/record/redact.js';
import { buildResults, type ResultsFile } from '../../src/results.js';
import type { ProbesOutcome } from '../../src/stages.js';
import { RL_RULES } from '../plan.js';
import { runSuite } from '../suite.js';
import { K6Engine, type K6Api } from './adapter.js';
import { counterBudget, type K6Config } from './config.js';

/** The k6 Rate metric with one sample per check (pass, observed, skipped: 1; fail, error: 0); its threshold sets the exit code. */
export const RULES_METRIC = 'chainprobe_rules';

/** What setup() hands to handleSummary (it must survive JSON). */
export interface K6Payload {
  name: string;
  /** The horizon node's name, when the runner was given one (a fleet). */
  node?: string;
  selection: string;
  startedAt: string;
  finishedAt: string;
  outcome: ProbesOutcome;
}

export async function runK6Probes(
  api: K6Api,
  cfg: K6Config,
  onCheck?: (name: string, passed: boolean) => void,
): Promise<K6Payload> {
  const startedAt = new Date(api.now()).toISOString();
  const selected = (id: string) => cfg.selection.rule(id);
  const engine = new K6Engine(api, {
    endpoint: cfg.horizon.endpoint,
    token: cfg.horizon.token,
    timeoutMs: cfg.limits.timeoutMs,
  });
  const recorder = new Recorder(new Redactor([cfg.horizon.token]));
  const outcome = RL_RULES.some(selected)
    ? await runSuite({
        engine,
        horizon: cfg.horizon,
        selected,
        budget: counterBudget(cfg.limits, () => api.now()),
        record: (x) => recorder.record(x),
        aborted: () => false,
        progress: () => undefined,
      })
    : { checks: [], limiter: null, timeline: [] };
  await engine.close();
  for (const c of outcome.checks)
    onCheck?.(`${c.rule} ${c.id}: ${c.verdict}`, c.verdict !== 'fail' && c.verdict !== 'error');
  return {
    name: cfg.name,
    ...(cfg.horizon.name ? { node: cfg.horizon.name } : {}),
    selection: cfg.selection.text,
    startedAt,
    finishedAt: new Date(api.now()).toISOString(),
    outcome,
  };
}

export function k6Results(payload: K6Payload): ResultsFile {
  return buildResults({
    target: payload.name,
    startedAt: new Date(payload.startedAt),
    finishedAt: new Date(payload.finishedAt),
    checks: payload.node
      ? payload.outcome.checks.map((c) => ({ ...c, target: payload.name, node: payload.node, nodeKind: 'horizon' }))
      : payload.outcome.checks,
    limiter: payload.outcome.limiter,
    extra: { selection: payload.selection, engine: 'k6', ...(payload.node ? { node: payload.node } : {}) },
  });
}

/** handleSummary's files: results.json beside a timeline file, and one line per rule on stdout. */
export function k6SummaryFiles(payload: K6Payload | undefined, outFile: string): Record<string, string> {
  if (!payload) {
    return {
      stdout: 'chainprobe: no probe results reached handleSummary (this k6 does not pass setup() data to it)\n',
    };
  }
  const results = k6Results(payload);
  const lines = Object.entries(results.rules)
    .filter(([id]) => id.startsWith('RL-'))
    .map(([id, v]) => `${id} ${v}`);
  return {
    [outFile]: JSON.stringify(results, null, 2),
    [outFile.replace(/\.json$/, '') + '.timeline.json']: JSON.stringify(payload.outcome.timeline),
    stdout: `chainprobe rate-limit probes: ${lines.join(', ')}\n`,
  };
}
