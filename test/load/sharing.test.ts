// The bucket-sharing judgement (load/model/sharing.ts) and its RL-09 observation (load/checks/sharing.ts)
// on virtual time: nodes answered by the independent simulator (sim-horizon.ts), one simulator per
// bucket, so nodes that share a bucket share a simulator. Requests go one at a time, as the sharing
// probe sends them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  groupBuckets,
  judgeDrop,
  MAX_PAIR_TESTS,
  mergeScreen,
  PAIR_TEST_REQUESTS,
  SCREEN_ROUNDS,
  screenNode,
  type BucketRead,
} from '../../load/model/sharing.js';
import { bucketOf, sharingCheck } from '../../load/checks/sharing.js';
import type { SharingOutcome } from '../../load/sharing.js';
import { SimHorizon } from './sim-horizon.js';

const T_LO = 500; // half of T = 1 s (3600/h)

interface Fleet {
  /** Node -> the bucket (simulator) it draws on. */
  buckets: Record<string, SimHorizon>;
  reads: BucketRead[];
  t: number;
  /** One-way network delay, ms. */
  delayMs: number;
}

function fleet(layout: Record<string, string>, delayMs = 0.3): Fleet {
  const sims = new Map<string, SimHorizon>();
  const buckets: Record<string, SimHorizon> = {};
  for (const [node, bucket] of Object.entries(layout)) {
    if (!sims.has(bucket))
      sims.set(
        bucket,
        // No cap to speak of: the probe keeps each node under its own (load/sharing.ts); these reads come back to back.
        new SimHorizon({
          hourlyLimit: 3600,
          burst: 100,
          perSecondCap: 1000,
          delay: () => ({ in: delayMs, out: delayMs }),
        }),
      );
    buckets[node] = sims.get(bucket)!;
  }
  return { buckets, reads: [], t: 0, delayMs };
}

function read(f: Fleet, node: string, purpose = 'read', edit?: (r: BucketRead) => BucketRead): BucketRead {
  const a = f.buckets[node]!.request(f.t, 'GET');
  const remaining = a.headers['X-Ratelimit-Remaining'];
  let r: BucketRead = {
    node,
    seq: f.reads.length + 1,
    purpose,
    sentAt: f.t,
    receivedAt: a.doneAt,
    status: a.status,
    ...(remaining !== undefined && { remaining: Number(remaining) }),
  };
  if (edit) r = edit(r);
  f.reads.push(r);
  f.t = a.doneAt + 1;
  return r;
}

function screen(f: Fleet, edit?: (r: BucketRead) => BucketRead) {
  const nodes = Object.keys(f.buckets);
  for (let round = 1; round <= SCREEN_ROUNDS; round++) for (const n of nodes) read(f, n, `round ${round}`, edit);
  return Object.fromEntries(nodes.map((n) => [n, screenNode(n, f.reads, T_LO)]));
}

const pairTestOn = (f: Fleet) => async (tested: string, against: string) => {
  const first = read(f, against);
  const sent = Array.from({ length: PAIR_TEST_REQUESTS }, () => read(f, tested));
  return judgeDrop(first, read(f, against), sent, T_LO);
};

async function judge(f: Fleet, maxTests?: number): Promise<SharingOutcome> {
  const s = screen(f);
  const nodes = Object.keys(f.buckets);
  const g = await groupBuckets(nodes, s, pairTestOn(f), maxTests);
  return {
    ...g,
    reads: f.reads,
    exchanges: {},
    requests: Object.fromEntries(nodes.map((n) => [n, f.reads.filter((r) => r.node === n).length])),
    tLoMs: T_LO,
  };
}

const verdicts = (s: SharingOutcome) => Object.fromEntries(Object.entries(s.screen).map(([n, j]) => [n, j.verdict]));
const sorted = (groups: string[][]) => groups.map((g) => [...g].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));

