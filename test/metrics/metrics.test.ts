// --metrics and --pushgateway without a real run: the metrics are a pure function of a results file
// (src/metrics/registry.ts), so a single run, a fleet and a merge are built here the way the runs
// build them. Names and labels keep Prometheus' conventions and never carry a URL, an id or a
// credential; docs/metrics.md lists exactly the metrics written; a push goes to the right group with
// the environment's credentials and fails in one line that names the gateway and never a secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildResults, type ResultsFile } from '../../src/results.js';
import { rollupFleet } from '../../src/fleet/rollup.js';
import { mergeResults } from '../../src/fleet/merge.js';
import { RULES } from '../../src/rules/catalogue.js';
import { ENDPOINTS } from '../../src/service/endpoints.js';
import type { CheckResult, Verdict } from '../../src/verdict.js';
import type { Exchange } from '../../src/record/recorder.js';
import { endpointOf, samplesFromChecks, statusClass, OTHER_ENDPOINT } from '../../src/metrics/samples.js';
import { metricsData, metricsText, registryOf, targetsOf } from '../../src/metrics/registry.js';
import { authorizationOf, gatewayProblem, groupUrl, PUSHGATEWAY_ENV } from '../../src/metrics/gateway.js';
import { pushGroups } from '../../src/metrics/push.js';
import { writeMetricsOutputs } from '../../src/metrics/outputs.js';
import { closedPort } from '../support/ports.js';
import {
  findPromtool,
  findPushgateway,
  parseExposition,
  promtool,
  promtoolSkip,
  pushgatewaySkip,
  ROOT,
  runChainprobe,
  seriesKey,
} from './prometheus-support.js';

const EVENT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const TOKEN_SHOWN = 'ref-…(redacted)';

let seq = 0;
const exchange = (
  method: string,
  url: string,
  status: number | undefined,
  extra: Partial<Exchange> = {},
): Exchange => ({
  seq: ++seq,
  method,
  url,
  status,
  requestHeaders: {},
  responseHeaders: {},
  sentAt: 1_767_225_600_000 + seq * 10,
  durationMs: 12.5,
  ...extra,
});

const check = (
  rule: string,
  verdict: Verdict,
  exchanges: Exchange[] = [],
  extra: Partial<CheckResult> = {},
): CheckResult => ({
  id: `${rule.toLowerCase()}.x`,
  rule,
  verdict,
  message: `${rule} ${verdict}`,
  evidence: { exchanges },
  ...extra,
});

const limiter = (emissionIntervalMs: number, extra: Record<string, unknown> = {}) => ({
  limit: 101,
  burst: 100,
  emissionIntervalMs,
  perSecondCap: 20,
  requestsSent: 130,
  durationMs: 11_291,
  emissionIntervalUncertaintyMs: 0.019,
  hourlyLimit: 3600,
  planStated: true,
  ...extra,
});

/** A single run: requests to every kind of endpoint, with ids and a redacted token in their URLs. */
function single(): ResultsFile {
  const shared = exchange('GET', `https://api.example/nft/v1/chain-a/mainnet/event/${EVENT}?auth=${TOKEN_SHOWN}`, 200);
  const checks = [
    check('NFT-01', 'pass', [shared]),
    check('NFT-02', 'fail', [shared]), // the same exchange, counted once
    check('AUTH-08', 'pass', [exchange('POST', 'https://api.example/chain-a/mainnet/native', 403)]),
    check('NODE-02', 'pass', [exchange('GET', `wss://node-b.example:8443/websocket?auth=${TOKEN_SHOWN}`, 101)]),
    check('NAUTH-06', 'pass', [
      exchange('GRPC', 'grpc://node-b.example:443/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', undefined),
      exchange('GRPC', 'grpc://node-b.example:443/some.vendor.Secret/Method', undefined, { error: 'UNAUTHENTICATED' }),
    ]),
    check('ERR-01', 'observed', [exchange('GET', 'https://api.example/chainprobe/v1/no/such/path', 404)]),
    check('RL-01', 'pass', [
      exchange('GET', `https://node-c.example/fee_stats?auth=${TOKEN_SHOWN}`, 429, {
        responseHeaders: { 'retry-after': '2' },
        sentAt: 1_767_225_700_000,
      }),
      exchange('GET', `https://node-c.example/fee_stats?auth=${TOKEN_SHOWN}`, 429, {
        responseHeaders: { 'retry-after': '1' },
        sentAt: 1_767_225_800_000,
      }),
      exchange('GET', 'https://node-c.example/fee_stats', undefined, { error: 'timeout', durationMs: undefined }),
    ]),
  ];
  return buildResults({
    target: 'staging',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    finishedAt: new Date('2026-01-01T00:01:30.5Z'),
    checks,
    limiter: limiter(999.982),
  });
}

