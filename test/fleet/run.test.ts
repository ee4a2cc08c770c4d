// A fleet run against the embedded reference serving 4 horizon nodes (distinct tokens): every node
// gets its own set of rate-limit verdicts, all clean; a token listed twice is probed once and the
// results say so; the fleet roll-ups add up to the run's summary. Nodes with buckets of their own are
// probed at once; nodes that draw on one bucket (variant horizon-account-bucket) one after another.
// The limiter runs at 7200/h with burst 30 so each plan takes seconds (the account-bucket test's at
// 14400/h with burst 25, as metrics/shard.test.ts's: its two plans run one after the other).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startFleetReference, type RunningFleetReference } from '../../reference/fleet.js';
import { ACCOUNT_BUCKET_VARIANT } from '../../reference/limiter/pipeline.js';
import { MAX_SCREENS, SCREEN_ROUNDS } from '../../load/model/sharing.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { parseSelectors } from '../../src/select.js';
import { runFleet } from '../../run/fleet.js';
import { fleetOf, type FleetSection } from '../../src/fleet/rollup.js';
import { RL_RULES } from '../../load/plan.js';
import type { HorizonNode } from '../../src/types/generated/target.js';
import { emptySummary, VERDICTS } from '../../src/verdict.js';
import type { ResultsFile } from '../../src/results.js';
import { runCli } from '../safety/support/cli.js';
import { HANG_MS } from '../support/backstops.js';
import { judgeProbeErrors, judgeSteady, runStallMs } from '../support/stalls.js';

const OUT = resolve('test-results/fleet-run');
let ref: RunningFleetReference;

before(async () => {
  rmSync(OUT, { recursive: true, force: true });
  ref = await startFleetReference({ horizon: 4 }, { hourlyLimit: 7200, burst: 30 });
});
after(async () => ref?.close());

/**
 * Exit 1 exactly when some check fails or errors. The callers judge the probes' errors on a steady
 * run only (judgeProbeErrors), so on a starved machine an error and its exit 1 may both be right.
 */
function exitMatchesVerdicts(run: { exitCode: number; results: { checks: readonly { verdict: string }[] } }): void {
  const bad = run.results.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'error').length;
  assert.equal(run.exitCode, bad ? 1 : 0, `${bad} checks fail or error`);
}
test(
  '4 horizon nodes: 4 sets of RL verdicts, all clean; a token listed twice is probed once',
  { timeout: HANG_MS },
  async (t) => {
    const file = structuredClone(ref.target);
    const horizons = file.nodes!.horizon as HorizonNode[];
    assert.equal(horizons.length, 4);
    assert.equal(new Set(horizons.map((h) => h.token)).size, 4, 'distinct tokens');
    horizons.push({ ...horizons[1]!, name: 'horizon-2-again' });
    const out = join(OUT, 'four');
    const run = await runFleet({
      targets: [resolveTarget(file, {}, 'reference')],
      selection: parseSelectors('load'),
      outDir: out,
    });
    const r = run.results;
    const fleet = fleetOf(r)!;

    // The verdicts and the sharing probe's reading rest on timing: judged on a steady run.
    judgeSteady(t, runStallMs(out), () => everyNodeClean(r, fleet, horizons));
    const probed = new Set(horizons.slice(0, 4).map((h) => h.name));
    judgeProbeErrors(
      t,
      runStallMs(out),
      r.checks.filter((c) => c.node !== undefined && probed.has(c.node)),
      'no error',
    );
    const again = r.checks.filter((c) => c.node === 'horizon-2-again');
    assert.ok(again.length > 0 && again.every((c) => c.verdict === 'skipped' && /probed once/.test(c.message)));
    assert.equal(fleet.nodes.find((n) => n.name === 'horizon-2-again')?.sameTokenAs, 'reference/horizon-2');
    assert.deepEqual(fleet.sharedTokens, [
      { probed: 'reference/horizon-2', alsoListedAs: ['reference/horizon-2-again'] },
    ]);
    assert.equal(r.limiter, null, 'several horizon nodes: the estimates are per node, in fleet');

    // Roll-ups are exact: the nodes' summaries add up to the run's (every check here is a node's).
    const sum = emptySummary();
    for (const n of fleet.nodes) for (const v of VERDICTS) sum[v] += n.summary[v];
    assert.deepEqual(sum, r.summary);
    assert.deepEqual(fleet.targets[0]!.summary, r.summary);
    assert.deepEqual(fleet.targets[0]!.rules, r.rules);
    // The limits bound the deployment as a whole: its counter holds every node's requests.
    assert.equal(
      fleet.targets[0]!.requestsSent,
      fleet.nodes.reduce((a, n) => a + (n.requestsSent?.probes ?? 0) + (n.requestsSent?.contracts ?? 0), 0),
    );
    const timeline = JSON.parse(readFileSync(join(out, 'timeline.json'), 'utf8')) as { node?: string }[];
    assert.deepEqual(
      [...new Set(timeline.map((e) => e.node))].sort(),
      horizons
        .slice(0, 4)
        .map((h) => h.name)
        .sort(),
    );
  },
);

