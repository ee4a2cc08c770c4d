// chainprobe's metrics against the real Prometheus tools (Debian's prometheus and
// prometheus-pushgateway; skipped with a line when absent, see prometheus-support.ts). Two real runs
// against the embedded reference: a clean one, written with --metrics and pushed with --pushgateway
// to a Pushgateway this test starts, and a failing one (the limiter at 5/6 of its plan, so RL-09
// fails). promtool accepts both files; the gateway serves back the series the file holds; a gateway
// with basic auth takes a push with the environment's credentials only; and the example alert rules
// pass `promtool test rules` on the series these runs wrote.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PUSHGATEWAY_ENV } from '../../src/metrics/gateway.js';
import {
  parseExposition,
  promtool,
  promtoolSkip,
  pushgatewaySkip,
  ROOT,
  runChainprobe,
  seriesKey,
  startPushgateway,
  type Pushgateway,
  type Series,
} from './prometheus-support.js';

const skipPromtool = promtoolSkip();
const skipPush = pushgatewaySkip();
const DIR = mkdtempSync(join(tmpdir(), 'chainprobe-prometheus-'));
const ALERTS = join(ROOT, 'examples/prometheus/alerts.yml');

type Run = Awaited<ReturnType<typeof runChainprobe>> & { prom: string; out: string };
let clean: Run | undefined;
let failing: Run | undefined;
let gateway: Pushgateway | undefined;

async function run(name: string, args: string[]): Promise<Run> {
  const out = join(DIR, name);
  const prom = join(DIR, `${name}.prom`);
  const r = await runChainprobe('cli/start.ts', [...args, '--out', out, '--metrics', prom]);
  return { ...r, prom, out };
}

before(async () => {
  if (skipPromtool && skipPush) return;
  if (!skipPush) gateway = await startPushgateway();
  // One after the other: the probes' timing wants the machine's attention.
  clean = await run('clean', gateway ? ['--pushgateway', gateway.url] : []);
  failing = await run('failing', ['--fault', 'rl-wrong-hourly-rate']);
});

after(async () => {
  await gateway?.stop();
  rmSync(DIR, { recursive: true, force: true });
});

const seriesIn = (file: string) => parseExposition(readFileSync(file, 'utf8'));

test('promtool check metrics accepts the metrics of a clean run and of a failing run', { skip: skipPromtool }, () => {
  assert.equal(clean!.code, 0, clean!.stderr);
  assert.equal(failing!.code, 1, failing!.stderr);
  for (const r of [clean!, failing!]) {
    const got = promtool(['check', 'metrics'], readFileSync(r.prom, 'utf8'));
    assert.equal(got.code, 0, got.out);
    assert.equal(got.out.trim(), '', 'no lint finding');
  }
  const fail = seriesIn(failing!.prom).find(
    (s) => s.name === 'chainprobe_rule_verdict' && s.labels.rule === 'RL-09' && s.labels.verdict === 'fail',
  );
  assert.equal(fail?.value, 1, 'the failing run says RL-09 failed');
});

/** What the gateway serves of a job's groups, without the labels it adds and its own series. */
async function servedBy(gw: Pushgateway, auth?: string): Promise<Series[]> {
  const res = await fetch(`${gw.url}/metrics`, { headers: auth ? { authorization: auth } : {} });
  assert.equal(res.status, 200);
  return parseExposition(await res.text())
    .filter((s) => s.labels.job === 'chainprobe' && s.name.startsWith('chainprobe_'))
    .map((s) => {
      const { job: _job, instance: _instance, ...labels } = s.labels;
      return { ...s, labels };
    });
}

function assertSameSeries(got: Series[], want: Series[]): void {
  const byKey = (list: Series[]) => new Map(list.map((s) => [seriesKey(s), s.value]));
  const g = byKey(got);
  const w = byKey(want);
  assert.deepEqual([...g.keys()].sort(), [...w.keys()].sort());
  // The gateway writes floats its own way (1.7964e+09): equal as numbers.
  for (const [k, v] of w) assert.ok(Math.abs(g.get(k)! - v) <= Math.abs(v) * 1e-12, `${k}: ${g.get(k)} vs ${v}`);
}

