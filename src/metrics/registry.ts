// A run as Prometheus metrics: a pure function of its results file (and, optionally, the requests
// it sent), written with prom-client into a registry of its own (never the global one). Names and
// labels follow Prometheus' conventions: base units in the names (seconds), `_total` on counters,
// and labels whose values come from short, fixed lists (the rule catalogue, the verdicts, the
// families, the endpoint templates) or from the target file (deployment and node names): never a
// URL, an id or a credential. Every series carries `target`, so one deployment's series can be
// pushed as its own group (src/metrics/push.ts). docs/metrics.md lists every metric.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RULES } from '../rules/catalogue.js';
import { exitCodeOf, type LimiterEstimates, type ResultsFile } from '../results.js';
import { fleetOf } from '../fleet/rollup.js';
import { VERDICTS, type CheckResult, type Summary, type Verdict } from '../verdict.js';
import type { Exchange } from '../record/recorder.js';
import { SampleCollector, statusClass, type RequestSample } from './samples.js';

export interface MetricsInput {
  results: ResultsFile;
  /** The run's checks when results.checks does not hold them (a merge keeps them on disk); read once. */
  checks?: Iterable<CheckResult>;
  /** The run's requests; derived from the exchanges the checks carry when absent. */
  samples?: Iterable<RequestSample>;
  /** The run's exit status; by default 130 when interrupted, else 1 when a check failed or errored, else 0. */
  exitStatus?: number;
}

interface TargetView {
  name: string;
  summary: Summary;
  rules: Record<string, Verdict>;
}

interface NodeView {
  target: string;
  kind: string;
  name: string;
  /** The verdict of each rule the node has checks of (fleets only: a single run's checks name no node). */
  rules?: Record<string, Verdict>;
  limiter?: LimiterEstimates | null;
}

/** What the metrics are made of: gathered in one pass over the checks, rendered per target as often as needed. */
export interface MetricsData {
  version: string;
  startedAt: number;
  finishedAt: number;
  exitStatus: number;
  targets: TargetView[];
  nodes: NodeView[];
  /** The last retry-after each horizon node sent, seconds, keyed "target\0node". */
  retryAfter: Map<string, number>;
  samples: RequestSample[];
}

/** Histogram buckets of a request's network time, seconds: a fast answer to a request that timed out. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const RULE_BY_ID = new Map(RULES.map((r) => [r.id, r]));
const nodeKey = (target: string, node: string) => `${target}\u0000${node}`;

/** retry-after in seconds: delta-seconds, or an HTTP date against the answer's own Date. */
function retryAfterSeconds(x: Exchange): number | undefined {
  const h = x.responseHeaders ?? {};
  const raw = h['retry-after'] ?? h['Retry-After'];
  if (typeof raw !== 'string' || !raw.trim()) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) return Number(raw);
  const at = Date.parse(raw);
  const now = Date.parse(h.date ?? h.Date ?? '');
  return Number.isFinite(at) && Number.isFinite(now) ? Math.max(0, (at - now) / 1000) : undefined;
}

/** The name a single run gives its one horizon node (as `chainprobe merge` does). */
const singleHorizonName = (results: ResultsFile) => (typeof results.node === 'string' ? results.node : 'horizon');

export function metricsData(input: MetricsInput): MetricsData {
  const { results } = input;
  const fleet = fleetOf(results);
  const targets: TargetView[] = fleet
    ? fleet.targets.map((t) => ({ name: t.name, summary: t.summary, rules: t.rules }))
    : [{ name: results.target, summary: results.summary, rules: results.rules }];
  const nodes: NodeView[] = fleet
    ? fleet.nodes.map((n) => ({
        target: n.target,
        kind: n.kind,
        name: n.name,
        rules: n.rules,
        ...(n.kind === 'horizon' && { limiter: n.limiter ?? null }),
      }))
    : results.limiter
      ? [{ target: results.target, kind: 'horizon', name: singleHorizonName(results), limiter: results.limiter }]
      : [];

  // One pass over the checks: the last retry-after per horizon node, and (unless given) the requests.
  const checks = input.checks ?? results.checks;
  const last = new Map<string, { at: number; seconds: number }>();
  const collector = input.samples === undefined ? new SampleCollector(results.target) : undefined;
  for (const c of checks) {
    collector?.add(c);
    const horizon = fleet ? c.nodeKind === 'horizon' && c.node !== undefined : true;
    if (!horizon) continue;
    for (const x of (c.evidence?.exchanges ?? []) as Exchange[]) {
      const seconds = x && retryAfterSeconds(x);
      if (seconds === undefined) continue;
      const key = nodeKey(c.target ?? results.target, fleet ? c.node! : singleHorizonName(results));
      const at = x.receivedAt ?? x.sentAt ?? 0;
      const before = last.get(key);
      if (!before || at > before.at) last.set(key, { at, seconds });
    }
  }
  const samples = collector ? collector.samples : [...input.samples!];
  const startedAt = Date.parse(results.startedAt);
  const finishedAt = Date.parse(results.finishedAt);
  return {
    version: results.tool?.version ?? 'unknown',
    startedAt,
    finishedAt,
    exitStatus: input.exitStatus ?? (results.interrupted === true ? 130 : exitCodeOf(results)),
    targets,
    nodes,
    retryAfter: new Map([...last].map(([k, v]) => [k, v.seconds])),
    samples: samples.map((s) => (s.target === undefined ? { ...s, target: results.target } : s)),
  };
}

