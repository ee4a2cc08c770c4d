// --shard i/n (src/fleet/shard.ts): the n parts of a run are disjoint, cover every deployment's API
// unit and every node, keep what may share a bucket in one part (a deployment's horizon nodes; a
// token listed in two deployments), and are the same every time. Then for real, against the
// reference serving a fleet whose two horizon nodes draw on one account bucket: one run, and the
// same run in two parts joined by `chainprobe merge`, reach the same verdict for every rule, of
// the deployment and of every node, and RL-09 sees the same sharing; promtool accepts the fleet's and
// the merge's metrics.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { dealShards, EmptyShardError, parseShard, shardPieces, shardTargets } from '../../src/fleet/shard.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { NODE_KINDS, nodesOf, type ResolvedTarget } from '../../src/target-file/types.js';
import { fleetOf } from '../../src/fleet/rollup.js';
import { isFleet } from '../../src/fleet/units.js';
import type { ResultsFile } from '../../src/results.js';
import { ACCOUNT_BUCKET_VARIANT } from '../../reference/limiter/pipeline.js';
import { judgeSteady, runStallMs } from '../support/stalls.js';
import { HANG_MS } from '../support/backstops.js';
import { commandArgs } from '../support/command.js';
import { promtool, promtoolSkip, ROOT, runChainprobe } from './prometheus-support.js';

const node = (name: string, token = `${name}-token`) => ({ name, endpoint: `https://${name}.example`, token });

/** Three deployments: eu with three horizon nodes, us with one that reuses eu's h2 token, lab with single nodes. */
function targets(): ResolvedTarget[] {
  return [
    resolveTarget(
      {
        name: 'eu',
        api: { baseUrl: 'https://api.eu.example', apiKey: 'k' },
        nodes: {
          horizon: [node('h1'), node('h2'), node('h3')],
          blockRest: [
            { ...node('b1'), height: 1 },
            { ...node('b2'), height: 1 },
          ],
        },
      },
      {},
    ),
    resolveTarget({ name: 'us', nodes: { horizon: [node('u1', 'h2-token')], chainB: [node('c1')] } }, {}),
    resolveTarget({ name: 'lab', nodes: { horizon: node('lab-h'), blockRest: { ...node('lab-b'), height: 1 } } }, {}),
  ];
}

/** Every unit of a run: each deployment's API unit and each node, as "deployment/kind/name". */
function unitsOf(ts: readonly ResolvedTarget[]): string[] {
  return ts.flatMap((t) => [
    ...(t.api ? [`${t.name}/api`] : []),
    ...NODE_KINDS.flatMap((k) => nodesOf(t, k).map((n) => `${t.name}/${k}/${n.name}`)),
  ]);
}

test('parseShard: i/n with 1 <= i <= n', () => {
  assert.deepEqual(parseShard('2/5'), { index: 2, count: 5 });
  assert.deepEqual(parseShard(' 1 / 1 '), { index: 1, count: 1 });
  for (const bad of ['0/3', '4/3', '1/0', '1', '1/2/3', 'a/b', '-1/2', '1/1001'])
    assert.throws(() => parseShard(bad), /expected <i>\/<n>/, bad);
});

