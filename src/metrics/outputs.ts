// What --metrics and --pushgateway do once the run's reports are written: the run as Prometheus
// text in a file, and the same series pushed to a Pushgateway, one group per deployment. Neither
// can cost the reports: they are written before this runs, and a gateway that cannot be reached
// is one line (the caller prints it and exits 1).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { METRICS_CONTENT_TYPE, metricsData, metricsText, targetsOf, type MetricsInput } from './registry.js';
import { pushGroups } from './push.js';

export interface MetricsDestinations {
  /** --metrics: the file to write. */
  file?: string;
  /** --pushgateway: the gateway's URL. */
  pushgateway?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Writes and pushes; resolves the lines that say what could not be done (none: all done). */
export async function writeMetricsOutputs(input: MetricsInput, to: MetricsDestinations): Promise<string[]> {
  if (to.file === undefined && to.pushgateway === undefined) return [];
  const data = metricsData(input);
  const problems: string[] = [];
  if (to.file !== undefined) {
    try {
      mkdirSync(dirname(to.file), { recursive: true });
      writeFileSync(to.file, await metricsText(data));
    } catch (e) {
      problems.push(`--metrics ${to.file}: could not write it (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (to.pushgateway !== undefined) {
    const groups = await Promise.all(
      targetsOf(data).map(async (target) => ({ target, text: await metricsText(data, target) })),
    );
    const failed = await pushGroups(to.pushgateway, groups, {
      contentType: METRICS_CONTENT_TYPE,
      env: to.env,
      timeoutMs: to.timeoutMs,
    });
    if (failed) problems.push(`--pushgateway ${failed}; the metrics were not pushed (the reports are written)`);
  }
  return problems;
}