/** The deployments the metrics have series for (the groups a push writes). */
export const targetsOf = (data: MetricsData): string[] => data.targets.map((t) => t.name);

/** A registry of the run's series, or of one deployment's (`only`). */
export function registryOf(data: MetricsData, only?: string): Registry {
  const reg = new Registry();
  const registers = [reg];
  const mine = (target: string | undefined) => only === undefined || target === only;
  const gauge = (name: string, help: string, labelNames: string[]) => new Gauge({ name, help, labelNames, registers });
  const counter = (name: string, help: string, labelNames: string[]) =>
    new Counter({ name, help, labelNames, registers });

  const start = gauge('chainprobe_run_start_time_seconds', 'When the run started, Unix time in seconds', ['target']);
  const duration = gauge('chainprobe_run_duration_seconds', 'How long the run took, seconds', ['target']);
  const exit = gauge(
    'chainprobe_run_exit_status',
    "The run's exit status: 0 no check failed or errored, 1 one did, 130 interrupted",
    ['target'],
  );
  const info = gauge('chainprobe_run_info', 'Always 1: the chainprobe version that made the run', [
    'target',
    'version',
  ]);
  const checks = counter('chainprobe_checks_total', 'Checks the run made, by verdict', ['target', 'verdict']);
  const rules = gauge('chainprobe_rules', 'Catalogue rules by their rolled-up verdict', ['target', 'verdict']);
  const verdict = gauge(
    'chainprobe_rule_verdict',
    "1 for the verdict a rule has (rolled up over the deployment's checks, or a node's), 0 for the others",
    ['rule', 'section', 'kind', 'target', 'node', 'node_kind', 'verdict'],
  );
  for (const t of data.targets) {
    if (!mine(t.name)) continue;
    const target = t.name;
    if (Number.isFinite(data.startedAt)) start.set({ target }, data.startedAt / 1000);
    if (Number.isFinite(data.startedAt) && Number.isFinite(data.finishedAt))
      duration.set({ target }, seconds(Math.max(0, data.finishedAt - data.startedAt))!);
    exit.set({ target }, data.exitStatus);
    info.set({ target, version: data.version }, 1);
    const ruleCounts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
    for (const v of VERDICTS) checks.inc({ target, verdict: v }, t.summary[v] ?? 0);
    for (const r of RULES) {
      const got = t.rules[r.id] ?? 'skipped';
      ruleCounts[got]++;
      for (const v of VERDICTS)
        verdict.set({ rule: r.id, section: r.section, kind: r.kind, target, verdict: v }, got === v ? 1 : 0);
    }
    for (const v of VERDICTS) rules.set({ target, verdict: v }, ruleCounts[v]);
  }
  for (const n of data.nodes) {
    if (!mine(n.target) || !n.rules) continue;
    for (const [id, got] of Object.entries(n.rules)) {
      const r = RULE_BY_ID.get(id);
      if (!r) continue; // a rule outside the catalogue (an input from elsewhere) is no label value
      for (const v of VERDICTS)
        verdict.set(
          { rule: id, section: r.section, kind: r.kind, target: n.target, node: n.name, node_kind: n.kind, verdict: v },
          got === v ? 1 : 0,
        );
    }
  }

  limiterMetrics(data, gauge, counter, mine);
  requestMetrics(data, reg, counter, mine);
  return reg;
}

