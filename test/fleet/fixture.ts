// Results files for the fleet tests: a single-deployment run and a fleet run, built the way the
// runs build them (buildResults, rollupFleet), small enough to read.
import { buildResults, type ResultsFile } from '../../src/results.js';
import { rollupFleet } from '../../src/fleet/rollup.js';
import type { CheckResult, Verdict } from '../../src/verdict.js';

export const check = (rule: string, verdict: Verdict, extra: Partial<CheckResult> = {}): CheckResult => ({
  id: `${rule.toLowerCase()}.x`,
  rule,
  verdict,
  message: `${rule} ${verdict}`,
  evidence: {},
  ...extra,
});
export const limiter = (limit: number, emissionIntervalMs = 1000) => ({
  limit,
  burst: limit - 1,
  emissionIntervalMs,
  perSecondCap: 20,
  requestsSent: 120,
  durationMs: 9000,
  hourlyLimit: 3600,
  capRejectionsUseQuota: false,
});

/** A single-deployment run, as `npm start -- --target <one file>` writes it. */
export function staging(): ResultsFile {
  return buildResults({
    target: 'staging',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    finishedAt: new Date('2026-01-01T00:01:00Z'),
    checks: [check('AUTH-01', 'pass'), check('NFT-01', 'observed'), check('RL-02', 'pass'), check('RL-10', 'pass')],
    limiter: limiter(101),
  });
}

/** A fleet run over one deployment with two horizon nodes. */
export function production(): ResultsFile {
  const checks = [
    check('AUTH-01', 'fail', { target: 'production' }),
    check('RL-02', 'pass', { target: 'production', node: 'eu', nodeKind: 'horizon' }),
    check('RL-02', 'error', { target: 'production', node: 'us', nodeKind: 'horizon' }),
  ];
  const fleet = rollupFleet({
    checks,
    targets: [{ name: 'production', requestsSent: 300 }],
    nodes: [
      {
        target: 'production',
        kind: 'horizon',
        name: 'eu',
        requestsSent: { contracts: 4, probes: 126 },
        limiter: limiter(101),
      },
      { target: 'production', kind: 'horizon', name: 'us', requestsSent: { contracts: 4, probes: 20 }, limiter: null },
    ],
  });
  return buildResults({
    target: 'production',
    startedAt: new Date('2026-01-01T00:00:30Z'),
    finishedAt: new Date('2026-01-01T00:02:00Z'),
    checks,
    limiter: null,
    extra: { fleet },
  });
}
