// The probes stage of a run (Node engine): reads nodes.horizon, claims every request from the
// run's shared budget, records every exchange through a redacting Recorder, and stops sending the
// moment the run is aborted.
import { Budget } from '../src/budget.js';
import { Recorder } from '../src/record/recorder.js';
import type { ProbeAnswer, ProbesOutcome, RunContext } from '../src/stages.js';
import type { ResolvedHorizon } from '../src/target-file/types.js';
import { NodeEngine } from './engine/node.js';
import { RL_RULES } from './plan.js';
import { runSuite, skippedChecks } from './suite.js';

/**
 * Probes one horizon node: the target's own, or (a fleet) the one given. `sent` hears when the plan
 * has stopped sending, before its analysis: the node is free for others from then on.
 */
export async function runProbes(
  ctx: RunContext,
  horizon: ResolvedHorizon | undefined = ctx.target.nodes.horizon,
  sent?: (answers: ProbeAnswer[]) => Promise<void> | void,
): Promise<ProbesOutcome> {
  if (!RL_RULES.some((r) => ctx.selected(r))) return { checks: [], limiter: null, timeline: [] };
  if (!horizon) {
    return {
      checks: skippedChecks(ctx.selected, 'the target file has no nodes.horizon section'),
      limiter: null,
      timeline: [],
    };
  }
  const recorder = new Recorder(ctx.redactor);
  const budget = new Budget({
    maxRequests: ctx.target.limits.maxRequests,
    deadline: ctx.deadline,
    counter: ctx.budget,
    tally: ctx.tally,
  });
  const engine = new NodeEngine({
    endpoint: horizon.endpoint,
    token: horizon.token,
    timeoutMs: ctx.target.limits.timeoutMs,
    signal: ctx.signal,
  });
  try {
    const outcome = await runSuite({
      engine,
      horizon,
      selected: ctx.selected,
      sent,
      budget,
      record: (x) => recorder.record(x),
      aborted: () => ctx.signal.aborted,
      progress: (phase, expectedRemainingMs, requestsSent) =>
        ctx.progress({ stage: 'probes', phase, expectedRemainingMs, requestsSent }),
    });
    return ctx.recordExchanges ? { ...outcome, exchanges: recorder.exchanges } : outcome;
  } finally {
    await engine.close();
  }
}
