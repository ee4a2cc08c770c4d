// Whether horizon nodes draw on one rate-limit bucket (a provider may key the GCRA bucket by the
// account rather than by the node), judged from Remaining alone. Between two answers of a node,
// with `own` of its own requests counted in between (the later one included):
//   a bucket of its own:  Remaining falls by at most `own` (recovery only ever raises it);
//   a shared bucket that `others` more requests reached in `elapsed` ms, T at least tLo:
//                         Remaining falls by at least own + others - ceil(elapsed / tLo)
//                         (each counted request moves the bucket's tat by T; the leak gives back
//                         at most ceil(elapsed / T) whole requests).
// When the two ranges do not meet, the drop tells them apart; otherwise the answer is open.
import { is2xx } from '../../src/http/status.js';

/** One answer of a node during the sharing probe (epoch ms). */
export interface BucketRead {
  /** The node, as the run names it. */
  node: string;
  /** Send order over every node: requests go one at a time, each after the previous answer. */
  seq: number;
  purpose: string;
  sentAt: number;
  receivedAt: number;
  status?: number;
  remaining?: number;
  reset?: number;
}

export type BucketVerdict = 'shared' | 'separate' | 'undetermined';

export interface DropJudgement {
  verdict: BucketVerdict;
  /** Remaining at the first and the last answer. */
  from?: number;
  to?: number;
  /** Its own requests counted between them (the last included), and the fewest any one other node got meanwhile. */
  own: number;
  others: number;
  elapsedMs: number;
  /** Most a bucket of its own falls, and least a shared one does. */
  separateAtMost: number;
  sharedAtLeast: number;
  why: string;
}

/** An accepted answer with a Remaining: a request the bucket counted, and what it showed. */
export const isCounted = (r: BucketRead): boolean => is2xx(r) && r.remaining !== undefined;

/** A judgement with nothing to judge on. */
export function openJudgement(why: string): DropJudgement {
  return { verdict: 'undetermined', own: 0, others: 0, elapsedMs: 0, separateAtMost: 0, sharedAtLeast: 0, why };
}

/**
 * Judges one node from two of its answers, `first` and `last`, and the requests sent between them
 * (one at a time: each after the previous answer). `shared` means it shares with some other node;
 * `separate` that it shares with none of those between (each could have added its requests).
 */
export function judgeDrop(
  first: BucketRead,
  last: BucketRead,
  between: readonly BucketRead[],
  tLoMs: number,
): DropJudgement {
  const own = between.filter((r) => r.node === first.node).length + 1;
  const perNode = new Map<string, number>();
  for (const r of between) if (r.node !== first.node) perNode.set(r.node, (perNode.get(r.node) ?? 0) + 1);
  const others = perNode.size ? Math.min(...perNode.values()) : 0;
  const elapsedMs = Math.max(0, last.receivedAt - first.sentAt);
  const separateAtMost = own;
  const sharedAtLeast = own + others - Math.ceil(elapsedMs / tLoMs);
  const base = { own, others, elapsedMs, separateAtMost, sharedAtLeast };
  const all = [first, ...between, last];
  // A refused request used no quota, and a missing Remaining says nothing: no bound holds.
  const unusable = all.find((r) => !isCounted(r));
  if (unusable)
    return {
      ...base,
      verdict: 'undetermined',
      why: `#${unusable.seq} (${unusable.node}) got ${unusable.status ?? 'no answer'}${is2xx(unusable) ? ' without a Remaining' : ''}`,
    };
  const from = first.remaining!;
  const to = last.remaining!;
  const drop = from - to;
  const seen = { ...base, from, to };
  if (drop > separateAtMost)
    return {
      ...seen,
      verdict: 'shared',
      why: `Remaining fell by ${drop} (${from} -> ${to}) with ${own} of its own requests counted: more than a bucket of its own allows`,
    };
  if (drop < sharedAtLeast)
    return {
      ...seen,
      verdict: 'separate',
      why:
        `Remaining fell by ${drop} (${from} -> ${to}) over its own ${own} request(s); a bucket shared with ` +
        `any node that got ${others} request(s) meanwhile would have fallen by at least ${sharedAtLeast}`,
    };
  return {
    ...seen,
    verdict: 'undetermined',
    why:
      `Remaining fell by ${drop} (${from} -> ${to}) in ${Math.round(elapsedMs)} ms: both a bucket of its own ` +
      `(at most ${separateAtMost}) and a shared one (at least ${sharedAtLeast}, T at least ${Math.round(tLoMs)} ms) allow it`,
  };
}

