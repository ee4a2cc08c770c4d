// Faults of the horizon-style node: its rate limiter (RL-*), the proxy cap in front of it, and
// its fee_stats path (NODE-07). Each is the kind of mistake a real deployment makes - a header
// dropped by a handler, a window counter instead of the GCRA, a proxy with the wrong cap.
import type { FaultDef } from './types.js';

const defs = [
  {
    name: 'rl-no-headers-on-429',
    rule: 'RL-01',
    family: 'limiter',
    description:
      'The denied handler writes its own headers: a limiter 429 carries retry-after but no X-Ratelimit-* headers.',
  },
  {
    name: 'rl-no-headers-on-head',
    rule: 'RL-01',
    family: 'limiter',
    description:
      'HEAD /fee_stats is counted by the limiter but answered by a handler that drops the X-Ratelimit-* headers.',
  },
  {
    name: 'rl-limit-drifts',
    rule: 'RL-02',
    family: 'limiter',
    description:
      'Two instances behind a balancer advertise different Limits (burst+1 and burst+11) over one shared limiter; the header alternates.',
  },
  {
    name: 'rl-reset-static',
    rule: 'RL-03',
    family: 'limiter',
    description:
      'X-Ratelimit-Reset reports the emission interval (time until one more request, ceil(T)) instead of the time until full quota: it never grows.',
  },
  {
    name: 'rl-head-free',
    rule: 'RL-03',
    family: 'limiter',
    description:
      'HEAD /fee_stats is answered with the headers a counted request would get, but the limiter never counts it: only GETs use quota.',
  },
  {
    name: 'rl-recovery-stuck',
    rule: 'RL-04',
    family: 'limiter',
    description:
      'The leak is applied lazily, at most 2 intervals (2 T) per request: after a pause as long as Reset the quota is still not full.',
  },
  {
    name: 'rl-fixed-window',
    rule: 'RL-05',
    family: 'limiter',
    description:
      'A fixed-window counter (Limit requests per window of Limit x T, opened by the first request) instead of the GCRA: ' +
      'no gradual recovery, Remaining jumps back to full at the boundary.',
  },
  {
    name: 'rl-replayed-refusal',
    rule: 'RL-05',
    family: 'limiter',
    description:
      "A response cache in front of the limiter keeps the limiter's first 429 for its retry-after and replays it once, " +
      'to the first request in that time the limiter would take (about one T after the last acceptance); ' +
      'the replayed retry-after stays honest: the request after it is accepted.',
  },
  {
    name: 'rl-replayed-refusal-stale',
    rule: 'RL-07',
    family: 'limiter',
    description:
      "A response cache in front of the limiter keeps the limiter's first 429 and replays it to the next two requests " +
      'the limiter would take: a request sent once the replayed retry-after has passed is refused again.',
  },
  {
    name: 'rl-retry-after-missing',
    rule: 'RL-06',
    family: 'limiter',
    description: 'A limiter 429 carries no retry-after header.',
  },
  {
    name: 'rl-retry-after-ms',
    rule: 'RL-07',
    family: 'limiter',
    description: 'retry-after is written in milliseconds (1000 for one second), far longer than the wait.',
  },
  {
    name: 'rl-retry-after-short',
    rule: 'RL-07',
    family: 'limiter',
    description: 'retry-after is always 0, while the real wait is up to one T.',
  },
  {
    name: 'rl-remaining-overstated',
    rule: 'RL-08',
    family: 'limiter',
    description:
      'An accepted response never shows Remaining 0: the last unit is reported as 1 left, and the next request gets 429.',
  },
  {
    name: 'rl-wrong-hourly-rate',
    rule: 'RL-09',
    family: 'limiter',
    description:
      'The limiter runs at 5/6 of the configured hourly limit (3000/h on a 3600/h node, T = 1.2 s); its headers are consistent with that rate.',
  },
  {
    name: 'rl-cap-25',
    rule: 'RL-10',
    family: 'limiter',
    description: 'The proxy cap is set 5 too high (25 a second instead of 20).',
  },
  {
    name: 'rl-cap-calendar-second',
    rule: 'RL-10',
    family: 'limiter',
    description:
      'The proxy counts 20 per calendar second of its clock instead of any one second: up to 40 accepted inside one second across a boundary.',
  },
  {
    name: 'rl-cap-token-bucket',
    rule: 'RL-10',
    family: 'limiter',
    description:
      'The proxy cap is a token bucket of 20 refilled at 20 a second while it bursts: ' +
      'a burst from full gets 20 plus what refills meanwhile (about 35 in the first 0.75 s).',
  },
  {
    name: 'rl-no-cap',
    rule: 'RL-10',
    family: 'limiter',
    description: 'No per-second cap in the proxy: a burst is limited only by the GCRA quota.',
  },
  {
    name: 'rl-burst-short',
    rule: 'RL-11',
    family: 'limiter',
    description:
      'The limiter runs with burst 5 below what Limit advertises: the first 429 comes 5 requests early (Remaining still 5 by the advertised quota).',
  },
  {
    name: 'rl-reset-off',
    rule: 'RL-12',
    family: 'limiter',
    description:
      'X-Ratelimit-Reset is padded by half of the drain time beyond the first interval (151 instead of 101 at exhaustion): it disagrees with Remaining and T.',
  },
  {
    name: 'rl-reset-epoch',
    rule: 'RL-12',
    family: 'limiter',
    description:
      'X-Ratelimit-Reset is written as a Unix timestamp (the second the bucket is full again, as several public APIs do) ' +
      'instead of the seconds until then: about 1.8 billion where Limit x T allows a few dozen.',
  },
  {
    name: 'rl-key-query-string',
    rule: 'RL-14',
    family: 'limiter',
    description:
      'The cap and the GCRA are keyed by the raw query string: an extra parameter or another order starts a fresh bucket, ' +
      'and every header-token request shares the bucket of the empty query.',
  },
  {
    name: 'rl-key-forwarded-for',
    rule: 'RL-14',
    family: 'limiter',
    description:
      'The cap and the GCRA are keyed by the token plus the client-sent X-Forwarded-For (a proxy that trusts it): each new address starts a fresh bucket.',
  },
  {
    name: 'rl-key-query-only',
    rule: 'RL-14',
    family: 'limiter',
    description:
      'Only the token in the auth query goes through the limiter: as Authorization: Bearer or X-Auth-Token it is served ' +
      'without cap, quota or rate-limit headers.',
  },
  {
    name: 'fee-stats-not-json',
    rule: 'NODE-07',
    family: 'nodes',
    description: 'GET /fee_stats answers 200 text/plain `key=value` lines instead of JSON (limiter headers intact).',
  },
] as const satisfies readonly FaultDef[];

export type LimiterFaultName = (typeof defs)[number]['name'];

export const LIMITER_FAULTS: readonly FaultDef[] = defs;

/** Typed switch test, so a misspelled fault name is a compile error. */
export function limiterFault(faults: ReadonlySet<string>, name: LimiterFaultName): boolean {
  return faults.has(name);
}
