// RL-14 (the quota and the cap belong to the token), judged in two parts: `bucket`, every varied
// request against the token's bucket (load/model/integrity.ts), above all those sent while it was
// empty; and `cap`, the burst above the cap that also carried varied requests (RL-10's window).
import type { VariationJudgement } from '../analysis.js';
import { mostCertainInWindow } from '../model/cap.js';
import { REMAINING_SLACK } from '../model/integrity.js';
import type { Sample } from '../session.js';
import { ok, type CheckInput, type Finding, type Known } from './common.js';

export type IntegrityVerdict = 'pass' | 'fail' | 'not tested';

/** One varied request as the report's table shows it. */
export interface IntegrityRow {
  variation: string;
  /** The variation's stable id (load/variations.ts). */
  id: string;
  /**
   * Where it was sent: first in the drain while quota was plentiful, with the burst above the cap,
   * between the drain's requests under the cap, or while the bucket was empty.
   */
  when: 'quota left' | 'burst above the cap' | 'under the cap' | 'empty bucket';
  /** Status, or the error. */
  answer: string;
  remaining: string | null;
  verdict: IntegrityVerdict;
  why: string;
  /** The plain request's answer just before it. */
  plainBefore: string | null;
  seq: number;
}

const answerOf = (s: Sample | undefined): string => (s ? String(s.status ?? s.error ?? 'no answer') : 'none');

function verdictOf(j: VariationJudgement): { verdict: IntegrityVerdict; why: string } {
  const s = j.sample;
  const most = j.prediction?.accepted ? j.prediction.accepted.remaining.hi : 0;
  switch (j.fit) {
    case 'refused':
      return { verdict: 'pass', why: "refused by the limiter, as the token's bucket does then" };
    case 'shared':
      return {
        verdict: 'pass',
        why: `accepted as the token's bucket allows then (Remaining ${s.rl.raw.remaining}, at most ${most})`,
      };
    case 'elsewhere':
      return {
        verdict: 'pass',
        why: "refused by the limiter though the token's bucket had quota: limited all the same",
      };
    case 'fresh':
      return {
        verdict: 'fail',
        why: `accepted with Remaining ${s.rl.raw.remaining} while the token's bucket allowed at most ${most}: a bucket of its own`,
      };
    case 'beyond':
      return {
        verdict: 'fail',
        why: `accepted (Remaining ${s.rl.raw.remaining ?? '-'}) while the token's bucket surely refused: more than the GCRA allows`,
      };
    case 'unlimited':
      return { verdict: 'fail', why: "accepted without the limiter's headers: not limited at all" };
    case 'held':
      return {
        verdict: 'not tested',
        why: `refused with ${s.status} without rate-limit headers (the proxy's cap, or a limiter that drops them)`,
      };
    case 'not-read':
      return { verdict: 'not tested', why: `the node refused it (${s.status}): it does not take the token this way` };
    case 'no-answer':
      return { verdict: 'not tested', why: `no answer (${s.error ?? 'no response'})` };
    case 'unjudged':
      return { verdict: 'not tested', why: "no model of the token's bucket to compare with (Limit or T unknown)" };
  }
}

/** Every varied request of the run as a row: the report's table and RL-14's evidence. */
export function integrityRows(input: Pick<CheckInput, 'a' | 'plan'>): IntegrityRow[] {
  const drain = input.plan.drain;
  const places: [ReadonlySet<Sample>, IntegrityRow['when']][] = [
    [new Set(drain?.leadInVariations ?? []), 'quota left'],
    [new Set(drain?.burstVariations ?? []), 'burst above the cap'],
    [new Set(drain?.underCapVariations ?? []), 'under the cap'],
  ];
  return input.a.variations.map((j) => {
    const s = j.sample;
    return {
      variation: s.variation!.label,
      id: s.variation!.id,
      when: places.find(([sent]) => sent.has(s))?.[1] ?? 'empty bucket',
      answer: answerOf(s),
      remaining: s.rl.raw.remaining ?? null,
      ...verdictOf(j),
      plainBefore: j.plainBefore
        ? `${answerOf(j.plainBefore)}${j.plainBefore.rl.raw.remaining !== undefined ? ` (Remaining ${j.plainBefore.rl.raw.remaining})` : ''}`
        : null,
      seq: s.seq,
    };
  });
}

const labels = (names: readonly string[]) => [...new Set(names)].join('; ');
const variationOf = (s: Sample) => s.variation!.label;