/** Rounds of the screen: each node is read this many times, in the same order every round. */
export const SCREEN_ROUNDS = 3;
/**
 * Most screens one probe makes. A screen the machine or the network stretched past the floor on T
 * can leave a drop open (the leak may have hidden another node's request); the next one may not.
 * A refusal or a missing header would come back again: no screen follows one.
 */
export const MAX_SCREENS = 3;

/** A node's verdict over the screens so far: the first that is not open stands. */
export function mergeScreen(before: DropJudgement | undefined, next: DropJudgement): DropJudgement {
  return before && before.verdict !== 'undetermined' ? before : next;
}

/**
 * The screen: every node read SCREEN_ROUNDS times, round after round, one request at a time. Between
 * a node's first and last read come SCREEN_ROUNDS - 1 of its own requests and as many of every other
 * node's, so a node that shares its bucket with any other falls twice as fast as one that does not.
 * The screen says which nodes share with some other, not with which.
 */
export function screenNode(node: string, reads: readonly BucketRead[], tLoMs: number): DropJudgement {
  const mine = reads.filter((r) => r.node === node);
  const first = mine[0];
  const last = mine[mine.length - 1];
  if (!first || !last || first === last) return openJudgement('fewer than two answers');
  return judgeDrop(
    first,
    last,
    reads.filter((r) => r.seq > first.seq && r.seq < last.seq),
    tLoMs,
  );
}

/** The bucket groups: nodes in one group are probed one after another; groups in parallel. */
export interface BucketGroups {
  groups: string[][];
  /** How each node was judged, and which pair tests joined or split it. */
  screen: Record<string, DropJudgement>;
  pairs: { tested: string; against: string; judgement: DropJudgement }[];
  /** Set when the pair tests ran out: the nodes left were put together, to be safe. */
  note?: string;
}

/** Requests a pair test sends to the node tested, between two reads of the node it is tested against. */
export const PAIR_TEST_REQUESTS = 2;
/** Most pair tests one sharing probe makes; past them, the nodes left are grouped with every other that may share. */
export const MAX_PAIR_TESTS = 16;
/** T is taken to be at least this fraction of the declared T (3600 s / hourly limit) when judging a drop. */
export const T_FLOOR_FACTOR = 0.5;

/** Reads `against`, sends PAIR_TEST_REQUESTS to `tested`, reads `against` again; judges `against`'s drop. */
export type PairTest = (tested: string, against: string) => Promise<DropJudgement>;

/**
 * Nodes the screen found separate get a group each. The rest may share: two of them are one group
 * (each shares with some other node, or might); three or more are sorted by pair tests, each joining
 * the first group whose first node its requests move (or might: an open answer joins, to be safe).
 */
export async function groupBuckets(
  nodes: readonly string[],
  screen: Record<string, DropJudgement>,
  pairTest: PairTest,
  maxTests = MAX_PAIR_TESTS,
): Promise<BucketGroups> {
  const out: BucketGroups = { groups: [], screen, pairs: [] };
  const mayShare = nodes.filter((n) => screen[n]?.verdict !== 'separate');
  out.groups.push(...nodes.filter((n) => screen[n]?.verdict === 'separate').map((n) => [n]));
  if (mayShare.length <= 2) {
    if (mayShare.length) out.groups.push([...mayShare]);
    return out;
  }
  const groups: string[][] = [];
  for (const [i, node] of mayShare.entries()) {
    let home: string[] | undefined;
    for (const g of groups) {
      if (out.pairs.length >= maxTests) {
        out.note = `the pair tests ran out (${maxTests}): ${mayShare.length - i} node(s) left were probed one after another with every node that may share`;
        out.groups.push([...groups.flat(), ...mayShare.slice(i)]);
        return out;
      }
      const judgement = await pairTest(node, g[0]!);
      out.pairs.push({ tested: node, against: g[0]!, judgement });
      if (judgement.verdict !== 'separate') {
        home = g;
        break;
      }
    }
    if (home) home.push(node);
    else groups.push([node]);
  }
  out.groups.push(...groups);
  return out;
}
