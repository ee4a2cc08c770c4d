// Bad input to --compare, --waivers and `chainprobe compare`: one clear line on stderr, exit 2,
// before any request where it can be known before, and no report written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, stackTraceLines } from '../safety/support/cli.js';
import { closedPort } from '../support/ports.js';
import { HANG_MS } from '../support/backstops.js';
import { run, check } from './fixture.js';
import { reportsIn, resultsIn, runCompare } from './support.js';
import { startReference } from '../../reference/start.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { sideBySide } from '../../cli/compare-run.js';

/** A deployment that counts the requests it gets (the run must send none). */
async function countingTarget(dir: string, name: string) {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const file = join(dir, `${name}.json`);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(
    file,
    JSON.stringify({
      name,
      api: { baseUrl: base, apiKey: 'cli-test-key-7a1f', universal: [{ protocol: 'chain-a', network: 'mainnet' }] },
    }),
  );
  return { file, requests: () => requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test(
  'the run command: an unreachable compare target, a waiver with an unknown rule or a malformed date, ' +
    'and flags that do not go together stop it with exit 2 before any request',
  { timeout: HANG_MS },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'chainprobe-compare-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const primary = await countingTarget(dir, 'production');
    t.after(() => primary.close());
    const refused = await closedPort();
    t.after(() => refused.close());
    const gone = join(dir, 'gone.json');
    writeFileSync(
      gone,
      JSON.stringify({ name: 'staging', api: { baseUrl: `http://127.0.0.1:${refused.port}`, apiKey: 'k-1' } }),
    );
    const waivers = (w: unknown) => {
      const f = join(dir, `w${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(f, JSON.stringify({ waivers: [w] }));
      return f;
    };
    const out = join(dir, 'out');
    const cases: [string[], RegExp][] = [
      [
        ['--compare', gone],
        new RegExp(
          `^chainprobe: --compare ${gone}: "staging" cannot be reached \\(.*127\\.0\\.0\\.1:${refused.port}.*refused.*\\)\\n$`,
        ),
      ],
      [
        ['--waivers', waivers({ rule: 'NFT-99', reason: 'r', expires: '2027-01-01' })],
        /^chainprobe: --waivers \S+: waivers\[0\]\.rule: unknown rule id "NFT-99" \(did you mean NFT-09\?\) \(docs\/rules\.md, docs\/compare\.md\)\n$/,
      ],
      [
        ['--waivers', waivers({ rule: 'NFT-04', reason: 'r', expires: '31/01/2027' })],
        /^chainprobe: --waivers \S+: waivers\[0\]\.expires: "31\/01\/2027" is not a date \(YYYY-MM-DD\)\n$/,
      ],
      [
        ['--fail-on-difference'],
        /^chainprobe: --fail-on-difference needs --compare <file\.json> \(or use chainprobe compare\)\n$/,
      ],
      [
        ['--compare', gone, '--target', gone],
        /^chainprobe: --compare needs exactly one --target <file\.json> to compare with \(2 given\)\n$/,
      ],
    ];
    for (const [args, line] of cases) {
      const r = await runCli(['--target', primary.file, ...args, '--out', out]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, line);
      assert.deepEqual(stackTraceLines(r.stderr), []);
      assert.deepEqual(reportsIn(out), [], 'no report written');
    }
    assert.equal(primary.requests(), 0, 'not one request reached the primary target');
  },
);

test(
  'chainprobe compare: a results file of another format version, or not one, or one missing, or a bad waivers file: exit 2, one line, nothing written',
  { timeout: HANG_MS },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'chainprobe-compare-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    const future = join(dir, 'future.json');
    const other = join(dir, 'other.json');
    const badWaivers = join(dir, 'waivers.json');
    writeFileSync(a, JSON.stringify(run('production', [check('x', 'NFT-01', 'pass')])));
    writeFileSync(b, JSON.stringify(run('staging', [check('x', 'NFT-01', 'pass')])));
    writeFileSync(future, JSON.stringify({ ...run('staging', []), format: 2 }));
    writeFileSync(other, JSON.stringify({ hello: 'world' }));
    writeFileSync(badWaivers, JSON.stringify({ waivers: [{ rule: 'NFT-04', reason: 'r', expires: '2027-13-01' }] }));
    const out = join(dir, 'out');
    const cases: [string[], RegExp][] = [
      [
        [a, future],
        new RegExp(
          `^chainprobe compare: ${future}: results format 2, written by chainprobe \\S+; this chainprobe reads format 1\\n$`,
        ),
      ],
      [
        [a, other],
        new RegExp(
          `^chainprobe compare: ${other}: not a chainprobe results\\.json \\(no tool, target, summary and checks\\)\\n$`,
        ),
      ],
      [[a, join(dir, 'none.json')], /^chainprobe compare: \S+none\.json: no such file\n$/],
      [
        [a],
        /^chainprobe compare: give two results files, the run to compare with and the other \(1 given\); see npm run compare -- --help\n$/,
      ],
      [
        [a, b, '--waivers', badWaivers],
        /^chainprobe compare: --waivers \S+: waivers\[0\]\.expires: "2027-13-01" is not a date \(YYYY-MM-DD\)\n$/,
      ],
    ];
    for (const [args, line] of cases) {
      const r = await runCompare([...args, '--out', out]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, line);
      assert.deepEqual(stackTraceLines(r.stderr), []);
    }
    assert.deepEqual(readdirSync(dir).includes('out') ? reportsIn(out) : [], [], 'nothing written');
    // Good input: written, exit 0.
    const ok = await runCompare([a, b, '--out', out]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /production compared with staging: no difference over 1 rule/);
    assert.deepEqual(reportsIn(out), ['results.json', 'index.html', 'junit.xml']);
  },
);

test(
  'the run command with --waivers: a waived failure exits 0 and stays in the reports with its waiver; once expired it exits 1; a stale waiver is named',
  { timeout: HANG_MS },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'chainprobe-compare-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const waiver = { rule: 'NFT-04', reason: 'price as a string until v2.3', link: 'https://tracker.example/BAS-12' };
    const file = (expires: string) => {
      const f = join(dir, `waivers-${expires}.json`);
      writeFileSync(
        f,
        JSON.stringify({
          waivers: [
            { ...waiver, expires },
            { rule: 'RPC-03', reason: 'sepolia', expires: '2099-01-01' },
          ],
        }),
      );
      return f;
    };
    const args = (out: string, w: string) => [
      '--fault',
      'payment-price-string',
      '--only',
      'NFT-04',
      '--waivers',
      w,
      '--out',
      out,
    ];

    const active = await runCli(args(join(dir, 'active'), file('2099-01-01')));
    assert.equal(active.code, 0, active.stdout + active.stderr);
    assert.match(active.stdout, /\n {2}WAIVED NFT-04 +event: data\.payments\[0\]\.price: expected number/);
    assert.match(
      active.stdout,
      /NFT-04 waived until 2099-01-01: price as a string until v2\.3 \(https:\/\/tracker\.example\/BAS-12\) \(covers \d+ failing checks?\)/,
    );
    assert.match(active.stdout, /RPC-03 waiver is stale \(nothing it names failed in this run\)/);
    const results = resultsIn(join(dir, 'active'));
    assert.equal(results.rules['NFT-04'], 'fail', 'the waived rule keeps its verdict');
    assert.ok(results.summary.fail > 0 && results.summary.waived === results.summary.fail);
    const junit = readFileSync(join(dir, 'active', 'junit.xml'), 'utf8');
    assert.match(junit, /failures="0" errors="0"/);
    assert.match(junit, /<skipped message="waived until 2099-01-01: price as a string until v2\.3/);

    const expired = await runCli(args(join(dir, 'expired'), file('2020-01-01')));
    assert.equal(expired.code, 1, expired.stdout + expired.stderr);
    assert.match(expired.stdout, /\n {2}FAIL +NFT-04 /);
    assert.match(
      expired.stdout,
      /NFT-04 waiver EXPIRED on 2020-01-01 and waives nothing: price as a string until v2\.3/,
    );
    assert.equal(resultsIn(join(dir, 'expired')).summary.waived, 0);
  },
);

test(
  'two targets sharing a host run one after the other (a limiter both reach would see both runs); ' +
    'the same deployment twice has no difference but latency on a starved machine',
  { timeout: HANG_MS },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'chainprobe-compare-cli-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const ref = await startReference();
    t.after(() => ref.close());
    const other = await startReference();
    t.after(() => other.close());
    const resolved = (x: typeof ref.target, name: string) => resolveTarget({ ...x, name }, {});
    assert.equal(sideBySide(resolved(ref.target, 'a'), resolved(other.target, 'b')), true);
    assert.equal(sideBySide(resolved(ref.target, 'a'), resolved(ref.target, 'b')), false);
    const withCa = { ...resolved(other.target, 'b'), tls: { ca: ['/x.pem'], insecure: false } };
    assert.equal(
      sideBySide(resolved(ref.target, 'a'), withCa as never),
      false,
      'another TLS trust: one process has one',
    );

    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    writeFileSync(a, JSON.stringify({ ...ref.target, name: 'primary' }));
    writeFileSync(b, JSON.stringify({ ...ref.target, name: 'replica' }));
    const out = join(dir, 'out');
    const r = await runCli([
      '--target',
      a,
      '--compare',
      b,
      '--only',
      'universal,native',
      '--out',
      out,
      '--fail-on-difference',
    ]);
    const [pa, pb] = [resultsIn(out), resultsIn(join(out, 'compare'))];
    // Latency (CMP-12) is the one comparison that measures this machine too: the two sides run one
    // after the other, and a starved machine can slow one of them past its tolerance. Any other
    // difference between the same deployment and itself is a false one.
    const found = (pa.comparison as { differences: { kind: string }[] }).differences;
    const latencyOnly = found.length > 0 && found.every((d) => d.kind === 'latency');
    if (latencyOnly) t.diagnostic(`a latency difference on a busy machine: ${r.stdout.match(/D1 .*/)?.[0]}`);
    else {
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /primary compared with replica: no difference over 14 rules/);
    }
    const stages = (x: typeof pa) =>
      (x.stages as { startedAt: string; finishedAt: string }[]).map((s) => [s.startedAt, s.finishedAt]).flat();
    // One after the other: the replica's run was over before the primary's began.
    assert.ok(
      stages(pb).every((at) => stages(pa).every((bt) => at <= bt)),
      JSON.stringify([stages(pb), stages(pa)]),
    );
  },
);
