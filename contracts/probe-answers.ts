// The rate-limit probes' answers as the horizon node's contract call results. In a full run the
// probes have the node first and end on an empty bucket; a contract request sent after them waits a
// whole T for quota. The probes already sent the same fee_stats requests (the token in each form,
// a HEAD) while quota was left, so a contract call they answered is judged on that answer, and its
// evidence is the probe's recorded exchange. A call no probe answered is sent as before.
import { FEE_STATS_HEADERS, feeStatsUrlOf } from '../src/service/fee-stats.js';
import type { ProbeAnswer } from '../src/stages.js';
import type { CallResult, CallSpec } from './api.js';
import { is2xx, parseJson } from '../src/body-shape.js';

/** The same header names (in any case) with the same values. */
function sameHeaders(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const norm = (h: Readonly<Record<string, string>>) =>
    JSON.stringify(
      Object.entries(h)
        .map(([k, v]) => [k.toLowerCase(), v])
        .sort(),
    );
  return norm(a) === norm(b);
}

/** Answers `spec` from the probes' answers when one of them was the same request; each answer serves once. */
export function probeAnswered(
  answers: readonly ProbeAnswer[],
  horizon: { endpoint: string; token: string },
): (spec: CallSpec) => CallResult | undefined {
  const left = [...answers];
  const url = feeStatsUrlOf(horizon.endpoint);
  return (spec) => {
    const same =
      spec.url === url &&
      (spec.method === 'GET' || spec.method === 'HEAD') &&
      spec.body === undefined &&
      sameHeaders(spec.headers ?? {}, FEE_STATS_HEADERS) &&
      spec.auth?.secret === horizon.token;
    if (!same) return undefined;
    const i = left.findIndex((a) => a.method === spec.method && a.form === spec.auth!.form);
    if (i < 0) return undefined;
    const [a] = left.splice(i, 1);
    return {
      status: a!.status,
      headers: a!.headers,
      body: a!.body,
      bytes: a!.bytes,
      json: parseJson(a!.body),
      exchange: a!.exchange,
      ok: is2xx(a!.status),
    };
  };
}
