// RL-01: every limiter answer (GET and HEAD, 2xx and the limiter's 429) carries Limit, Remaining
// and Reset as non-negative integers with Remaining < Limit. RL-02: Limit stays the same.
import type { Classified } from '../analysis.js';
import type { Sample } from '../session.js';
import type { CheckInput, Finding } from './common.js';

const KINDS = [
  { method: 'GET', status: '2xx' },
  { method: 'HEAD', status: '2xx' },
  { method: 'GET', status: '429' },
  { method: 'HEAD', status: '429' },
] as const;

/**
 * What is wrong with one answer's rate-limit headers, or nothing. A Limit or Remaining no GCRA can
 * send (a Limit of 0, Remaining at or above Limit) is RL-01's; a Reset no GCRA can send is an
 * integer all the same, and RL-12's (Reset disagrees with Limit and T).
 */
export function headerProblems(s: Sample): string[] {
  const problems: string[] = [];
  for (const f of ['limit', 'remaining', 'reset'] as const) {
    const raw = s.rl.raw[f];
    const impossible = s.rl.impossible?.[f];
    if (raw === undefined) problems.push(`X-RateLimit-${f[0]!.toUpperCase()}${f.slice(1)} missing`);
    else if (impossible !== undefined) {
      if (f !== 'reset') problems.push(impossible);
    } else if (s.rl[f] === undefined)
      problems.push(`X-RateLimit-${f[0]!.toUpperCase()}${f.slice(1)} "${raw}" is not a non-negative integer`);
  }
  if (s.rl.remaining !== undefined && s.rl.limit !== undefined && s.rl.remaining >= s.rl.limit) {
    problems.push(`Remaining ${s.rl.remaining} is not below Limit ${s.rl.limit}`);
  }
  return problems;
}

function kindMembers(classes: readonly Classified[], method: string, status: '2xx' | '429'): Sample[] {
  return classes
    .filter((c) => c.sample.method === method && (status === '2xx' ? c.accepted : c.limiterDenial))
    .map((c) => c.sample);
}

export function checkHeaders(input: CheckInput): Finding[] {
  return KINDS.map(({ method, status }) => {
    const members = kindMembers(input.a.classes, method, status);
    let f: Finding;
    if (members.length === 0) {
      f = {
        verdict: 'error',
        message: `no ${method} answer with status ${status} from the limiter was seen, so its headers could not be checked`,
        evidence: { cause: `no ${method} ${status} sample` },
      };
    } else {
      const bad = members.map((s) => ({ s, problems: headerProblems(s) })).filter((x) => x.problems.length);
      f = bad.length
        ? {
            verdict: 'fail',
            message: `${bad.length} of ${members.length} ${method} ${status} answers lack valid rate-limit headers: ${bad[0]!.problems.join('; ')}`,
            evidence: {
              expected: 'X-RateLimit-Limit, -Remaining, -Reset: non-negative integers, Remaining < Limit',
              actual: bad.slice(0, 5).map((x) => ({ seq: x.s.seq, problems: x.problems })),
            },
            samples: bad.map((x) => x.s),
          }
        : {
            verdict: 'pass',
            message: `all ${members.length} ${method} ${status} answers carry Limit, Remaining and Reset as non-negative integers with Remaining < Limit`,
            evidence: { observation: { count: members.length } },
            samples: members.slice(0, 2),
          };
    }
    return { part: `${method} ${status}`, ...f };
  });
}

/** Judged once a Limit was seen (index.ts: need `limit`), so at least one value is known. */
export function checkLimitConstant(input: CheckInput): Finding {
  const values = input.a.limitValues;
  const withLimit = input.a.samples.filter((s) => s.rl.limit !== undefined);
  if (values.length === 1)
    return {
      verdict: 'pass',
      message: `X-RateLimit-Limit was ${values[0]} on all ${withLimit.length} answers that carried it`,
      evidence: { observation: { limit: values[0], answers: withLimit.length } },
    };
  const firstOther = withLimit.find((s) => s.rl.limit !== withLimit[0]!.rl.limit);
  return {
    verdict: 'fail',
    message: `X-RateLimit-Limit changed during the run: values ${values.join(', ')}`,
    evidence: { expected: 'one Limit value across the run', actual: values },
    samples: [withLimit[0], firstOther],
  };
}
