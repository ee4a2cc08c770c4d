// --metrics and --pushgateway (the run command and merge): their flag lines, their checks before
// the first request, and what the commands do with them once the reports are written. The metrics
// themselves are src/metrics/; prom-client loads only when one of the flags is given.
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FlagDef } from './args.js';
import { UsageError } from './fatal.js';
import { gatewayProblem, PUSHGATEWAY_ENV } from '../src/metrics/gateway.js';
import type { ResultsFile } from '../src/results.js';
import type { CheckResult } from '../src/verdict.js';

export const METRICS_FLAGS = {
  metrics: {
    type: 'string',
    value: '<file.prom>',
    path: true,
    help: 'also write the run as Prometheus text exposition: verdicts, limiter estimates, request timings (docs/metrics.md)',
  },
  pushgateway: {
    type: 'string',
    value: '<url>',
    help:
      'push the same metrics to this Prometheus Pushgateway at the end (job chainprobe, grouped by target; credentials from ' +
      `${PUSHGATEWAY_ENV.user} and ${PUSHGATEWAY_ENV.password}, or ${PUSHGATEWAY_ENV.token}); a push that fails: exit 1, the reports written`,
  },
} as const satisfies Record<string, FlagDef>;

export interface MetricsFlagValues {
  metrics?: string;
  pushgateway?: string;
}

/** Before the first request: a metrics file that cannot be written, or a gateway URL that cannot be used, stops the run (exit 2). */
export function checkMetricsFlags(v: MetricsFlagValues): void {
  if (v.metrics !== undefined) {
    if (existsSync(v.metrics) && statSync(v.metrics).isDirectory())
      throw new UsageError(`--metrics ${v.metrics}: a folder, not a file`);
    try {
      mkdirSync(dirname(v.metrics), { recursive: true });
      accessSync(dirname(v.metrics), constants.W_OK);
    } catch (e) {
      throw new UsageError(
        `--metrics ${v.metrics}: cannot write there (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  if (v.pushgateway !== undefined) {
    const problem = gatewayProblem(v.pushgateway);
    // The value is not echoed: it may hold a password.
    if (problem) throw new UsageError(`--pushgateway: ${problem}`);
  }
}

/**
 * After the reports: writes --metrics and pushes to --pushgateway. Prints one line per thing that
 * could not be done (prefixed like the command's other lines) and resolves whether any was.
 */
export async function metricsAfterRun(
  prefix: string,
  run: { results: ResultsFile; checks?: Iterable<CheckResult>; exitStatus?: number },
  v: MetricsFlagValues,
): Promise<boolean> {
  if (v.metrics === undefined && v.pushgateway === undefined) return false;
  const { writeMetricsOutputs } = await import('../src/metrics/outputs.js');
  const problems = await writeMetricsOutputs(run, { file: v.metrics, pushgateway: v.pushgateway });
  for (const line of problems) process.stderr.write(`${prefix}: ${line}\n`);
  return problems.length > 0;
}