test("the parts: disjoint, every unit in one, a deployment's horizon nodes and a shared token together, the same every time", () => {
  const ts = targets();
  const all = unitsOf(ts);
  // eu/api, eu/horizon with us/horizon (h2's token), eu b1, eu b2, us c1, lab b, lab/horizon: no API
  // piece for us and lab, which have no api section (their API unit runs wherever their nodes do).
  assert.deepEqual(
    shardPieces(ts).map((p) => p.key),
    [
      'eu/api',
      'eu/blockRest/b1',
      'eu/blockRest/b2',
      'eu/horizon',
      'us/chainB/c1',
      'lab/blockRest/lab-b',
      'lab/horizon',
    ],
  );
  for (let n = 1; n <= 7; n++) {
    const parts = Array.from({ length: n }, (_, i) => shardTargets(ts, { index: i + 1, count: n }));
    const got = parts.map((p) => unitsOf(p.targets));
    const flat = got.flat();
    assert.deepEqual([...flat].sort(), [...all].sort(), `${n} parts cover every unit once`);
    const partOf = (unit: string) => got.findIndex((units) => units.includes(unit));
    // Nodes that may share a bucket: eu's horizon nodes (one deployment), and us/u1 (h2's token).
    const together = ['eu/horizon/h1', 'eu/horizon/h2', 'eu/horizon/h3', 'us/horizon/u1'].map(partOf);
    assert.equal(new Set(together).size, 1, `${n} parts: the horizon nodes that may share a bucket in one`);
    for (const p of parts) {
      assert.ok(p.targets.length > 0 && isFleet(p.targets), 'a part runs as a fleet: every node check names its node');
      assert.equal(p.record.count, n);
    }
    // Deterministic: the same again, and from the same targets listed the same way on another machine.
    assert.deepEqual(
      Array.from({ length: n }, (_, i) => unitsOf(shardTargets(targets(), { index: i + 1, count: n }).targets)),
      got,
    );
  }
  // More parts than pieces: the empty part says so.
  assert.throws(() => shardTargets(ts, { index: 8, count: 8 }), EmptyShardError);
  assert.throws(() => shardTargets(ts, { index: 8, count: 8 }), /part 8 of 8 is empty: this run has 7 pieces/);
  // A deployment with neither an api section nor a node still has its (skipped) API unit run somewhere.
  const bare = resolveTarget({ name: 'bare' }, {});
  assert.deepEqual(
    shardPieces([bare]).map((p) => p.key),
    ['bare/api'],
  );
  // The deal balances: the largest piece alone, the rest spread.
  const loads = dealShards(shardPieces(ts), 3).map((part) => part.reduce((n, p) => n + p.weight, 0));
  assert.deepEqual(loads, [8, 4, 3]);
});

test("a part keeps only its own: api only with its API unit, each kind's first node its first kept one", () => {
  const ts = targets();
  const pieces = dealShards(shardPieces(ts), 3);
  for (let i = 0; i < 3; i++) {
    const { targets: part, record } = shardTargets(ts, { index: i + 1, count: 3 });
    assert.deepEqual(
      record.pieces,
      pieces[i]!.map((p) => p.key),
    );
    for (const t of part) {
      const apiHere = record.pieces.includes(`${t.name}/api`);
      assert.equal(t.api !== undefined, apiHere && ts.find((o) => o.name === t.name)!.api !== undefined);
      for (const k of NODE_KINDS) assert.equal(t.nodes[k]?.name, nodesOf(t, k)[0]?.name);
    }
  }
});

// The real thing: the reference serving a fleet (two horizon nodes on one account bucket, two
// blockRest nodes), limited at 14400/h with burst 25 so each plan takes seconds. Two parts: the
// horizon nodes, and the API unit with the other nodes (each part runs as a fleet of its own).
// The nodes sharing a bucket are probed one after another, each from full quota: about 100 s in all.
const DIR = mkdtempSync(join(tmpdir(), 'chainprobe-shard-'));
const HOURLY_LIMIT = 14400;
const BURST = 25;
/**
 * Each part starts as the whole run did, on a full account bucket: the run before spends it, and a
 * run that starts on a spent bucket can only call the sharing undetermined (its screen meets a 429).
 * A GCRA bucket is full again one emission interval per request of its Limit after the last one.
 */
const REFILL_MS = (BURST + 1) * (3_600_000 / HOURLY_LIMIT) + 500;
const PARTS = 2;
let reference: ChildProcess | undefined;
let targetFile = '';
/** Whether part i of PARTS holds the horizon nodes (the parts are dealt from the target file alone). */
const holdsHorizon = (i: number) =>
  shardTargets([resolveTarget(JSON.parse(readFileSync(targetFile, 'utf8')) as object, {})], {
    index: i,
    count: PARTS,
  }).targets.some((t) => nodesOf(t, 'horizon').length > 0);