function bucketPart(input: CheckInput, rows: IntegrityRow[]): Finding {
  const bySeq = new Map(input.a.variations.map((j) => [j.sample.seq, j]));
  const failed = rows.filter((r) => r.verdict === 'fail');
  const empty = rows.filter((r) => r.when === 'empty bucket');
  const untested = empty.filter((r) => r.verdict === 'not tested');
  const notSent = input.plan.integrity?.notSent ?? [];
  const evidence = {
    expected:
      "each varied request is refused like the plain one, or accepted as the token's bucket allows at that moment " +
      '(GCRA replay of the plain requests)',
    actual: { variations: rows, notSent: notSent.map((n) => `${n.variation.label}: ${n.why}`) },
    tolerance: `Remaining may exceed the replay's highest by ${REMAINING_SLACK} before it counts as a bucket of its own`,
  };
  if (failed.length) {
    const first = failed[0]!;
    const more =
      failed.length > 1 ? ` (+${failed.length - 1} more: ${labels(failed.slice(1).map((r) => r.variation))})` : '';
    const pairs = failed.flatMap((r) => {
      const j = bySeq.get(r.seq)!;
      return [j.plainBefore, j.sample];
    });
    return {
      part: 'bucket',
      verdict: 'fail',
      message: `${first.variation}: ${first.why}; the plain request just before got ${first.plainBefore ?? 'no answer'}${more}`,
      evidence,
      samples: pairs,
    };
  }
  if (!input.plan.integrity)
    return {
      part: 'bucket',
      verdict: 'error',
      message: 'the requests varied at an empty bucket were not sent (the drain ended without a denial)',
      evidence: { ...evidence, cause: 'no integrity phase' },
    };
  const tested = empty.filter((r) => r.verdict === 'pass');
  const skipped = [
    ...untested.map((r) => `${r.variation} (${r.why})`),
    ...notSent.map((n) => `${n.variation.label} (not sent: ${n.why})`),
  ];
  const notTested = skipped.length ? `; not tested: ${skipped.join('; ')}` : '';
  if (!tested.length)
    return {
      part: 'bucket',
      verdict: 'error',
      message: `no varied request reached the limiter while the bucket was empty${notTested}`,
      evidence: { ...evidence, cause: 'nothing tested' },
      samples: untested.slice(0, 3).map((r) => bySeq.get(r.seq)?.sample),
    };
  return {
    part: 'bucket',
    verdict: 'pass',
    message: `${tested.length} varied request(s) were limited as the token's while its bucket was empty: ${labels(tested.map((r) => r.variation))}${notTested}`,
    evidence,
    samples: [input.plan.integrity.denial, ...tested.slice(0, 3).map((r) => bySeq.get(r.seq)?.sample)],
  };
}

function capPart(input: CheckInput, drain: Known['drain']): Finding {
  const mixed = drain.underCapVariations ?? [];
  const varied = [...(drain.burstVariations ?? []), ...mixed];
  // Stressed: more than the cap surely sent within one second where the varied requests went.
  const offered = Math.max(
    mostCertainInWindow([...drain.burst, ...(drain.burstVariations ?? [])]).count,
    mixed.length ? mostCertainInWindow([...drain.underCap, ...mixed]).count : 0,
  );
  const accepted = input.a.all.filter(ok);
  const w = mostCertainInWindow(accepted);
  const members = w.members.map((i) => accepted[i]!);
  const inWindow = members.filter((s) => s.variation);
  const evidence = {
    expected: `at most ${input.cap} requests accepted in any one second, varied ones included`,
    actual: {
      mostAcceptedInOneSecond: w.count,
      variedAmongThem: inWindow.map(variationOf),
      windowMs: Math.round(w.to - w.from),
      varied: varied.map((s) => `${variationOf(s)}: ${answerOf(s)}`),
      behindSpacingProxy: mixed.length > 0,
      surelyInOneSecond: offered,
    },
    tolerance:
      "an answer counts in a window only if its whole [sent, received] interval lies inside it (RL-10's allowance)",
  };
  if (!drain.burst.length)
    return {
      part: 'cap',
      verdict: 'error',
      message: `inconclusive: no burst above the cap was sent${drain.burstNote ? ` (${drain.burstNote})` : ''}`,
      evidence: { ...evidence, cause: drain.burstNote ?? 'no burst' },
    };
  if (!varied.length)
    return {
      part: 'cap',
      verdict: 'error',
      message: 'inconclusive: no varied request went with the burst above the cap',
      evidence: { ...evidence, cause: 'no varied requests' },
    };
  if (offered <= input.cap)
    return {
      part: 'cap',
      verdict: 'error',
      message: `inconclusive: at most ${offered} requests surely arrived within one second where varied ones went, not more than the cap`,
      evidence: { ...evidence, cause: 'cap not stressed' },
    };
  if (w.count > input.cap) {
    const plain = w.count - inWindow.length;
    // RL-10's failure (the same window, judged as RL-10 judges it) makes this part moot: nothing went
    // untested, there is no cap to step around. The bucket part is judged all the same.
    if (plain > input.cap)
      return {
        part: 'cap',
        verdict: 'skipped',
        message:
          `skipped: ${plain} plain requests were accepted within one second: the cap does not hold for the plain request ` +
          'either (RL-10 fails), so whether varied ones step around it is moot',
        evidence: { ...evidence, cause: 'plain requests over the cap (RL-10)' },
      };
    return {
      part: 'cap',
      verdict: 'fail',
      message:
        `${w.count} requests were accepted within ${Math.round(w.to - w.from)} ms, over the cap of ${input.cap}: ` +
        `${plain} plain and ${inWindow.length} varied (${labels(inWindow.map(variationOf))})`,
      evidence,
      samples: [...inWindow, members[0], members[members.length - 1]],
    };
  }
  return {
    part: 'cap',
    verdict: 'pass',
    message:
      `at most ${w.count} requests were accepted in any one second (cap ${input.cap}) while ${varied.length} varied ` +
      `request(s) went ${mixed.length ? 'with the burst and between the first requests under the cap' : 'with the burst at twice the cap'}: ` +
      labels(varied.map(variationOf)),
    evidence,
    samples: varied,
  };
}

/** Judged once the drain ran (index.ts: need `drain`). */
export function checkIntegrity(input: CheckInput, { drain }: Pick<Known, 'drain'>): Finding[] {
  const rows = integrityRows(input);
  return [bucketPart(input, rows), capPart(input, drain)];
}
