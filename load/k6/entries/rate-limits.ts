// k6 entry: the full rate-limit probe run (rules RL-01..RL-14, or those CHAINPROBE_ONLY selects)
// against the horizon node in CHAINPROBE_HORIZON_ENDPOINT. Bundle with `npx tsx load/k6/build.ts`,
// put the token in the environment (`export CHAINPROBE_HORIZON_TOKEN=...` from a secret store; never
// `-e` on the command line, where it shows in the shell history and the process list), then
// `k6 run -e CHAINPROBE_HORIZON_ENDPOINT=... load/k6/dist/rate-limits.js`.
// The probes run once, in setup(); handleSummary writes results.json like `npm start` does.
import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Rate } from 'k6/metrics';
import type { K6Api } from '../adapter.js';
import { k6Config, K6ConfigError, type K6Config } from '../config.js';
import { k6SummaryFiles, RULES_METRIC, runK6Probes, type K6Payload } from '../run.js';

export const options = {
  scenarios: { idle: { executor: 'shared-iterations', vus: 1, iterations: 1 } },
  setupTimeout: '15m',
  summaryTrendStats: ['avg', 'p(50)', 'p(99)', 'max'],
  // One sample per rule verdict: 1 for pass, observed or skipped, 0 for fail or error. Any 0 crosses
  // the threshold and `k6 run` exits 99 (load/k6/README.md, "Exit codes").
  thresholds: { [RULES_METRIC]: ['rate==1'] },
};

const rules = new Rate(RULES_METRIC);

let config: K6Config | undefined;
let configError: string | undefined;
try {
  config = k6Config(__ENV);
} catch (e) {
  configError = e instanceof K6ConfigError ? e.message : String(e);
}

const api: K6Api = {
  asyncRequest: (method, url, body, params) => http.asyncRequest(method, url, body, params),
  sleep,
  now: () => Date.now(),
};

export async function setup(): Promise<K6Payload> {
  if (!config) {
    exec.test.abort(`chainprobe: ${configError}`);
    throw new Error(configError);
  }
  return runK6Probes(api, config, (name, passed) => {
    check(null, { [name]: () => passed });
    rules.add(passed);
  });
}

export default function (): void {
  // All traffic happens once, in setup(): the probes pace themselves.
}

export function handleSummary(data: { setup_data?: K6Payload }): Record<string, string> {
  return k6SummaryFiles(data.setup_data, config?.outFile ?? 'results.json');
}
