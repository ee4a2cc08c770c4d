// RL-14: whether a varied request (load/variations.ts) was answered from the token's bucket. The
// token's bucket is the GCRA replay of the plain requests (and of the variations it explains): a
// variation answered the way that bucket allows at that moment shares it; one accepted with more
// Remaining than the bucket can have, or accepted while the bucket surely refuses, or accepted
// without the limiter's headers was not limited by it.
import { is2xx } from '../../src/http/status.js';
import type { Sample } from '../sample.js';
import type { Prediction } from './gcra.js';
import { hasLimiterHeaders } from './proxy.js';

/**
 * - `refused`: the limiter's refusal (429 with its headers) where the token's bucket may be empty.
 * - `shared`: accepted with Remaining the token's bucket allows.
 * - `fresh`: accepted with more Remaining than the token's bucket can have: a bucket of its own.
 * - `beyond`: accepted, with plausible Remaining, while the token's bucket surely refuses.
 * - `unlimited`: accepted without the limiter's headers.
 * - `elsewhere`: the limiter's refusal while the token's bucket surely accepts (another, empty bucket: never an escape).
 * - `held`: refused without the limiter's headers (the proxy's cap, or a limiter that drops them): it did not get through.
 * - `not-read`: another status (401, 403, ...): the node did not take the request as the token's; not tested.
 * - `no-answer`: the request failed.
 * - `unjudged`: accepted, but no model of the bucket to compare with (no Limit or T from the plain requests).
 */
export type BucketFit =
  | 'refused'
  | 'shared'
  | 'fresh'
  | 'beyond'
  | 'unlimited'
  | 'elsewhere'
  | 'held'
  | 'not-read'
  | 'no-answer'
  | 'unjudged';

/** The fits that break RL-14: the request got past the token's quota. */
const ESCAPES: ReadonlySet<BucketFit> = new Set(['fresh', 'beyond', 'unlimited']);

/**
 * Remaining may exceed the model's highest by this much before it counts as another bucket: the
 * model's ranges already hold network delay and T's uncertainty; this is for a rounding at an edge.
 * A fresh bucket shows Limit - 1, far above any such slack once the drain has used some quota.
 */
export const REMAINING_SLACK = 1;

/** How a variation's answer relates to the token's bucket, given what the replay predicted for it (undefined: no model). */
export function bucketFit(s: Sample, p: Prediction | undefined): BucketFit {
  if (s.status === undefined) return 'no-answer';
  if (!is2xx(s)) {
    if (!hasLimiterHeaders(s)) return s.status === 429 || s.status === 503 ? 'held' : 'not-read';
    if (s.status !== 429) return 'not-read';
    return p && !p.denyPossible ? 'elsewhere' : 'refused';
  }
  if (!p) return 'unjudged';
  if (!hasLimiterHeaders(s)) return 'unlimited';
  const most = p.accepted ? p.accepted.remaining.hi : 0;
  if (s.rl.remaining !== undefined && s.rl.remaining > most + REMAINING_SLACK) return 'fresh';
  return p.acceptPossible ? 'shared' : 'beyond';
}

/**
 * The fits that show a bucket other than the token's (or none) behind the variation itself: a
 * Remaining the token's bucket cannot have, or no limiter at all. (Accepted `beyond` or refused
 * `elsewhere` may as well mean the model of the token's bucket is wrong.)
 */
export const anotherBucket = (fit: BucketFit): boolean => fit === 'fresh' || fit === 'unlimited';

/** The fits that take a variation out of the token's bucket model: it was not that bucket's answer. */
export const outsideBucket = (fit: BucketFit): boolean => ESCAPES.has(fit) || fit === 'elsewhere' || fit === 'not-read';

/** The plain request's answer last received before s was sent: what the token's bucket said just before. */
export function plainBefore(samples: readonly Sample[], s: Sample): Sample | undefined {
  let best: Sample | undefined;
  for (const x of samples)
    if (!x.variation && x.status !== undefined && x.receivedAt <= s.sentAt && (!best || x.receivedAt > best.receivedAt))
      best = x;
  return best;
}
