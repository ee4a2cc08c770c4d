// RL-09's observation for a fleet: which horizon nodes of a deployment draw on one rate-limit
// bucket (a provider may key it by the account), seen how (the Remaining values of the sharing
// probe, load/sharing.ts), and how their plans were run because of it. Recorded, never failed:
// the description's limits speak of customers, so a bucket per account is allowed.
import type { CheckResult } from '../../src/verdict.js';
import { T_FLOOR_FACTOR, type BucketRead, type BucketVerdict } from '../model/sharing.js';
import type { SharingOutcome } from '../sharing.js';

/** How a node's plan ran: alongside the other groups, or after a node of its own group (and how long it waited for full quota). */
export interface PlanOrder {
  after?: string;
  waitedMs?: number;
  /** Why the wait was cut short, when it was. */
  note?: string;
}

/** Whether a node's group shares one bucket (`shared`), only may (`undetermined`), or it has its own (`separate`). */
export function bucketOf(s: SharingOutcome, node: string): { verdict: BucketVerdict; group: string[] } {
  const group = s.groups.find((g) => g.includes(node)) ?? [node];
  if (group.length === 1) return { verdict: 'separate', group };
  const seen =
    group.some((n) => s.screen[n]?.verdict === 'shared') ||
    s.pairs.some((p) => p.judgement.verdict === 'shared' && group.includes(p.tested) && group.includes(p.against));
  return { verdict: seen ? 'shared' : 'undetermined', group };
}

const readRow = (r: BucketRead) => ({
  node: r.node,
  seq: r.seq,
  purpose: r.purpose,
  status: r.status ?? null,
  remaining: r.remaining ?? null,
  reset: r.reset ?? null,
});

function orderText(order: PlanOrder | undefined): string {
  if (!order?.after) return 'probed first of its group';
  const waited = order.waitedMs === undefined ? '' : ` (waited ${(order.waitedMs / 1000).toFixed(1)} s for full quota)`;
  return `probed after ${order.after} once the bucket was full again${waited}${order.note ? `; ${order.note}` : ''}`;
}

export function sharingCheck(s: SharingOutcome, node: string, order?: PlanOrder): CheckResult {
  const { verdict, group } = bucketOf(s, node);
  const others = group.filter((n) => n !== node);
  const screen = s.screen[node];
  const seen = screen ? `${screen.why}` : 'not read';
  let message: string;
  if (verdict === 'separate') {
    const alone = screen?.verdict === 'separate' ? seen : `no other node's requests moved its Remaining (${seen})`;
    message = `has a rate-limit bucket of its own: ${alone}; probed in parallel with the other nodes`;
  } else if (verdict === 'shared')
    message = `shares its rate-limit bucket with ${others.join(', ')}: ${seen}; ${orderText(order)}`;
  else message = `may share its rate-limit bucket with ${others.join(', ')} (${seen}); to be safe, ${orderText(order)}`;
  const pairs = s.pairs.filter((p) => p.tested === node || p.against === node);
  return {
    id: 'rl.rate.bucket-sharing',
    rule: 'RL-09',
    verdict: 'observed',
    message,
    evidence: {
      observation: {
        bucket: verdict,
        sharesWith: verdict === 'separate' ? [] : others,
        probed: verdict === 'separate' ? 'in parallel' : orderText(order),
        ...(order?.waitedMs !== undefined && { waitedMs: Math.round(order.waitedMs) }),
      },
      actual: {
        requestsSent: s.requests[node] ?? 0,
        screen,
        ...(pairs.length && { pairs }),
        ...(s.note && { note: s.note }),
        ...(s.stopped && { stopped: s.stopped }),
        reads: s.reads.map(readRow),
      },
      tolerance:
        `a bucket of its own falls by at most its own requests; a shared one by at least its own plus another node's, ` +
        `less what leaks meanwhile at T of at least ${Math.round(s.tLoMs)} ms (${T_FLOOR_FACTOR} x the declared T)`,
      exchanges: (s.exchanges[node] ?? []).slice(0, 6),
    },
  };
}