test(
  'a run pushed to a real Pushgateway: the gateway serves back the series of the --metrics file, grouped by target',
  { skip: skipPush },
  async () => {
    assert.equal(clean!.code, 0, clean!.stderr);
    assertSameSeries(await servedBy(gateway!), seriesIn(clean!.prom));
    const groups = (await (await fetch(`${gateway!.url}/api/v1/metrics`)).json()) as {
      data: { labels: Record<string, string>; last_push_successful?: boolean }[];
    };
    assert.deepEqual(
      groups.data.map((g) => g.labels),
      [{ job: 'chainprobe', target: 'reference' }],
    );
    assert.equal(groups.data[0]!.last_push_successful, true);
  },
);

// The gateway's basic auth: user chainprobe, password test-only-pushgateway-password (bcrypt, cost 10:
// python3 -c 'import crypt; print(crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=2**10)))').
const GW_USER = 'chainprobe';
const GW_PASSWORD = 'test-only-pushgateway-password';
const GW_HASH = '$2b$10$X2ljCl9NX1YYAQPjGarg9Otok4tUaKYE8/KhWabWrYb2KdDsDOjl.';

test(
  "a gateway with basic auth: the push takes the environment's credentials; without them one line, exit 1; no output holds the password",
  { skip: skipPush },
  async (t) => {
    const gw = await startPushgateway({ webConfig: stringify({ basic_auth_users: { [GW_USER]: GW_HASH } }) });
    t.after(() => gw.stop());
    const results = join(clean!.out, 'results.json');
    const env = { [PUSHGATEWAY_ENV.user]: GW_USER, [PUSHGATEWAY_ENV.password]: GW_PASSWORD };

    const refused = await runChainprobe('cli/merge.ts', [
      results,
      '--out',
      join(DIR, 'm-noauth'),
      '--pushgateway',
      gw.url,
    ]);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `chainprobe merge: --pushgateway ${gw.url}: the Pushgateway answered HTTP 401 (Unauthorized); the metrics were not pushed (the reports are written)\n`,
    );

    const prom = join(DIR, 'm-auth.prom');
    const pushed = await runChainprobe(
      'cli/merge.ts',
      [results, '--out', join(DIR, 'm-auth'), '--metrics', prom, '--pushgateway', gw.url],
      env,
    );
    assert.equal(pushed.code, 0, pushed.stderr);
    const basic = `Basic ${Buffer.from(`${GW_USER}:${GW_PASSWORD}`).toString('base64')}`;
    assertSameSeries(await servedBy(gw, basic), seriesIn(prom));
    for (const r of [refused, pushed]) assert.ok(!`${r.stdout}${r.stderr}`.includes(GW_PASSWORD));
    assert.ok(!gw.log().includes(GW_PASSWORD));
  },
);

test('promtool check rules accepts examples/prometheus/alerts.yml', { skip: skipPromtool }, () => {
  const got = promtool(['check', 'rules', ALERTS]);
  assert.equal(got.code, 0, got.out);
  assert.match(got.out, /SUCCESS: 3 rules found/);
});

/** Minutes between scheduled runs, as the example rules are written for (their 15m). */
const INTERVAL = 15;
/** The test's last minute: long enough after the last run for two intervals to pass. */
const END = 80;

/**
 * promtool's input series from the runs' files: run i's values from minute i * INTERVAL on, held
 * until the next run (as a Pushgateway serves its last push), with the start time moved onto
 * promtool's clock (which starts at 0); every other value as chainprobe wrote it.
 */
