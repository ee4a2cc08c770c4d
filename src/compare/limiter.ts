// CMP-11: the rate limiter of each side by what the probes concluded (results.json `limiter`) and
// by what its refusals carried, never request by request: which requests a probe sends and when
// depends on the run's pacing and the bucket, not on the deployment.
import type { LimiterEstimates, ResultsFile } from '../results.js';
import type { CheckResult } from '../verdict.js';
import type { Found } from './types.js';
import { RETRY_AFTER_SLACK_S, T_SLACK } from './rules.js';
import { headerNames, mediaType } from './shape.js';
import { sameValue } from './values.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** T's band: the estimate's own, else the estimate with its uncertainty. */
function band(l: LimiterEstimates): [number, number] | undefined {
  const b = l.emissionIntervalBandMs;
  if (isObj(b) && num(b.lo) !== undefined && num(b.hi) !== undefined) return [b.lo as number, b.hi as number];
  const t = num(l.emissionIntervalMs);
  if (t === undefined) return undefined;
  const u = num(l.emissionIntervalUncertaintyMs) ?? 0;
  return [t - u, t + u];
}

/** retry-after's form: whole seconds, an HTTP date, or something else. */
function retryAfterForm(values: readonly string[]): string {
  if (!values.length) return 'absent';
  if (values.every((v) => /^\d+$/.test(v.trim()))) return 'whole seconds';
  if (values.every((v) => !Number.isNaN(Date.parse(v)))) return 'HTTP date';
  return 'other';
}

/** What the limiter's own 429s carried: header names (rate-limit and retry-after) and retry-after values. */
function limiter429(checks: readonly CheckResult[]): { headers: string[]; retryAfter: string[] } | undefined {
  const headers = new Set<string>();
  const retryAfter: string[] = [];
  let seen = false;
  for (const c of checks) {
    if (!c.rule.startsWith('RL-') || c.rule === 'RL-13') continue;
    for (const x of c.evidence?.exchanges ?? []) {
      if (x.status !== 429) continue;
      const names = headerNames(x.responseHeaders);
      // A refusal without the limiter's headers may be the cap's (RL-13 reads those).
      if (!names.some((h) => h.startsWith('x-ratelimit-'))) continue;
      seen = true;
      for (const h of names) if (h === 'retry-after' || h.startsWith('x-ratelimit-')) headers.add(h);
      const ra = Object.entries(x.responseHeaders).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
      if (ra !== undefined) retryAfter.push(ra);
    }
  }
  return seen ? { headers: [...headers].sort(), retryAfter } : undefined;
}

/** What the cap's refusals carried, from RL-13's observation. */
function capRefusal(checks: readonly CheckResult[]): Record<string, unknown> | undefined {
  const o = checks.find((c) => c.rule === 'RL-13' && isObj(c.evidence?.observation))?.evidence.observation;
  if (!o || !num(o.rejections)) return undefined;
  const ra = isObj(o.retryAfter) ? o.retryAfter : {};
  const values = Array.isArray(ra.values) ? ra.values.map(String) : [];
  return {
    status: isObj(o.statuses) ? Object.keys(o.statuses).sort() : undefined,
    'retry-after': (num(ra.present) ?? 0) > 0 ? retryAfterForm(values) : 'absent',
    'rate-limit headers': isObj(o.rateLimitHeaders) ? (num(o.rateLimitHeaders.present) ?? 0) > 0 : undefined,
    'uses quota': o.usedQuota,
    'content type': typeof o.contentType === 'string' ? mediaType({ 'content-type': o.contentType }) : undefined,
  };
}

/**
 * The most requests the burst saw accepted in one second, as far as it tells the two sides apart: a
 * count over the declared cap is a finding; one at or under it only says how the burst fell across
 * the server's seconds (a starved client spreads it), so 19 and 20 under a cap of 20 are the same.
 */
function capSeen(l: LimiterEstimates): number | string | undefined {
  const seen = num(l.perSecondCap);
  const declared = num(l.declaredPerSecondCap);
  if (seen === undefined) return undefined;
  return declared !== undefined && seen <= declared ? `at most the cap (${declared})` : seen;
}

const largest = (values: readonly string[]) => Math.max(...values.map((v) => Number(v)).filter(Number.isFinite));

export function diffLimiter(a: ResultsFile, b: ResultsFile, emit: (f: Found) => void): void {
  const la = a.limiter;
  const lb = b.limiter;
  const put = (rule: string, key: string, va: unknown, vb: unknown) =>
    emit({
      kind: 'limiter',
      cmp: 'CMP-11',
      rule,
      key,
      ...(va !== undefined && { a: va }),
      ...(vb !== undefined && { b: vb }),
    });
  if (la && lb) {
    for (const [key, rule] of [
      ['limit', 'RL-02'],
      ['burst', 'RL-11'],
    ] as const)
      if (num(la[key]) !== undefined && num(lb[key]) !== undefined && la[key] !== lb[key])
        put(rule, key, la[key], lb[key]);
    const ca = capSeen(la);
    const cb = capSeen(lb);
    if (ca !== undefined && cb !== undefined && ca !== cb) put('RL-10', 'perSecondCap', ca, cb);
    const ba = band(la);
    const bb = band(lb);
    if (ba && bb) {
      const slack = T_SLACK * Math.max(ba[1], bb[1]);
      if (ba[0] - bb[1] > slack || bb[0] - ba[1] > slack)
        put('RL-09', 'T (emission interval, ms)', la.emissionIntervalMs, lb.emissionIntervalMs);
    }
  }
  const ra = limiter429(a.checks ?? []);
  const rb = limiter429(b.checks ?? []);
  if (ra && rb) {
    if (!sameValue(ra.headers, rb.headers)) put('RL-01', "limiter's 429: headers", ra.headers, rb.headers);
    const fa = retryAfterForm(ra.retryAfter);
    const fb = retryAfterForm(rb.retryAfter);
    if (fa !== fb) put('RL-06', "limiter's 429: retry-after", fa, fb);
    else if (fa === 'whole seconds' && Math.abs(largest(ra.retryAfter) - largest(rb.retryAfter)) > RETRY_AFTER_SLACK_S)
      put('RL-07', "limiter's 429: largest retry-after (s)", largest(ra.retryAfter), largest(rb.retryAfter));
  }
  const ca = capRefusal(a.checks ?? []);
  const cb = capRefusal(b.checks ?? []);
  if (ca && cb)
    for (const key of Object.keys(ca))
      if (ca[key] !== undefined && cb[key] !== undefined && !sameValue(ca[key], cb[key]))
        put('RL-13', `cap refusal: ${key}`, ca[key], cb[key]);
}