test(
  'two horizon nodes on one account bucket (variant horizon-account-bucket): found sharing, probed one after the other, nothing fails or errors',
  { timeout: 180_000 },
  async (t) => {
    // Faster than the others (T = 0.25 s, Limit 26 > the 20/s cap), as metrics/shard.test.ts's
    // fleet on one account bucket: its two plans run one after the other, each from a full bucket.
    const shared = await startFleetReference(
      { horizon: 2 },
      { hourlyLimit: 14400, burst: 25, variants: new Set([ACCOUNT_BUCKET_VARIANT]) },
    );
    try {
      const run = await runFleet({
        targets: [resolveTarget(shared.target, {}, 'reference')],
        selection: parseSelectors('load'),
        outDir: join(OUT, 'account-bucket'),
      });
      const r = run.results;
      const fleet = fleetOf(r)!;
      const stall = runStallMs(join(OUT, 'account-bucket'));
      const [first, second] = ['horizon-1', 'horizon-2'];
      for (const name of [first, second]) {
        const mine = r.checks.filter((c) => c.node === name);
        assert.deepEqual([...new Set(mine.map((c) => c.rule))].sort(), [...RL_RULES].sort(), `${name}: every RL rule`);
        assert.deepEqual(failLines(mine), [], `${name}: no fail`);
        judgeProbeErrors(t, stall, mine, `${name}: no error`);
        const sharing = mine.find((c) => c.id === 'rl.rate.bucket-sharing')!;
        assert.equal(sharing.verdict, 'observed');
        const other = name === first ? second : first;
        assert.equal(sharing.evidence.observation?.bucket, 'shared', sharing.message);
        assert.deepEqual(sharing.evidence.observation?.sharesWith, [`reference/${other}`]);
        // Seen how: between two of its reads its Remaining fell by more than its own requests, and the reads say by how much.
        const actual = sharing.evidence.actual as {
          screen: { from: number; to: number; own: number };
          reads: { node: string; remaining: number }[];
        };
        assert.ok(actual.screen.from - actual.screen.to > actual.screen.own, JSON.stringify(actual.screen));
        assert.deepEqual([...new Set(actual.reads.map((x) => x.node))].sort(), [
          `reference/${first}`,
          `reference/${second}`,
        ]);
        assert.ok(actual.reads.every((x) => Number.isInteger(x.remaining)));
        assert.equal(fleet.nodes.find((n) => n.name === name)?.limiter?.limit, 26);
      }
      const second2 = r.checks.find((c) => c.node === second && c.id === 'rl.rate.bucket-sharing')!;
      assert.match(
        second2.message,
        /probed after reference\/horizon-1 once the bucket was full again \(waited \d+\.\d s/,
      );
      // The first plan waited for what the sharing probe took, the second for what the first drained: both found it full.
      for (const name of [first, second])
        assert.equal(fleet.nodes.find((n) => n.name === name)?.limiter?.bucketAtStart, 'full', name);
      exitMatchesVerdicts(run);
    } finally {
      await shared.close();
    }
  },
);

test(
  'one horizon node in a fleet of deployments: limiter as before, checks named by target',
  { timeout: HANG_MS },
  async (t) => {
    const file = structuredClone(ref.target);
    const one = { ...file, name: 'solo', nodes: { horizon: (file.nodes!.horizon as HorizonNode[])[2]! } };
    const other = { name: 'api-only', api: file.api };
    const run = await runFleet({
      targets: [resolveTarget(one, {}), resolveTarget(other, {})],
      selection: parseSelectors('load'),
      outDir: join(OUT, 'solo'),
    });
    const r = run.results;
    const fleet = fleetOf(r)!;
    assert.equal(r.target, 'solo, api-only');
    assert.deepEqual(r.limiter, fleet.nodes.find((n) => n.target === 'solo')?.limiter);
    assert.ok(r.limiter && r.limiter.limit === 31);
    const skipped = r.checks.filter((c) => c.target === 'api-only');
    assert.ok(
      skipped.length > 0 && skipped.every((c) => c.verdict === 'skipped' && c.node === undefined),
      'no horizon node: skipped, named by target',
    );
    assert.deepEqual(failLines(r.checks), [], 'no fail');
    judgeProbeErrors(t, runStallMs(join(OUT, 'solo')), r.checks, 'no error');
    exitMatchesVerdicts(run);
  },
);

test(
  'npm start -- --target a.json --target b.json: both deployments in one report, node checks named',
  { timeout: HANG_MS },
  async () => {
    const dir = join(OUT, 'cli');
    mkdirSync(dir, { recursive: true });
    const horizons = ref.target.nodes!.horizon as HorizonNode[];
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    writeFileSync(a, JSON.stringify({ name: 'eu', nodes: { horizon: horizons.slice(0, 2) } }));
    writeFileSync(b, JSON.stringify({ name: 'us', nodes: { blockRest: ref.target.nodes!.blockRest } }));
    const out = join(dir, 'out');
    const run = await runCli(['--target', a, '--target', b, '--only', 'node', '--out', out]);
    assert.equal(run.code, 0, run.stderr.slice(-800));
    const r = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
    assert.equal(r.target, 'eu, us');
    const fleet = fleetOf(r)!;
    assert.deepEqual(
      fleet.targets.map((t) => t.name),
      ['eu', 'us'],
    );
    assert.deepEqual(
      fleet.nodes.map((n) => `${n.target}/${n.kind}/${n.name}`),
      ['eu/horizon/horizon-1', 'eu/horizon/horizon-2', 'us/blockRest/blockRest'],
    );
    for (const n of fleet.nodes) {
      assert.ok(
        Object.keys(n.rules).length > 0 && n.summary.fail === 0 && n.summary.error === 0,
        `${n.name}: checked, clean`,
      );
      assert.ok(n.requestsSent!.contracts! > 0, `${n.name}: its spend is counted`);
    }
    assert.ok(r.checks.every((c) => c.target === 'eu' || c.target === 'us'));
    assert.ok(!readFileSync(join(out, 'results.json'), 'utf8').includes(horizons[0]!.token), 'tokens redacted');

    const same = await runCli(['--target', a, '--target', a, '--out', join(dir, 'same')]);
    assert.equal(same.code, 2);
    assert.match(same.stderr, /--target .*a\.json: the same target name as .*a\.json/);
  },
);

test('an interrupt stops every plan thread at once; the report is still written', async () => {
  // Interrupted once the first probe request has gone out: every plan then has seconds of limiter
  // time ahead of it (drain, recovery), so a thread that went on would finish its phases and judge
  // its node; one that stops at once leaves rules of every node unfinished, however slow the machine.
  const { run, horizons } = await interruptedFleet('interrupted', (e) => e.requestsSent > 0);
  assert.equal(run.interrupted, true);
  for (const h of horizons) {
    const unfinished = run.results.checks.filter((c) => c.node === h.name && c.verdict === 'error');
    assert.ok(unfinished.length > 0, `${h.name}: every rule judged after the interrupt`);
  }
  assert.ok(readFileSync(join(OUT, 'interrupted', 'results.json'), 'utf8').length > 0);
});

test('an interrupt during the bucket-sharing probe: every node says its rules were interrupted', async () => {
  const { run, horizons } = await interruptedFleet('interrupted-sharing', (e) => /bucket sharing/.test(e.phase));
  assert.equal(run.interrupted, true);
  assert.ok((run.results as { interruptedAt?: string }).interruptedAt, 'results say when');
  for (const h of horizons) {
    const mine = run.results.checks.filter((c) => c.node === h.name);
    assert.deepEqual([...new Set(mine.map((c) => c.rule))].sort(), [...RL_RULES].sort(), `${h.name}: every RL rule`);
    assert.ok(
      mine.every((c) => c.verdict === 'error' && /interrupted/.test(c.message)),
      `${h.name}: ${mine.map((c) => `${c.rule} ${c.verdict} ${c.message}`).join('; ')}`,
    );
  }
});

/**
 * A probes-only fleet run of a reference of its own, aborted at the first probe progress event
 * `when` accepts. Its own: the buckets of the one the other tests share are spent, and a plan first
 * waits for its bucket to fill (burst + 1 intervals of 0.5 s) before its first probe request.
 */
async function interruptedFleet(dir: string, when: (e: { phase: string; requestsSent: number }) => boolean) {
  const fresh = await startFleetReference({ horizon: 4 }, { hourlyLimit: 7200, burst: 30 });
  const controller = new AbortController();
  try {
    const run = await runFleet({
      targets: [resolveTarget(fresh.target, {}, 'reference')],
      selection: parseSelectors('load'),
      outDir: join(OUT, dir),
      signal: controller.signal,
      progress: (e) => {
        if (e.stage === 'probes' && when(e)) controller.abort();
      },
    });
    return { run, horizons: fresh.target.nodes!.horizon as HorizonNode[] };
  } finally {
    await fresh.close();
  }
}

const failLines = (checks: ResultsFile['checks']) =>
  checks.filter((c) => c.verdict === 'fail').map((c) => `${c.rule} ${c.message}`);

/** Every horizon node's RL verdicts are clean, and the sharing probe found each a bucket of its own. */
function everyNodeClean(r: ResultsFile, fleet: FleetSection, horizons: HorizonNode[]): void {
  for (const h of horizons.slice(0, 4)) {
    const mine = r.checks.filter((c) => c.node === h.name);
    assert.deepEqual([...new Set(mine.map((c) => c.rule))].sort(), [...RL_RULES].sort(), `${h.name}: every RL rule`);
    assert.deepEqual(failLines(mine), [], `${h.name}: no fail`);
    assert.ok(mine.every((c) => c.target === 'reference' && c.nodeKind === 'horizon'));
    const node = fleet.nodes.find((n) => n.name === h.name)!;
    assert.equal(node.limiter?.limit, 31, `${h.name}: Limit = burst + 1`);
    // The sharing probe found a bucket of its own: probed at once with the others.
    const sharing = mine.find((c) => c.id === 'rl.rate.bucket-sharing')!;
    assert.equal(sharing.verdict, 'observed');
    assert.deepEqual(
      sharing.evidence.observation,
      { bucket: 'separate', sharesWith: [], probed: 'in parallel' },
      sharing.message,
    );
    const actual = sharing.evidence.actual as { requestsSent: number; reads: { node: string; purpose: string }[] };
    const sharingRequests = actual.requestsSent;
    // A screen a stall stretched past the floor on T is open, and the next one is made (load/model/
    // sharing.ts): this node was read SCREEN_ROUNDS times in each screen, and never pair-tested.
    const screens = new Set(actual.reads.map((x) => x.purpose.split(',')[0])).size;
    assert.ok(screens >= 1 && screens <= MAX_SCREENS, `${h.name}: ${screens} screens`);
    assert.equal(sharingRequests, SCREEN_ROUNDS * screens, `${h.name}: ${SCREEN_ROUNDS} reads per screen`);
    assert.ok(
      actual.reads.every((x) => x.purpose.startsWith('screen ')),
      `${h.name}: no pair test`,
    );
    assert.equal(node.limiter!.bucketAtStart, 'full', `${h.name}: what the sharing probe took had leaked back`);
    assert.ok(
      node.limiter!.requestsSent > 0 && node.requestsSent!.probes === node.limiter!.requestsSent + sharingRequests,
      `${h.name}: its spend is its plan's and its part of the sharing probe`,
    );
  }
}