function inputSeries(runs: Series[][]): { series: string; values: string }[] {
  const keys = new Map<string, Series>();
  for (const r of runs) for (const s of r) keys.set(seriesKey(s), s);
  const valuesByRun = runs.map((r) => new Map(r.map((x) => [seriesKey(x), x.value])));
  return [...keys].map(([key, s]) => {
    const values: string[] = [];
    for (let minute = 0; minute <= END; minute++) {
      const i = Math.min(Math.floor(minute / INTERVAL), runs.length - 1);
      const v = s.name === 'chainprobe_run_start_time_seconds' ? i * INTERVAL * 60 : valuesByRun[i]!.get(key);
      values.push(v === undefined ? '_' : String(v));
    }
    const { labels } = s;
    return {
      series: `${s.name}{${Object.keys(labels)
        .map((k) => `${k}=${JSON.stringify(labels[k])}`)
        .join(',')}}`,
      values: values.join(' '),
    };
  });
}

test(
  'promtool test rules: the example alerts fire on series chainprobe wrote, and only then',
  { skip: skipPromtool },
  () => {
    const a = seriesIn(clean!.prom);
    const b = seriesIn(failing!.prom);
    // A clean run, then the failing run twice (minutes 0, 15 and 30), then no run at all.
    const runs = [a, b, b];
    const target = 'reference';
    const mustFailing = b
      .filter(
        (s) =>
          s.name === 'chainprobe_rule_verdict' &&
          s.labels.kind === 'must' &&
          s.labels.verdict === 'fail' &&
          s.value === 1,
      )
      .map((s) => ({
        exp_labels: { ...s.labels, severity: 'critical' } as Record<string, string>,
        exp_annotations: {
          summary: `${s.labels.target}${s.labels.node ? ` node ${s.labels.node}` : ''}: ${s.labels.rule} failed in two successive runs`,
          description: `chainprobe found ${s.labels.rule} (${s.labels.section}) broken in two runs in a row; its report names the checks and their evidence.`,
        },
      }));
    assert.ok(
      mustFailing.some((x) => x.exp_labels.rule === 'RL-09'),
      'RL-09 fails in the failing run',
    );
    const drift = [
      {
        exp_labels: { target, node: 'horizon', severity: 'warning' },
        exp_annotations: {
          summary: `${target} node horizon: the limiter's rate is more than 5% off the plan's`,
          description:
            "The rate-limit probes estimate the emission interval T from the limiter's headers; " +
            '3600 / T differs from the hourly rate of the plan the target file states by more than 5% ' +
            '(chainprobe_limiter_hourly_rate against chainprobe_limiter_planned_hourly_rate).',
        },
      },
    ];
    const missing = [
      {
        exp_labels: { target, severity: 'warning' },
        exp_annotations: {
          summary: `${target}: no chainprobe run for two intervals`,
          description:
            'chainprobe_run_start_time_seconds has not moved for two intervals: the schedule stopped, or its runs cannot start or cannot push.',
        },
      },
    ];
    const at = (minute: number, alertname: string, exp_alerts: unknown[]) => ({
      eval_time: `${minute}m`,
      alertname,
      exp_alerts,
    });
    const tests = {
      rule_files: [ALERTS],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: inputSeries(runs),
          alert_rule_test: [
            // The clean run: nothing.
            at(10, 'ChainprobeMustRuleFailing', []),
            at(10, 'ChainprobeLimiterRateDrift', []),
            at(10, 'ChainprobeRunMissing', []),
            // The first failing run: the limiter drifts at once; one failing run is no alert yet.
            at(20, 'ChainprobeMustRuleFailing', []),
            at(20, 'ChainprobeLimiterRateDrift', drift),
            // The second: two successive runs failed.
            at(35, 'ChainprobeMustRuleFailing', mustFailing),
            at(44, 'ChainprobeMustRuleFailing', mustFailing),
            at(35, 'ChainprobeRunMissing', []),
            // No run after minute 30: one interval missed is no alert, two are.
            at(59, 'ChainprobeRunMissing', []),
            at(61, 'ChainprobeRunMissing', missing),
            at(75, 'ChainprobeRunMissing', missing),
          ],
        },
      ],
    };
    const file = join(DIR, 'alerts.test.yml');
    writeFileSync(file, stringify(tests, { lineWidth: 0 }));
    const got = promtool(['test', 'rules', file]);
    assert.equal(got.code, 0, got.out);
    assert.match(got.out, /SUCCESS/);
  },
);