/** A fleet of two deployments; production's horizon nodes eu (probed) and us (its token probed on eu). */
function fleet(): ResultsFile {
  const checks = [
    check('AUTH-01', 'fail', [], { target: 'production' }),
    check('RL-02', 'pass', [], { target: 'production', node: 'eu', nodeKind: 'horizon' }),
    check(
      'RL-06',
      'pass',
      [exchange('GET', 'https://eu.example/fee_stats', 429, { responseHeaders: { 'retry-after': '3' } })],
      { target: 'production', node: 'eu', nodeKind: 'horizon' },
    ),
    check('RL-02', 'skipped', [], { target: 'production', node: 'us', nodeKind: 'horizon' }),
    check('NODE-01', 'pass', [exchange('GET', 'https://br.example/v1/blocks/by_height/1', 200)], {
      target: 'production',
      node: 'eu', // a blockRest node named like a horizon node: told apart by node_kind
      nodeKind: 'blockRest',
    }),
    check('UNI-01', 'pass', [exchange('GET', 'https://eu.api/universal/v1/chain-a/mainnet/sync/block_number', 200)], {
      target: 'eu staging/2',
    }),
  ];
  const f = rollupFleet({
    checks,
    targets: [
      { name: 'production', requestsSent: 300 },
      { name: 'eu staging/2', requestsSent: 10 },
    ],
    nodes: [
      {
        target: 'production',
        kind: 'horizon',
        name: 'eu',
        requestsSent: { contracts: 4, probes: 126 },
        limiter: limiter(1200, { planStated: false }),
      },
      { target: 'production', kind: 'horizon', name: 'us', limiter: null, sameTokenAs: 'production/eu' },
      { target: 'production', kind: 'blockRest', name: 'eu' },
    ],
  });
  return buildResults({
    target: 'production, eu staging/2',
    startedAt: new Date('2026-01-01T00:00:30Z'),
    finishedAt: new Date('2026-01-01T00:02:00Z'),
    checks,
    limiter: null,
    extra: { fleet: f },
  });
}

const seriesOf = async (results: ResultsFile, only?: string) =>
  parseExposition(await metricsText(metricsData({ results }), only));

test('endpoints: every URL becomes its path template; ids, tokens and query strings never reach a label', () => {
  for (const e of Object.values(ENDPOINTS)) {
    const path = e.path.replace(/\{[^}]+\}/g, (m) => (m === '{height}' ? '17' : EVENT));
    const got = endpointOf(e.methods[0]!, `https://h.example/base${path}?auth=${TOKEN_SHOWN}&page_token=abc`);
    assert.deepEqual(got, { endpoint: e.path, family: e.family }, e.path);
  }
  assert.equal(endpointOf('GET', `wss://n.example:8443/websocket?auth=${TOKEN_SHOWN}`).endpoint, '(websocket)');
  assert.equal(
    endpointOf('GRPC', 'grpc://n.example/grpc.health.v1.Health/Check').endpoint,
    '(grpc) /grpc.health.v1.Health/Check',
  );
  assert.equal(
    endpointOf('GRPC', 'grpc://n.example/vendor.Node/GetSecretThing').endpoint,
    '(grpc) /{service}/{method}',
  );
  assert.equal(endpointOf('GET', `https://h.example/${EVENT}/whatever`).endpoint, OTHER_ENDPOINT);
  assert.equal(endpointOf('GET', 'not a url').endpoint, OTHER_ENDPOINT);
  assert.deepEqual(
    [200, 101, 404, 503, undefined, 99].map((s) => statusClass(s)),
    ['2xx', '1xx', '4xx', '5xx', 'none', 'none'],
  );
});

test('request samples: one per exchange however many checks cite it, named by the family that sent it', () => {
  const r = single();
  const samples = samplesFromChecks(r.checks, r.target);
  assert.equal(samples.length, 9, 'the NFT exchange cited twice is one request');
  assert.deepEqual(samples[0], {
    family: 'nft',
    endpoint: '/nft/v1/{protocol}/{network}/event/{event_id}',
    status: 200,
    networkMs: 12.5,
    target: 'staging',
  });
  assert.equal(samples.find((s) => s.endpoint === '/{protocol}/{network}/native')?.family, 'auth');
  assert.equal(samples.filter((s) => s.family === 'load').length, 3);
});