type MakeGauge = (name: string, help: string, labelNames: string[]) => Gauge;
type MakeCounter = (name: string, help: string, labelNames: string[]) => Counter;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** Milliseconds as seconds, to the microsecond (0.999982, not 0.9999819999999999). */
const seconds = (ms: number | undefined): number | undefined =>
  ms === undefined ? undefined : Math.round(ms * 1000) / 1e6;

function limiterMetrics(
  data: MetricsData,
  gauge: MakeGauge,
  counter: MakeCounter,
  mine: (t: string | undefined) => boolean,
): void {
  const labels = ['target', 'node'];
  const limit = gauge(
    'chainprobe_limiter_limit',
    "The horizon node's limiter Limit (X-RateLimit-Limit), requests",
    labels,
  );
  const burst = gauge('chainprobe_limiter_burst', "The limiter's burst (Limit - 1), requests", labels);
  const t = gauge('chainprobe_limiter_emission_interval_seconds', 'The estimated emission interval T, seconds', labels);
  const tErr = gauge(
    'chainprobe_limiter_emission_interval_uncertainty_seconds',
    "The estimate of T's uncertainty, seconds",
    labels,
  );
  const hourly = gauge(
    'chainprobe_limiter_hourly_rate',
    'The estimated long-run rate, requests per hour (3600 / T)',
    labels,
  );
  const planned = gauge(
    'chainprobe_limiter_planned_hourly_rate',
    "The plan's rate the target file states (customer, hourlyLimit), requests per hour; absent when it states none",
    labels,
  );
  const cap = gauge('chainprobe_limiter_per_second_cap', 'The measured per-second cap, requests per second', labels);
  const retry = gauge('chainprobe_limiter_retry_after_seconds', 'The last retry-after the node sent, seconds', labels);
  const sent = counter('chainprobe_limiter_probe_requests_total', 'Requests the rate-limit probes sent', labels);
  const took = gauge(
    'chainprobe_limiter_probe_duration_seconds',
    "How long the rate-limit probes' plan took, seconds",
    labels,
  );
  for (const n of data.nodes) {
    if (!mine(n.target) || n.kind !== 'horizon') continue;
    const at = { target: n.target, node: n.name };
    const l = n.limiter;
    if (l) {
      const set = (g: Gauge, v: number | undefined) => v !== undefined && g.set(at, v);
      set(limit, num(l.limit));
      set(burst, num(l.burst));
      const ms = num(l.emissionIntervalMs);
      set(t, seconds(ms));
      set(tErr, seconds(num(l.emissionIntervalUncertaintyMs)));
      set(hourly, ms ? 3_600_000 / ms : undefined);
      if (l.planStated !== false) set(planned, num(l.hourlyLimit));
      set(cap, num(l.perSecondCap));
      const requests = num(l.requestsSent);
      if (requests !== undefined && requests >= 0) sent.inc(at, requests);
      set(took, seconds(num(l.durationMs)));
    }
    const ra = data.retryAfter.get(nodeKey(n.target, n.name));
    if (ra !== undefined) retry.set(at, ra);
  }
}

function requestMetrics(
  data: MetricsData,
  reg: Registry,
  counter: MakeCounter,
  mine: (t: string | undefined) => boolean,
): void {
  const requests = counter(
    'chainprobe_requests_total',
    "Requests the run's checks carry as evidence, by family and status class",
    ['target', 'family', 'status_class'],
  );
  const duration = new Histogram({
    name: 'chainprobe_request_duration_seconds',
    help: 'Network time of those requests: from the request leaving to its answer complete, seconds',
    labelNames: ['target', 'family', 'endpoint'],
    buckets: DURATION_BUCKETS,
    registers: [reg],
  });
  for (const s of data.samples) {
    if (!mine(s.target)) continue;
    requests.inc({ target: s.target!, family: s.family, status_class: statusClass(s.status) });
    if (s.networkMs !== undefined && Number.isFinite(s.networkMs) && s.networkMs >= 0)
      duration.observe({ target: s.target!, family: s.family, endpoint: s.endpoint }, seconds(s.networkMs)!);
  }
}

/** The Prometheus text exposition (format 0.0.4) of the run, or of one deployment. */
export function metricsText(data: MetricsData, only?: string): Promise<string> {
  return registryOf(data, only).metrics();
}

/** The content type of metricsText (what a Pushgateway is told it gets). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
