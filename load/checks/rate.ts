// RL-09: the long-run rate matches the customer kind. The emission interval estimated from the
// headers and from recovery (the replay's band of T values) is compared with 3600 s / hourly limit.
// Without a stated plan the check does not assume one: it says which plan the rate matches, and
// fails only a rate no plan allows (shared is fixed; dedicated can only be raised above its default).
import type { EmissionEstimate } from '../model/estimate.js';
import { DEFAULT_HOURLY_LIMIT } from '../../src/target-file/types.js';
import { fmtT, type CheckInput, type Finding, type Known } from './common.js';

/** Relative tolerance on T, stated in every RL-09 result. */
export const RATE_TOLERANCE = 0.02;

export function expectedEmissionIntervalMs(hourlyLimit: number): number {
  return 3_600_000 / hourlyLimit;
}

type Fit = 'within' | 'outside' | 'straddles' | 'too uncertain';

/** How the estimate's band lies against the ±tolerance window around the T of `hourlyLimit`. */
function fit(est: EmissionEstimate, hourlyLimit: number): Fit {
  const expected = expectedEmissionIntervalMs(hourlyLimit);
  const tol = expected * RATE_TOLERANCE;
  if (est.uncertaintyMs > tol) return 'too uncertain';
  if (est.band.hi < expected - tol || est.band.lo > expected + tol) return 'outside';
  if (est.band.lo >= expected - tol && est.band.hi <= expected + tol) return 'within';
  return 'straddles';
}

const measured = (est: EmissionEstimate) =>
  `T estimated ${fmtT(est.band)} (${Math.round(3_600_000 / est.emissionIntervalMs)}/h, ${est.method})`;

function actualOf(est: EmissionEstimate) {
  const r2 = (v: number) => Math.round(v * 100) / 100;
  return {
    emissionIntervalMs: r2(est.emissionIntervalMs),
    band: est.band,
    uncertaintyMs: r2(est.uncertaintyMs),
    perHour: Math.round(3_600_000 / est.emissionIntervalMs),
    method: est.method,
    unexplainedAnswers: est.unexplained,
  };
}

/** No customer or hourly limit was stated: which plan does the measured rate match? */
function withoutPlan(est: EmissionEstimate): Finding {
  const plans = Object.entries(DEFAULT_HOURLY_LIMIT).sort(([, a], [, b]) => a - b);
  const fits = plans.map(([customer, hourlyLimit]) => ({ customer, hourlyLimit, fit: fit(est, hourlyLimit) }));
  const evidence = {
    expected: {
      plan: 'not stated (--customer, or nodes.horizon.customer / hourlyLimit, states one)',
      plans: Object.fromEntries(
        plans.map(([c, h]) => [c, { hourlyLimit: h, emissionIntervalMs: expectedEmissionIntervalMs(h) }]),
      ),
    },
    actual: actualOf(est),
    tolerance: `±${RATE_TOLERANCE * 100}% of each plan's T; the estimate's band must lie within it`,
    observation: { matchingPlan: fits.find((f) => f.fit === 'within')?.customer ?? null },
  };
  const what = measured(est);
  const match = fits.find((f) => f.fit === 'within');
  if (match)
    return {
      verdict: 'pass',
      message: `${what}: the ${match.customer} plan (${match.hourlyLimit}/h) within ${RATE_TOLERANCE * 100}%; no plan was stated, so none was assumed`,
      evidence,
    };
  const dedicated = DEFAULT_HOURLY_LIMIT.dedicated;
  const top = expectedEmissionIntervalMs(dedicated) * (1 - RATE_TOLERANCE);
  if (est.band.hi < top)
    return {
      verdict: 'observed',
      message:
        `${what}: faster than the default dedicated plan (${dedicated}/h), ` +
        'as a dedicated plan raised on request would be; state it with --hourly-limit to check it',
      evidence,
    };
  if (fits.some((f) => f.fit !== 'outside'))
    return {
      verdict: 'error',
      message: `inconclusive: ${what}; the estimate is too vague to tell the plans apart within ±${RATE_TOLERANCE * 100}%`,
      evidence: { ...evidence, cause: 'band straddles the tolerance' },
    };
  return {
    verdict: 'fail',
    message: `${what}: matches no plan (shared ${DEFAULT_HOURLY_LIMIT.shared}/h, dedicated ${dedicated}/h or raised above it)`,
    evidence,
  };
}

export function checkRate(input: CheckInput, { estimate: est }: Pick<Known, 'estimate'>): Finding {
  const expected = expectedEmissionIntervalMs(input.hourlyLimit);
  const tol = expected * RATE_TOLERANCE;
  const allowed = { lo: expected - tol, hi: expected + tol };
  if (input.planAssumed && est.method !== 'coarse') return withoutPlan(est);
  // Refusals where the bucket surely had quota are RL-05's and RL-07's: the estimate rests on the rest.
  const left = input.a.refusedWithQuota ?? [];
  const T = est.emissionIntervalMs;
  const perHour = 3_600_000 / T;
  const evidence = {
    expected: { customer: input.customer, hourlyLimit: input.hourlyLimit, emissionIntervalMs: expected },
    actual: {
      emissionIntervalMs: Math.round(T * 100) / 100,
      band: est.band,
      uncertaintyMs: Math.round(est.uncertaintyMs * 100) / 100,
      perHour: Math.round(perHour),
      method: est.method,
      unexplainedAnswers: est.unexplained,
      ...(left.length ? { refusalsLeftOut: left.map((s) => s.seq) } : {}),
    },
    tolerance: `±${RATE_TOLERANCE * 100}% of the expected T (${tol.toFixed(1)} ms); the estimate's band must lie within it`,
  };
  const deviation = ((T - expected) / expected) * 100;
  const without = left.length
    ? `, leaving out ${left.length} refusal(s) where a GCRA had quota (${left.map((s) => `#${s.seq}`).join(', ')})`
    : '';
  const estimated = `T estimated ${fmtT(est.band)} (${Math.round(perHour)}/h, ${est.method}${without})`;
  const what = `${estimated} vs ${expected.toFixed(1)} ms (${input.hourlyLimit}/h, ${input.customer})`;
  if (est.method === 'coarse')
    return {
      verdict: 'error',
      message: `inconclusive: no T explains the answers (${est.unexplained} unexplained); coarse ${what}`,
      evidence: { ...evidence, cause: 'model does not fit' },
    };
  if (est.uncertaintyMs > tol)
    return {
      verdict: 'error',
      message: `inconclusive: ${what}; its uncertainty is larger than the ±${RATE_TOLERANCE * 100}% tolerance`,
      evidence: { ...evidence, cause: 'uncertainty too large' },
    };
  if (est.band.hi < allowed.lo || est.band.lo > allowed.hi)
    return { verdict: 'fail', message: `${what}: off by ${deviation.toFixed(1)}%`, evidence };
  if (est.band.lo >= allowed.lo && est.band.hi <= allowed.hi)
    return {
      verdict: 'pass',
      message: `${what}: within ${RATE_TOLERANCE * 100}% (${deviation.toFixed(2)}%)`,
      evidence,
    };
  return {
    verdict: 'error',
    message: `inconclusive: ${what}; the estimate's band straddles the ±${RATE_TOLERANCE * 100}% tolerance`,
    evidence: { ...evidence, cause: 'band straddles the tolerance' },
  };
}