/** Prometheus' naming conventions, as promtool's linter and the issue state them. */
function judgeNames(text: string): void {
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  assert.ok(types.size > 0);
  for (const [name, type] of types) {
    assert.match(name, /^chainprobe_[a-z0-9_]+$/, name);
    if (type === 'counter') assert.ok(name.endsWith('_total'), `counter ${name} ends in _total`);
    else assert.ok(!name.endsWith('_total'), `${type} ${name} does not end in _total`);
    assert.ok(!/_(ms|milliseconds|minutes|hours|kb|mb)(_|$)/.test(name), `${name}: base units`);
  }
  const allowed = new Set([
    'target',
    'node',
    'node_kind',
    'rule',
    'section',
    'kind',
    'verdict',
    'version',
    'family',
    'status_class',
    'endpoint',
    'le',
  ]);
  for (const s of parseExposition(text)) {
    for (const [k, v] of Object.entries(s.labels)) {
      assert.ok(allowed.has(k), `label ${k} of ${s.name}`);
      assert.ok(
        !/:\/\/|\?|redacted|[0-9a-f]{8}-[0-9a-f]{4}-/i.test(v),
        `${s.name} ${k}="${v}" holds no URL, id or credential`,
      );
    }
  }
}

test('a single run: verdicts of every catalogue rule, checks per verdict, the run, the limiter, the requests', async () => {
  const r = single();
  const text = await metricsText(metricsData({ results: r }));
  judgeNames(text);
  const s = parseExposition(text);
  const value = (name: string, labels: Record<string, string>) =>
    s.find((x) => seriesKey(x) === seriesKey({ name, labels }))?.value;

  // A state set: each rule has one series per verdict, 1 for its own.
  const verdicts = s.filter((x) => x.name === 'chainprobe_rule_verdict');
  assert.equal(verdicts.length, RULES.length * 5);
  const base = { section: 'NFT', kind: 'must', target: 'staging' };
  assert.equal(value('chainprobe_rule_verdict', { ...base, rule: 'NFT-02', verdict: 'fail' }), 1);
  assert.equal(value('chainprobe_rule_verdict', { ...base, rule: 'NFT-02', verdict: 'pass' }), 0);
  assert.equal(value('chainprobe_checks_total', { target: 'staging', verdict: 'fail' }), 1);
  assert.equal(value('chainprobe_checks_total', { target: 'staging', verdict: 'error' }), 0);
  assert.equal(value('chainprobe_rules', { target: 'staging', verdict: 'fail' }), 1);

  assert.equal(
    value('chainprobe_run_start_time_seconds', { target: 'staging' }),
    Date.parse('2026-01-01T00:00:00Z') / 1000,
  );
  assert.equal(value('chainprobe_run_duration_seconds', { target: 'staging' }), 90.5);
  assert.equal(value('chainprobe_run_exit_status', { target: 'staging' }), 1);
  const interrupted = parseExposition(await metricsText(metricsData({ results: { ...r, interrupted: true } })));
  assert.equal(interrupted.find((x) => x.name === 'chainprobe_run_exit_status')?.value, 130);

  const node = { target: 'staging', node: 'horizon' };
  assert.equal(value('chainprobe_limiter_limit', node), 101);
  assert.equal(value('chainprobe_limiter_emission_interval_seconds', node), 0.999982);
  assert.equal(value('chainprobe_limiter_emission_interval_uncertainty_seconds', node), 0.000019);
  assert.ok(Math.abs(value('chainprobe_limiter_hourly_rate', node)! - 3600 / 0.999982) < 1e-9);
  assert.equal(value('chainprobe_limiter_planned_hourly_rate', node), 3600);
  assert.equal(value('chainprobe_limiter_per_second_cap', node), 20);
  assert.equal(value('chainprobe_limiter_retry_after_seconds', node), 1, 'the last retry-after, not the largest');
  assert.equal(value('chainprobe_limiter_probe_requests_total', node), 130);

  assert.equal(value('chainprobe_requests_total', { target: 'staging', family: 'load', status_class: '4xx' }), 2);
  assert.equal(value('chainprobe_requests_total', { target: 'staging', family: 'load', status_class: 'none' }), 1);
  assert.equal(value('chainprobe_requests_total', { target: 'staging', family: 'node', status_class: 'none' }), 2);
  const nft = { target: 'staging', family: 'nft', endpoint: '/nft/v1/{protocol}/{network}/event/{event_id}' };
  assert.equal(value('chainprobe_request_duration_seconds_count', nft), 1);
  assert.equal(value('chainprobe_request_duration_seconds_bucket', { ...nft, le: '0.025' }), 1);
  assert.equal(value('chainprobe_request_duration_seconds_bucket', { ...nft, le: '0.01' }), 0);
  // The timed-out request is counted, not timed.
  const load = { target: 'staging', family: 'load', endpoint: '/fee_stats' };
  assert.equal(value('chainprobe_request_duration_seconds_count', load), 2);
});