before(async () => {
  targetFile = join(DIR, 'fleet.json');
  reference = spawn(
    process.execPath,
    [
      ...commandArgs('cli/reference.ts'),
      '--target-out',
      targetFile,
      '--horizon-nodes',
      '2',
      '--block-rest-nodes',
      '2',
      '--hourly-limit',
      String(HOURLY_LIMIT),
      '--burst',
      String(BURST),
      '--variant',
      ACCOUNT_BUCKET_VARIANT,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const child = reference;
  await new Promise<string>((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', res);
    child.once('exit', (code) => rej(new Error(`reference exited ${code}`)));
  });
});

after(() => {
  reference?.kill('SIGTERM');
  rmSync(DIR, { recursive: true, force: true });
});

const resultsOf = (out: string) => JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;

/** Every verdict a run reached: per rule, per deployment and rule, per node and rule. */
function verdicts(r: ResultsFile): Record<string, string> {
  const fleet = fleetOf(r)!;
  const out: Record<string, string> = {};
  for (const [rule, v] of Object.entries(r.rules)) out[rule] = v;
  for (const t of fleet.targets) for (const [rule, v] of Object.entries(t.rules)) out[`${t.name} ${rule}`] = v;
  for (const n of fleet.nodes)
    for (const [rule, v] of Object.entries(n.rules)) out[`${n.target}/${n.kind}/${n.name} ${rule}`] = v;
  return out;
}

test(
  `one fleet run and the same run in ${PARTS} parts merged: the same verdict for every rule and node`,
  { timeout: HANG_MS },
  async (t) => {
    const whole = await runChainprobe('cli/start.ts', [
      '--target',
      targetFile,
      '--out',
      join(DIR, 'whole'),
      '--metrics',
      join(DIR, 'whole.prom'),
    ]);
    assert.ok(whole.code === 0 || whole.code === 1, whole.stderr);
    const parts: string[] = [];
    for (let i = 1; i <= PARTS; i++) {
      const out = join(DIR, `part-${i}`);
      if (holdsHorizon(i)) await new Promise((r) => setTimeout(r, REFILL_MS));
      const r = await runChainprobe('cli/start.ts', ['--target', targetFile, '--shard', `${i}/${PARTS}`, '--out', out]);
      assert.ok(r.code === 0 || r.code === 1, r.stderr);
      parts.push(out);
    }
    const merged = await runChainprobe('cli/merge.ts', [
      ...parts,
      '--out',
      join(DIR, 'merged'),
      '--metrics',
      join(DIR, 'merged.prom'),
    ]);
    assert.ok(merged.code === 0 || merged.code === 1, merged.stderr);
    assert.match(merged.stdout, new RegExp(`${PARTS} run\\(s\\) of reference`));

    // What each part ran: its record, and the nodes it knows; together every node once.
    const records = parts.map((p) => resultsOf(p).shard as { part: string; pieces: string[] });
    assert.deepEqual(
      records.map((r) => r.part),
      Array.from({ length: PARTS }, (_, i) => `${i + 1}/${PARTS}`),
    );
    const nodesOfPart = parts.map((p) => fleetOf(resultsOf(p))!.nodes.map((n) => `${n.kind}/${n.name}`));
    assert.deepEqual(nodesOfPart.flat().sort(), [
      'blockRest/blockRest-1',
      'blockRest/blockRest-2',
      'chainB/chainB',
      'horizon/horizon-1',
      'horizon/horizon-2',
    ]);
    assert.ok(
      nodesOfPart.some((n) => n.includes('horizon/horizon-1') && n.includes('horizon/horizon-2')),
      'the shared bucket in one part',
    );

    // Timing verdicts (the probes) are judged on a steady machine, as every probe test is.
    const stall = Math.max(
      runStallMs(join(DIR, 'whole')),
      ...parts.filter((p) => existsSync(join(p, 'timeline.json'))).map(runStallMs),
    );
    judgeSteady(t, stall, () =>
      assert.deepEqual(verdicts(resultsOf(join(DIR, 'merged'))), verdicts(resultsOf(join(DIR, 'whole')))),
    );
    // RL-09 saw the two nodes share their bucket in the part that held them, as in the whole run.
    const sharing = (r: ResultsFile) =>
      r.checks
        .filter((c) => c.id === 'rl.rate.bucket-sharing')
        .map((c) => {
          const o = c.evidence.observation as { bucket?: string; sharesWith?: string[] };
          return `${c.node}: ${o.bucket} ${o.sharesWith?.join(',')}`;
        });
    judgeSteady(t, stall, () => {
      const whole = sharing(resultsOf(join(DIR, 'whole'))).sort();
      assert.deepEqual(whole, ['horizon-1: shared reference/horizon-2', 'horizon-2: shared reference/horizon-1']);
      assert.deepEqual(sharing(resultsOf(join(DIR, 'merged'))).sort(), whole);
    });

    if (!promtoolSkip()) {
      for (const f of ['whole.prom', 'merged.prom']) {
        const got = promtool(['check', 'metrics'], readFileSync(join(DIR, f), 'utf8'));
        assert.equal(got.code, 0, `${f}: ${got.out}`);
        assert.equal(got.out.trim(), '', `${f}: no lint finding`);
      }
    }
  },
);