test("two nodes on one bucket: each falls by its own requests and the other's, so both share; one group", async () => {
  const s = await judge(fleet({ a: 'account', b: 'account' }));
  assert.deepEqual(verdicts(s), { a: 'shared', b: 'shared' });
  assert.deepEqual(
    s.reads.map((r) => r.remaining),
    [100, 99, 98, 97, 96, 95],
    'one Remaining, falling by one per request whichever node took it',
  );
  assert.equal(
    s.screen.a!.why,
    'Remaining fell by 4 (100 -> 96) with 2 of its own requests counted: more than a bucket of its own allows',
  );
  assert.deepEqual(sorted(s.groups), [['a', 'b']]);
  assert.equal(s.pairs.length, 0, 'two nodes that may share need no pair test');
  assert.deepEqual(bucketOf(s, 'b'), { verdict: 'shared', group: ['a', 'b'] });
});

test('two nodes with buckets of their own: each falls by its own requests only; two groups', async () => {
  const s = await judge(fleet({ a: 'a', b: 'b' }));
  assert.deepEqual(verdicts(s), { a: 'separate', b: 'separate' });
  assert.deepEqual(s.screen.a, {
    verdict: 'separate',
    from: 100,
    to: 98,
    own: 2,
    others: 2,
    elapsedMs: s.screen.a!.elapsedMs,
    separateAtMost: 2,
    sharedAtLeast: 3,
    why:
      'Remaining fell by 2 (100 -> 98) over its own 2 request(s); ' +
      'a bucket shared with any node that got 2 request(s) meanwhile would have fallen by at least 3',
  });
  assert.deepEqual(sorted(s.groups), [['a'], ['b']]);
});

test('four nodes, two buckets of two: the screen says all four share; pair tests sort them into their buckets', async () => {
  const s = await judge(fleet({ a: 'x', b: 'x', c: 'y', d: 'y' }));
  assert.deepEqual(verdicts(s), { a: 'shared', b: 'shared', c: 'shared', d: 'shared' });
  assert.deepEqual(sorted(s.groups), [
    ['a', 'b'],
    ['c', 'd'],
  ]);
  assert.deepEqual(
    s.pairs.map((p) => [p.tested, p.against, p.judgement.verdict]),
    [
      ['b', 'a', 'shared'],
      ['c', 'a', 'separate'],
      ['d', 'a', 'separate'],
      ['d', 'c', 'shared'],
    ],
  );
});

test('three nodes, two sharing: the third is judged on its own drop, no pair test needed', async () => {
  const s = await judge(fleet({ a: 'x', b: 'y', c: 'x' }));
  assert.deepEqual(verdicts(s), { a: 'shared', b: 'separate', c: 'shared' });
  assert.deepEqual(sorted(s.groups), [['a', 'c'], ['b']]);
  assert.equal(s.pairs.length, 0);
});

