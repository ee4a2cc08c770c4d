// A target that cannot be reached (issue 14): a closed port and a host name that does not resolve
// each give one cause line first in the terminal and at the top of the report, every selected rule
// `error` with that cause (never fail), exit 1, and no request tried once per check.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ResultsFile } from '../../src/results.js';
import { closedPort } from '../support/ports.js';
import { ROOT, runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'chainprobe-unreachable-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The example target with every address moved to `base` (http) and `host:port` (gRPC, WebSocket). */
function targetAt(httpBase: string, hostPort: string, name: string): string {
  const text = readFileSync(join(ROOT, 'targets', 'example.json'), 'utf8')
    .replace(/https:\/\/[a-z0-9.-]+\.invalid/g, httpBase)
    .replace(/wss:\/\/[a-z0-9.-]+\.invalid:8443/, `ws://${hostPort}`)
    .replace(/node-b\.example\.invalid:443/, hostPort)
    .replace(/"\$\{[A-Z_]+\}"/g, '"unreachable-test-token"');
  const path = join(dir, `${name}.json`);
  writeFileSync(path, text);
  return path;
}

for (const [name, make] of [
  [
    'a closed port',
    async () => {
      const held = await closedPort();
      after(() => held.close());
      const p = held.port;
      return {
        file: targetAt(`http://127.0.0.1:${p}`, `127.0.0.1:${p}`, 'closed'),
        line: `cannot reach 127.0.0.1:${p} (connection refused)`,
      };
    },
  ],
  [
    'a host name that does not resolve',
    async () => ({
      file: targetAt('http://chainprobe-unreachable.invalid:8080', 'chainprobe-unreachable.invalid:8080', 'dns'),
      line: 'cannot reach chainprobe-unreachable.invalid:8080 (host name does not resolve: ',
    }),
  ],
] as const) {
  test(`${name}: one cause line first, every rule error with it, exit 1`, async (t) => {
    const { file, line } = await make();
    const out = join(dir, name.replace(/\W+/g, '-'));
    const r = await runCli(['--target', file, '--out', out]);
    t.diagnostic(`exit ${r.code} in ${Math.round(r.wallMs)} ms`);
    assert.equal(r.code, 1, r.stderr.slice(-400));
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
    assert.equal(results.summary.fail, 0);
    assert.equal(results.summary.error, results.checks.length);
    assert.ok(
      results.checks.every((c) => c.message.includes(line)),
      'a check without the cause',
    );
    const summary = r.stdout.slice(r.stdout.indexOf('chainprobe 0.'));
    const lines = summary
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    assert.ok(
      lines[1]!.startsWith(line) && lines[1]!.endsWith(`: ${results.checks.length} checks could not run`),
      summary,
    );
    assert.equal(lines.filter((l) => /^(ERROR|FAIL) /.test(l)).length, 0, summary);
    assert.ok(readFileSync(join(out, 'index.html'), 'utf8').includes('data-cause='));
  });
}

test('one address unreachable (api.baseUrl): its checks error with one cause line, the rest run, NFT-03 is no evidence-less observation', async (t) => {
  const { startWatchedReference } = await import('./support/reference.js');
  const ref = await startWatchedReference();
  try {
    const held = await closedPort();
    t.after(() => held.close());
    const port = held.port;
    const target = ref.writeTarget((tf) => {
      tf.api!.baseUrl = `http://127.0.0.1:${port}`;
    });
    const out = join(ref.dir, 'partial');
    const r = await runCli(['--target', target, '--only', 'nft,node', '--out', out]);
    t.diagnostic(`exit ${r.code} in ${Math.round(r.wallMs)} ms`);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
    const line = `cannot reach 127.0.0.1:${port} (connection refused)`;
    assert.equal(results.summary.fail, 0);
    assert.ok(results.summary.pass > 10, 'the reachable nodes were not tested');
    for (const rule of ['NFT-01', 'NFT-03', 'NFT-04', 'RES-02']) assert.equal(results.rules[rule], 'error', rule);
    assert.ok(
      results.checks.filter((c) => c.verdict === 'error').every((c) => c.message.includes(line)),
      'an error without the cause',
    );
    const summary = r.stdout.slice(r.stdout.indexOf('chainprobe 0.'));
    assert.match(
      summary.split('\n')[1]!,
      new RegExp(`^  ${line.replace(/[.()]/g, '\\$&')}: \\d+ checks could not run$`),
    );
    assert.doesNotMatch(summary, /^\s+ERROR /m);
  } finally {
    await ref.close();
  }
});

test('nothing reachable, some sections absent: the rules that would have talked to the host error, the rest stay skipped', async (t) => {
  const held = await closedPort();
  t.after(() => held.close());
  const p = held.port;
  const full = JSON.parse(readFileSync(targetAt(`http://127.0.0.1:${p}`, `127.0.0.1:${p}`, 'horizon-only'), 'utf8'));
  const file = join(dir, 'horizon-only.json');
  writeFileSync(file, JSON.stringify({ ...full, api: undefined, nodes: { horizon: full.nodes.horizon } }));
  const out = join(dir, 'horizon-only');
  const r = await runCli(['--target', file, '--out', out]);
  t.diagnostic(`exit ${r.code} in ${Math.round(r.wallMs)} ms`);
  assert.equal(r.code, 1, r.stderr.slice(-400));
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
  const line = `cannot reach 127.0.0.1:${p} (connection refused)`;
  // The horizon node's rules: its REST paths (NODE-07, the auth query of NAUTH-04, refusals of NAUTH-07) and the probes.
  const talk = (rule: string) => rule.startsWith('RL-') || ['NODE-07', 'NAUTH-04', 'NAUTH-07'].includes(rule);
  const wrong = results.checks.filter((c) =>
    talk(c.rule)
      ? c.verdict !== 'error' || !c.message.includes(line)
      : c.verdict !== 'skipped' || !/^target (has no|has neither) /.test(c.message),
  );
  assert.deepEqual(
    wrong.map((c) => `${c.verdict} ${c.rule}: ${c.message}`),
    [],
  );
  assert.ok(results.checks.some((c) => c.rule === 'AUTH-08' && c.message === 'target has no api section'));
  assert.ok(results.checks.some((c) => c.rule === 'NODE-02' && c.message === 'target has no nodes.chainB section'));
  assert.equal(results.summary.error, results.checks.filter((c) => talk(c.rule)).length);
  const summary = r.stdout.slice(r.stdout.indexOf('chainprobe 0.'));
  assert.ok(summary.split('\n')[1]!.trim().startsWith(`${line}: `), summary);
});
