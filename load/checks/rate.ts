// RL-09: the long-run rate matches the customer kind. The emission interval estimated from the
// headers and from recovery (the replay's band of T values) is compared with 3600 s / hourly limit.
import type { CheckResult } from '../../src/verdict.js';
import { fmtT, toCheck, type CheckInput, type Finding } from './common.js';

/** Relative tolerance on T, stated in every RL-09 result. */
export const RATE_TOLERANCE = 0.02;

export function expectedEmissionIntervalMs(hourlyLimit: number): number {
  return 3_600_000 / hourlyLimit;
}

export function checkRate(input: CheckInput): CheckResult {
  const est = input.a.estimate;
  const expected = expectedEmissionIntervalMs(input.hourlyLimit);
  const tol = expected * RATE_TOLERANCE;
  const allowed = { lo: expected - tol, hi: expected + tol };
  let f: Finding;
  if (!est || input.a.limit === undefined) {
    f = { verdict: 'error', message: 'T could not be estimated from the headers', evidence: { cause: 'no estimate' } };
    return toCheck(input, 'rl.rate', 'RL-09', f);
  }
  const T = est.emissionIntervalMs;
  const perHour = 3_600_000 / T;
  const evidence = {
    expected: { customer: input.customer, hourlyLimit: input.hourlyLimit, emissionIntervalMs: expected },
    actual: { emissionIntervalMs: Math.round(T * 100) / 100, band: est.band, uncertaintyMs: Math.round(est.uncertaintyMs * 100) / 100, perHour: Math.round(perHour), method: est.method, unexplainedAnswers: est.unexplained },
    tolerance: `±${RATE_TOLERANCE * 100}% of the expected T (${tol.toFixed(1)} ms); the estimate's band must lie within it`,
  };
  const deviation = ((T - expected) / expected) * 100;
  const what = `T estimated ${fmtT(est.band)} (${Math.round(perHour)}/h, ${est.method}) vs ${expected.toFixed(1)} ms (${input.hourlyLimit}/h, ${input.customer})`;
  if (est.method === 'coarse') f = { verdict: 'error', message: `inconclusive: no T explains the answers (${est.unexplained} unexplained); coarse ${what}`, evidence: { ...evidence, cause: 'model does not fit' } };
  else if (est.uncertaintyMs > tol) f = { verdict: 'error', message: `inconclusive: ${what}; its uncertainty is larger than the ±${RATE_TOLERANCE * 100}% tolerance`, evidence: { ...evidence, cause: 'uncertainty too large' } };
  else if (est.band.hi < allowed.lo || est.band.lo > allowed.hi) f = { verdict: 'fail', message: `${what}: off by ${deviation.toFixed(1)}%`, evidence };
  else if (est.band.lo >= allowed.lo && est.band.hi <= allowed.hi) f = { verdict: 'pass', message: `${what}: within ${RATE_TOLERANCE * 100}% (${deviation.toFixed(2)}%)`, evidence };
  else f = { verdict: 'error', message: `inconclusive: ${what}; the estimate's band straddles the ±${RATE_TOLERANCE * 100}% tolerance`, evidence: { ...evidence, cause: 'band straddles the tolerance' } };
  return toCheck(input, 'rl.rate', 'RL-09', f);
}