test('a slow network: the leak over the screen may hide a shared request, so the nodes are grouped, to be safe', async () => {
  // 120 ms each way: the screen of two nodes spans about 1.2 s, more than the floor on T (0.5 s) twice over.
  const s = await judge(fleet({ a: 'a', b: 'b' }, 120));
  assert.deepEqual(verdicts(s), { a: 'undetermined', b: 'undetermined' });
  assert.match(
    s.screen.a!.why,
    /^Remaining fell by 2 \(100 -> 98\) in \d+ ms: both a bucket of its own \(at most 2\) and a shared one \(at least [012]/,
  );
  assert.deepEqual(sorted(s.groups), [['a', 'b']]);
  assert.equal(bucketOf(s, 'a').verdict, 'undetermined');
});

test('over several screens, the first verdict that is not open stands', () => {
  const open = judgeDrop(...threeReads(400), T_LO);
  const clear = judgeDrop(...threeReads(1), T_LO);
  assert.equal(open.verdict, 'undetermined');
  assert.equal(clear.verdict, 'separate');
  assert.equal(mergeScreen(undefined, open), open);
  assert.equal(mergeScreen(open, clear), clear);
  assert.equal(mergeScreen(clear, open), clear);
});

/** a, b, a: a's two reads with b's one between, each `gapMs` after the last answer; no bucket shared. */
function threeReads(gapMs: number): [BucketRead, BucketRead, BucketRead[]] {
  const f = fleet({ a: 'a', b: 'b' });
  const first = read(f, 'a');
  f.t += gapMs;
  const between = [read(f, 'b'), read(f, 'b')];
  f.t += gapMs;
  return [first, read(f, 'a'), between];
}

test('a refused or headerless read says nothing: undetermined', () => {
  const f = fleet({ a: 'a', b: 'b' });
  const s = screen(f, (r) => (r.node === 'b' && r.seq === 4 ? { ...r, status: 429 } : r));
  assert.equal(s.a!.verdict, 'undetermined');
  assert.equal(s.a!.why, '#4 (b) got 429');
  const noHeader = screen(fleet({ a: 'a', b: 'b' }), (r) => (r.seq === 1 ? { ...r, remaining: undefined } : r));
  assert.equal(noHeader.a!.why, '#1 (a) got 200 without a Remaining');
});

test("another client on one node's bucket: it falls faster than its own requests, yet no node of the fleet moves it", async () => {
  const f = fleet({ a: 'a', b: 'b' });
  const other = f.buckets.a!;
  const s = screen(f, (r) => {
    if (r.node === 'a') other.request(r.receivedAt + 0.1, 'GET');
    return r;
  });
  assert.deepEqual(
    Object.values(s).map((j) => j.verdict),
    ['shared', 'separate'],
  );
  const g = await groupBuckets(['a', 'b'], s, pairTestOn(f));
  assert.deepEqual(sorted(g.groups), [['a'], ['b']], 'b shares with none: a is alone');
});

test('the pair tests are bounded: past them, the nodes left go with every node that may share', async () => {
  const s = await judge(fleet({ a: 'w', b: 'w', c: 'x', d: 'x', e: 'y', f: 'y' }), 2);
  assert.equal(s.pairs.length, 2);
  assert.match(s.note!, /^the pair tests ran out \(2\): 3 node\(s\) left were probed one after another/);
  assert.deepEqual(sorted(s.groups), [['a', 'b', 'c', 'd', 'e', 'f']]);
  // The default sorts eight nodes in four pairs (the worst order takes all of its tests).
  const eight = await judge(fleet({ a: 'w', b: 'w', c: 'x', d: 'x', e: 'y', f: 'y', g: 'z', h: 'z' }));
  assert.equal(eight.note, undefined);
  assert.equal(eight.pairs.length, MAX_PAIR_TESTS);
  assert.deepEqual(sorted(eight.groups), [
    ['a', 'b'],
    ['c', 'd'],
    ['e', 'f'],
    ['g', 'h'],
  ]);
});

test('RL-09 observation: which nodes share, seen how, and how the plans ran; a separate node says so', async () => {
  const shared = await judge(fleet({ 'ref/h1': 'account', 'ref/h2': 'account' }));
  const c = sharingCheck(shared, 'ref/h2', { after: 'ref/h1', waitedMs: 15_025 });
  assert.equal(c.rule, 'RL-09');
  assert.equal(c.verdict, 'observed');
  assert.equal(
    c.message,
    'shares its rate-limit bucket with ref/h1: Remaining fell by 4 (99 -> 95) with 2 of its own requests counted: ' +
      'more than a bucket of its own allows; probed after ref/h1 once the bucket was full again (waited 15.0 s for full quota)',
  );
  assert.deepEqual(c.evidence.observation, {
    bucket: 'shared',
    sharesWith: ['ref/h1'],
    probed: 'probed after ref/h1 once the bucket was full again (waited 15.0 s for full quota)',
    waitedMs: 15_025,
  });
  const actual = c.evidence.actual as { reads: { node: string; remaining: number }[]; requestsSent: number };
  assert.deepEqual(
    actual.reads.map((r) => `${r.node} ${r.remaining}`),
    ['ref/h1 100', 'ref/h2 99', 'ref/h1 98', 'ref/h2 97', 'ref/h1 96', 'ref/h2 95'],
  );
  assert.equal(actual.requestsSent, 3);

  const own = sharingCheck(await judge(fleet({ 'ref/h1': 'a', 'ref/h2': 'b' })), 'ref/h1');
  assert.equal(own.evidence.observation?.bucket, 'separate');
  assert.equal(own.evidence.observation?.probed, 'in parallel');
  assert.match(
    own.message,
    /^has a rate-limit bucket of its own: Remaining fell by 2 \(100 -> 98\) .*; probed in parallel with the other nodes$/,
  );
});
