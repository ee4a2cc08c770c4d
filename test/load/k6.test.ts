// k6: every entry script type-checks (k6 types, no Node) and bundles; the shared probe logic runs
// through the k6 adapter on a test double of k6 (virtual clock, simulated horizon node); and the
// bundled entry itself, with stand-ins for the k6 modules, runs setup() and handleSummary().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleK6, k6Entries, typecheckK6 } from '../../load/k6/build.js';
import { k6Config, K6ConfigError, K6_ENV } from '../../load/k6/config.js';
import { k6Results, k6SummaryFiles, runK6Probes } from '../../load/k6/run.js';
import { RL_RULES } from '../../load/plan.js';
import { bothEngines } from './virtual-node-engine.js';
import { FakeK6, k6ExitCode } from './k6-double.js';
import { SimHorizon, type SimFault } from './sim-horizon.js';

const TOKEN = 'k6-test-token-9f8e7d6c5b4a';
const env = (extra: Record<string, string> = {}) => ({
  [K6_ENV.endpoint]: 'http://127.0.0.1:9',
  [K6_ENV.token]: TOKEN,
  ...extra,
});

function fakeNode(faults: SimFault[] = [], hourlyLimit = 3600) {
  const sim = new SimHorizon({ hourlyLimit, burst: 100, perSecondCap: 20, faults: new Set(faults) });
  return { sim, k6: new FakeK6(sim, TOKEN) };
}

test('the k6 scripts type-check with their own tsconfig (k6 types, no Node types)', () => {
  assert.equal(typecheckK6(), undefined);
});