test('a fleet: per-deployment and per-node verdicts (node_kind tells same-named nodes apart), each horizon node its estimates', async () => {
  const r = fleet();
  const data = metricsData({ results: r });
  assert.deepEqual(targetsOf(data), ['production', 'eu staging/2']);
  const text = await metricsText(data);
  judgeNames(text);
  const s = parseExposition(text);
  const nodeVerdict = (node: string, kind: string, rule: string) =>
    s.find(
      (x) =>
        x.name === 'chainprobe_rule_verdict' &&
        x.labels.node === node &&
        x.labels.node_kind === kind &&
        x.labels.rule === rule &&
        x.value === 1,
    )?.labels.verdict;
  assert.equal(nodeVerdict('eu', 'horizon', 'RL-02'), 'pass');
  assert.equal(nodeVerdict('us', 'horizon', 'RL-02'), 'skipped');
  assert.equal(nodeVerdict('eu', 'blockRest', 'NODE-01'), 'pass');
  assert.equal(
    s.filter(
      (x) => x.name === 'chainprobe_rule_verdict' && x.labels.node === undefined && x.labels.target === 'eu staging/2',
    ).length,
    RULES.length * 5,
  );
  const limits = s.filter((x) => x.name === 'chainprobe_limiter_emission_interval_seconds');
  assert.deepEqual(
    limits.map((x) => [x.labels.node, x.value]),
    [['eu', 1.2]],
    'us was not probed: no estimates',
  );
  assert.ok(!s.some((x) => x.name === 'chainprobe_limiter_planned_hourly_rate'), 'no plan stated: no planned rate');
  assert.equal(s.find((x) => x.name === 'chainprobe_limiter_retry_after_seconds')?.value, 3);

  // One deployment's series alone: what its Pushgateway group holds.
  const only = await seriesOf(r, 'eu staging/2');
  assert.ok(only.length > 0 && only.every((x) => x.labels.target === 'eu staging/2'));
  // A fresh registry per call: nothing leaks from one run's metrics into another's.
  assert.equal(await registryOf(data).metrics(), text);
});

test('a merge: the same metrics from the merged results, the checks read from where the merge keeps them', async () => {
  const a = single();
  const b = fleet();
  const merged = mergeResults([
    { source: 'a', results: a },
    { source: 'b', results: b },
  ]);
  const checks = [...merged.checks.all()];
  const { checks: _none, ...withoutChecks } = merged.results;
  const fromSpool = await metricsText(metricsData({ results: { ...withoutChecks, checks: [] }, checks }));
  const inMemory = await metricsText(metricsData({ results: merged.results }));
  judgeNames(fromSpool);
  const key = (t: string) =>
    parseExposition(t)
      .map((x) => `${seriesKey(x)} ${x.value}`)
      .sort();
  assert.deepEqual(key(fromSpool), key(inMemory));
  const s = parseExposition(fromSpool);
  assert.deepEqual([...new Set(s.map((x) => x.labels.target))].sort(), ['eu staging/2', 'production', 'staging']);
  // staging's one horizon node (a run without a fleet section) keeps its estimates in the merge.
  assert.equal(
    s.find((x) => x.name === 'chainprobe_limiter_limit' && x.labels.target === 'staging')?.labels.node,
    'horizon',
  );
});