test('every entry bundles to ES2017 ESM that imports only k6 modules', async () => {
  const out = mkdtempSync(join(tmpdir(), 'chainprobe-k6-'));
  try {
    const files = await bundleK6(out);
    assert.equal(files.length, k6Entries().length);
    for (const f of files) {
      const js = readFileSync(f, 'utf8');
      const imports = [...js.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
      assert.ok(imports.length > 0 && imports.every((m) => m === 'k6' || m!.startsWith('k6/')), imports.join(', '));
      assert.doesNotMatch(js, /\?\?|\?\.[a-zA-Z_(]/, 'syntax newer than ES2017 left in the bundle');
      assert.doesNotMatch(js, /k6\/timers|from "(node:|undici)|require\(/);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the shared probe logic through the k6 adapter (test double): every RL rule judged, none fails, T within 2%', async () => {
  const { sim, k6 } = fakeNode();
  const checks: { name: string; passed: boolean }[] = [];
  const payload = await runK6Probes(k6, k6Config(env()), (name, passed) => checks.push({ name, passed }));
  const { outcome } = payload;
  const judged = new Set(outcome.checks.filter((c) => c.verdict !== 'skipped').map((c) => c.rule));
  assert.deepEqual([...judged].sort(), [...RL_RULES].sort());
  assert.deepEqual(
    outcome.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error').map((c) => `${c.rule}: ${c.message}`),
    [],
  );
  const l = outcome.limiter!;
  assert.equal(l.engine, 'k6');
  assert.ok(Math.abs(l.emissionIntervalMs - 1000) < 20, `T ${l.emissionIntervalMs}`);
  assert.ok(l.requestsSent <= l.limit + 40, `${l.requestsSent} requests`);
  assert.ok(l.durationMs <= 20_000, `${l.durationMs} ms (virtual)`);
  assert.equal(l.requestsSent, sim.arrivals.length);
  // Waiting is k6's blocking sleep; every check reached k6's check().
  assert.ok(k6.sleeps > 10);
  assert.equal(checks.length, outcome.checks.length);
  // Plain requests carry the token in `auth` and nothing else; RL-14's varied ones one thing more or other.
  const shapes = new Set(
    k6.urls.map((u, i) =>
      u
        .replace(/.*\/fee_stats/, '')
        .replace(TOKEN, 'T')
        .replace(/=[0-9a-f]{8}/, '=r')
        .concat(
          Object.keys(k6.headers[i]!)
            .filter((h) => h !== 'accept')
            .map((h) => ` ${h}`)
            .join(''),
        ),
    ),
  );
  assert.deepEqual(
    [...shapes].sort(),
    [
      '?_=r&auth=T',
      '?auth=T',
      '?auth=T&_=r',
      '?auth=T x-forwarded-for x-real-ip x-originating-ip client-ip true-client-ip',
      ' authorization',
      ' x-auth-token',
    ].sort(),
  );
});

test('through the k6 adapter a broken limiter fails its rule (Reset static -> RL-03)', async () => {
  const { k6 } = fakeNode(['reset-static']);
  const { outcome } = await runK6Probes(k6, k6Config(env()));
  assert.equal(outcome.checks.find((c) => c.rule === 'RL-03')?.verdict, 'fail');
});

test('handleSummary files: the same results JSON as the Node run, a timeline beside it, no token anywhere', async () => {
  const { k6 } = fakeNode();
  const payload = await runK6Probes(k6, k6Config(env({ [K6_ENV.only]: 'RL-01,RL-02,RL-03' })));
  const files = k6SummaryFiles(JSON.parse(JSON.stringify(payload)), 'out/results.json');
  assert.deepEqual(Object.keys(files).sort(), ['out/results.json', 'out/results.timeline.json', 'stdout']);
  const results = JSON.parse(files['out/results.json']!) as ReturnType<typeof k6Results>;
  assert.equal(results.rules['RL-03'], 'pass');
  assert.equal(results.rules['RL-10'], 'skipped');
  assert.ok(results.checks.every((c) => c.rule.startsWith('RL-')));
  for (const text of Object.values(files)) assert.ok(!text.includes(TOKEN), 'token in a k6 output');
  assert.match(k6SummaryFiles(undefined, 'r.json').stdout!, /no probe results/);
});

test('k6 configuration comes from CHAINPROBE_* variables, with one clear line for each mistake', () => {
  const c = k6Config(env({ [K6_ENV.customer]: 'shared' }));
  assert.equal(c.horizon.hourlyLimit, 2000);
  assert.equal(c.limits.maxRequests, 1000);
  assert.throws(
    () => k6Config({}),
    (e: Error) => e instanceof K6ConfigError && /CHAINPROBE_HORIZON_ENDPOINT is not set/.test(e.message),
  );
  assert.throws(() => k6Config(env({ [K6_ENV.token]: '' })), /CHAINPROBE_HORIZON_TOKEN is empty/);
  assert.equal(c.horizon.planAssumed, undefined, 'a stated customer is a stated plan');
  assert.equal(
    k6Config(env({})).horizon.planAssumed,
    true,
    'no customer and no hourly limit: RL-09 names the plan it sees',
  );
  assert.throws(() => k6Config(env({ [K6_ENV.endpoint]: 'ftp://x' })), /must start with https:\/\/ or http:\/\//);
  assert.throws(() => k6Config(env({ [K6_ENV.customer]: 'gold' })), /dedicated or shared/);
  assert.throws(() => k6Config(env({ [K6_ENV.maxRequests]: '-3' })), /positive integer/);
  assert.throws(() => k6Config(env({ [K6_ENV.only]: 'nope' })), /unknown selector/);
});

/** Bundles the entry with stand-in k6 modules, runs setup() and handleSummary() on the double, and says what `k6 run` would exit with. */
async function runBundledEntry(faults: SimFault[], extraEnv: Record<string, string>) {
  const out = mkdtempSync(join(tmpdir(), 'chainprobe-k6run-'));
  const g = globalThis as {
    __chainprobeFakeK6?: FakeK6;
    __ENV?: Record<string, string>;
    __chainprobeK6Checks?: unknown[];
    __chainprobeK6Metrics?: Record<string, number[]>;
  };
  const realNow = Date.now;
  try {
    const stubsDir = fileURLToPath(new URL('./k6-modules/', import.meta.url));
    const [file] = await bundleK6(out, { stubsDir });
    const { k6 } = fakeNode(faults);
    g.__chainprobeFakeK6 = k6;
    g.__chainprobeK6Metrics = {};
    // In k6, sleep() lets the wall clock run; here the virtual clock is the wall clock.
    Date.now = () => k6.now();
    g.__ENV = env({ [K6_ENV.out]: 'k6-results.json', ...extraEnv });
    // A fresh module instance per run (its metrics are created at import, as in k6's init context).
    const entry = (await import(`${pathToFileURL(file!).href}?run=${Math.random()}`)) as {
      setup(): Promise<unknown>;
      handleSummary(data: { setup_data?: unknown }): Record<string, string>;
      options: { scenarios: Record<string, unknown>; thresholds: Record<string, string[]> };
    };
    assert.ok(entry.options.scenarios);
    const setupData = await entry.setup();
    const files = entry.handleSummary({ setup_data: JSON.parse(JSON.stringify(setupData)) });
    const results = JSON.parse(files['k6-results.json']!) as { rules: Record<string, string> };
    return {
      results,
      exitCode: k6ExitCode(entry.options.thresholds, g.__chainprobeK6Metrics),
      checks: g.__chainprobeK6Checks ?? [],
    };
  } finally {
    Date.now = realNow;
    delete g.__chainprobeFakeK6;
    delete g.__ENV;
    delete g.__chainprobeK6Metrics;
    rmSync(out, { recursive: true, force: true });
  }
}

test('the bundled entry runs: setup() probes through stand-in k6 modules, handleSummary() writes results', async () => {
  const { results, checks } = await runBundledEntry([], { [K6_ENV.only]: 'RL-03,RL-06' });
  assert.equal(results.rules['RL-03'], 'pass');
  assert.equal(results.rules['RL-06'], 'pass');
  assert.ok(checks.length >= 2);
});

test('k6 run exits 0 when every rule passes or is observed, and 99 (thresholds crossed) when one fails: a cap per calendar second', async () => {
  const clean = await runBundledEntry([], {});
  assert.ok(
    Object.entries(clean.results.rules)
      .filter(([id]) => id.startsWith('RL-'))
      .every(([, v]) => v === 'pass' || v === 'observed'),
    JSON.stringify(clean.results.rules),
  );
  assert.equal(clean.exitCode, 0);
  const calendar = await runBundledEntry(['calendar-cap'], {});
  assert.equal(calendar.results.rules['RL-10'], 'fail', JSON.stringify(calendar.results.rules));
  assert.equal(calendar.exitCode, 99);
});

test('the k6 double reads thresholds as k6 does: a Rate below 1 crosses rate==1; a metric with no samples is not judged', () => {
  assert.equal(k6ExitCode({ m: ['rate==1'] }, { m: [1, 1, 1] }), 0);
  assert.equal(k6ExitCode({ m: ['rate==1'] }, { m: [1, 0, 1] }), 99);
  assert.equal(k6ExitCode({ m: ['rate==1'] }, {}), 0);
  assert.equal(k6ExitCode({ m: ['rate>0.5'] }, { m: [1, 0, 1] }), 0);
});

test('the k6 adapter waits exactly as the Node engine does: same total wait, same sends, no wait for an answer still on its way', async () => {
  // A node 80 +- 20 ms away (seeded jitter on the answers).
  const { k6, k6Run, engine, nodeRun } = await bothEngines(TOKEN, (seq) => 80 + 20 * Math.sin(seq * 12.9898));
  const sends = (o: typeof nodeRun) => o.timeline.map((e) => `${e.method} ${e.sentAt.toFixed(3)} ${e.status}`);
  assert.deepEqual(sends(k6Run), sends(nodeRun), 'every request leaves at the same time under both engines');
  assert.equal(k6Run.limiter!.durationMs, nodeRun.limiter!.durationMs);
  // k6 waits in sleep(), the Node engine on its timers; both loops idle otherwise only for answers.
  const near = (a: number, b: number) => Math.abs(a - b) < 0.01;
  assert.ok(
    near(k6.sleptMs, engine.waitedMs),
    `k6 slept ${k6.sleptMs} ms, the Node engine waited ${engine.waitedMs} ms`,
  );
  assert.ok(
    near(k6.sleptMs + k6.loop.idleMs, engine.loop.idleMs),
    `k6 waited ${k6.sleptMs + k6.loop.idleMs} ms in all, the Node engine ${engine.loop.idleMs} ms`,
  );
});