test('docs/metrics.md lists every metric chainprobe writes, and none it does not', async () => {
  const doc = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  const written = new Set<string>();
  for (const r of [single(), fleet()])
    for (const m of (await metricsText(metricsData({ results: r }))).matchAll(/^# TYPE (\S+)/gm)) written.add(m[1]!);
  const listed = new Set([...doc.matchAll(/^\| `(chainprobe_[a-z0-9_]+)`/gm)].map((m) => m[1]!));
  assert.deepEqual([...written].sort(), [...listed].sort());
});

test('promtool check metrics accepts a single run, a fleet and a merge', { skip: promtoolSkip() }, async () => {
  const merged = mergeResults([
    { source: 'a', results: single() },
    { source: 'b', results: fleet() },
  ]).results;
  for (const [what, r] of [
    ['single', single()],
    ['fleet', fleet()],
    ['merge', merged],
  ] as const) {
    const got = promtool(['check', 'metrics'], await metricsText(metricsData({ results: r })));
    assert.equal(got.code, 0, `${what}: ${got.out}`);
    assert.equal(got.out.trim(), '', `${what}: no lint finding`);
  }
});

test('the gateway: grouping path, credentials from the environment only, URLs that are refused', () => {
  assert.equal(groupUrl('http://gw:9091', 'staging'), 'http://gw:9091/metrics/job/chainprobe/target/staging');
  assert.equal(
    groupUrl('https://gw.example/push/', 'node horizon'),
    `https://gw.example/push/metrics/job/chainprobe/target@base64/${Buffer.from('node horizon').toString('base64url')}`,
  );
  assert.equal(
    groupUrl('http://gw', 'a/b'),
    `http://gw/metrics/job/chainprobe/target@base64/${Buffer.from('a/b').toString('base64url')}`,
  );
  assert.equal(authorizationOf({}), undefined);
  assert.equal(authorizationOf({ [PUSHGATEWAY_ENV.token]: 'tok' }), 'Bearer tok');
  assert.equal(
    authorizationOf({ [PUSHGATEWAY_ENV.user]: 'u', [PUSHGATEWAY_ENV.password]: 'p' }),
    `Basic ${Buffer.from('u:p').toString('base64')}`,
  );
  assert.equal(gatewayProblem('http://127.0.0.1:9091'), undefined);
  assert.match(gatewayProblem('ftp://gw')!, /http:\/\/ or https:\/\//);
  const withPassword = gatewayProblem('https://user:hunter2@gw.example')!;
  assert.match(withPassword, /not taken from the URL/);
  assert.ok(!withPassword.includes('hunter2'));
});

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function fakeGateway(status: number): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res
        .writeHead(status)
        .end(status >= 300 ? 'pushed metrics are invalid or inconsistent with existing metrics\n' : '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test('a push: one PUT per deployment, its series only, with the credentials the environment gives', async (t) => {
  const gw = await fakeGateway(200);
  t.after(() => gw.close());
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-metrics-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const problems = await writeMetricsOutputs(
    { results: fleet() },
    { file: join(dir, 'sub', 'run.prom'), pushgateway: gw.url, env: { [PUSHGATEWAY_ENV.token]: 'gw-token-1234' } },
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(
    gw.received.map((r) => [r.method, r.url]),
    [
      ['PUT', '/metrics/job/chainprobe/target/production'],
      ['PUT', `/metrics/job/chainprobe/target@base64/${Buffer.from('eu staging/2').toString('base64url')}`],
    ],
  );
  for (const r of gw.received) {
    assert.equal(r.headers.authorization, 'Bearer gw-token-1234');
    assert.match(r.headers['content-type']!, /^text\/plain; version=0\.0\.4/);
  }
  const file = parseExposition(readFileSync(join(dir, 'sub', 'run.prom'), 'utf8'));
  const pushed = gw.received.flatMap((r) => parseExposition(r.body));
  const key = (s: typeof file) => s.map((x) => `${seriesKey(x)} ${x.value}`).sort();
  assert.deepEqual(key(pushed), key(file), 'the groups together hold the file, each series once');
});

test('a gateway that refuses or cannot be reached: one line naming it and the cause, never a credential', async (t) => {
  const gw = await fakeGateway(400);
  t.after(() => gw.close());
  const env = { [PUSHGATEWAY_ENV.user]: 'ci', [PUSHGATEWAY_ENV.password]: 'gw-password-5678' };
  const text = '# TYPE x gauge\nx 1\n';
  const refused = await pushGroups(gw.url, [{ target: 't', text }], { contentType: 'text/plain', env });
  assert.equal(
    refused,
    `${gw.url}: the Pushgateway answered HTTP 400 (pushed metrics are invalid or inconsistent with existing metrics)`,
  );
  const closed = await closedPort();
  t.after(() => closed.close());
  const url = `http://127.0.0.1:${closed.port}`;
  const down = await pushGroups(url, [{ target: 't', text }], { contentType: 'text/plain', env });
  assert.equal(down, `${url}: cannot reach 127.0.0.1:${closed.port} (connection refused)`);
  for (const line of [refused, down]) assert.ok(!line!.includes('gw-password-5678'));
});

test('chainprobe merge --pushgateway <unreachable>: the reports and the metrics file are written, one line, exit 1', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-metrics-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const clean = buildResults({
    target: 'staging',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    finishedAt: new Date('2026-01-01T00:01:00Z'),
    checks: [check('AUTH-01', 'pass'), check('RL-02', 'pass')],
    limiter: limiter(1000),
  });
  writeFileSync(join(dir, 'results.json'), JSON.stringify(clean));
  const closed = await closedPort();
  t.after(() => closed.close());
  const gateway = `http://127.0.0.1:${closed.port}`;
  const out = join(dir, 'merged');
  const r = await runChainprobe(
    'cli/merge.ts',
    [join(dir, 'results.json'), '--out', out, '--metrics', join(dir, 'merged.prom'), '--pushgateway', gateway],
    { [PUSHGATEWAY_ENV.password]: 'never-shown-9876', [PUSHGATEWAY_ENV.user]: 'ci' },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr,
    `chainprobe merge: --pushgateway ${gateway}: cannot reach 127.0.0.1:${closed.port} (connection refused); ` +
      'the metrics were not pushed (the reports are written)\n',
  );
  for (const f of ['results.json', 'index.html', 'junit.xml']) assert.ok(existsSync(join(out, f)), f);
  assert.ok(parseExposition(readFileSync(join(dir, 'merged.prom'), 'utf8')).length > 0);
  assert.ok(!`${r.stdout}${r.stderr}`.includes('never-shown-9876'));
});

test('bad --metrics, --pushgateway or --shard: exit 2 before the first request, one line, no password echoed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-metrics-flags-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const target = join(dir, 'never-read.json');
  const cases: [string[], RegExp][] = [
    [['--metrics', dir], /^chainprobe: --metrics .*: a folder, not a file\n$/],
    [
      ['--pushgateway', 'https://ci:hunter2@gw.example'],
      /^chainprobe: --pushgateway: credentials are not taken from the URL; set CHAINPROBE_PUSHGATEWAY_USER/,
    ],
    [['--pushgateway', 'gw.example:9091'], /^chainprobe: --pushgateway: expected an http:\/\/ or https:\/\/ URL/],
    [
      ['--shard', '3/2'],
      /^chainprobe: --shard: expected <i>\/<n> with 1 <= i <= n <= 1000, such as 1\/4 \(got "3\/2"\)\n$/,
    ],
  ];
  for (const [args, line] of cases) {
    const r = await runChainprobe('cli/start.ts', ['--target', target, ...args, '--out', join(dir, 'out')]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, line);
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
    assert.ok(!r.stderr.includes('hunter2'));
  }
});

test('promtool and the Pushgateway: found by PROMTOOL_PATH, PUSHGATEWAY_PATH or PATH; absent, their tests skip with a line unless required', () => {
  assert.equal(findPromtool({ PROMTOOL_PATH: '/nonexistent/promtool' }), undefined);
  assert.equal(findPushgateway({ PUSHGATEWAY_PATH: '/nonexistent/pushgateway' }), undefined);
  const none = { PATH: '/nonexistent' } as NodeJS.ProcessEnv;
  if (findPromtool(none) === undefined) assert.match(String(promtoolSkip(none)), /apt-get install prometheus\b/);
  if (findPushgateway(none) === undefined) assert.match(String(pushgatewaySkip(none)), /prometheus-pushgateway/);
  const required = { PATH: '/nonexistent', PROMTOOL_PATH: '/nonexistent/promtool', CHAINPROBE_REQUIRE_PROMETHEUS: '1' };
  assert.equal(promtoolSkip(required), false);
  assert.equal(pushgatewaySkip({ ...required, PUSHGATEWAY_PATH: '/nonexistent/pg' }), false);
  // Given a path that is not there, the skip says so (the test's own environment decides, not the machine's).
  assert.match(String(promtoolSkip({ PROMTOOL_PATH: '/nonexistent/promtool' })), /promtool not found/);
});
