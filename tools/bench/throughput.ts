// Reference throughput on loopback, with a trivial Node HTTP server as this machine's ceiling.
// Each server runs in its own child process; autocannon runs here, so the two don't share an
// event loop. Per repetition the ceiling and the reference are measured back to back, so the
// ratio compares like with like.
import { figure, missingFigure, ratios, type Figure } from './figures.js';
import { cannon, type CannonRun } from './cannon.js';
import { startChild, type ChildMessage, type RunningChild } from './child.js';
import type { ReferenceTarget as TargetFile } from '../../reference/start.js';

export interface ThroughputSettings {
  reps: number;
  seconds: number;
  connections: number;
}

interface Endpoint {
  id: string;
  label: string;
  method: 'GET' | 'HEAD';
  url: string;
  headers?: Record<string, string>;
  target?: number;
}

/** A reference configured so neither the hourly limiter nor the per-second cap rejects anything. */
export const UNLIMITED_REFERENCE = { hourlyLimit: 1_000_000_000, burst: 1_000_000_000, perSecondCap: 1_000_000_000 };

function referenceEndpoints(t: TargetFile): Endpoint[] {
  const out: Endpoint[] = [];
  const h = t.nodes?.horizon;
  if (h)
    out.push({
      id: 'head-fee-stats',
      label: 'reference HEAD /fee_stats',
      method: 'HEAD',
      url: `${h.endpoint}/fee_stats?auth=${encodeURIComponent(h.token)}`,
      target: 10_000,
    });
  const api = t.api;
  const nft = api?.nft;
  const eventId = nft?.eventIds?.[0];
  if (api?.baseUrl && api.apiKey && nft && eventId) {
    out.push({
      id: 'get-event',
      label: 'reference GET /nft/v1/.../event/{id}',
      method: 'GET',
      url: `${api.baseUrl}/nft/v1/${nft.protocol}/${nft.network}/event/${eventId}`,
      headers: { authorization: `Bearer ${api.apiKey}` },
    });
  }
  return out;
}

async function measure(e: Pick<Endpoint, 'url' | 'method' | 'headers'>, s: ThroughputSettings): Promise<CannonRun> {
  return cannon({ url: e.url, method: e.method, headers: e.headers, seconds: s.seconds, connections: s.connections });
}

export async function benchThroughput(s: ThroughputSettings): Promise<Figure[]> {
  const group = 'Reference throughput';
  const trivial = await startChild<ChildMessage & { url: string }>('tools/bench/serve.ts', ['trivial']);
  let ref: RunningChild<ChildMessage & { target: TargetFile }> | undefined;
  let refError: string | undefined;
  try {
    try {
      ref = await startChild('tools/bench/serve.ts', ['reference', JSON.stringify(UNLIMITED_REFERENCE)]);
    } catch (e) {
      refError = (e as Error).message;
    }
    const endpoints = ref ? referenceEndpoints(ref.ready.target) : [];
    const ceilings: Record<string, Endpoint> = {
      HEAD: {
        id: 'trivial-head',
        label: 'trivial Node server HEAD (ceiling)',
        method: 'HEAD',
        url: `${trivial.ready.url}/`,
      },
      GET: {
        id: 'trivial-get',
        label: 'trivial Node server GET (ceiling)',
        method: 'GET',
        url: `${trivial.ready.url}/`,
      },
    };
    // Warm both servers (JIT, keep-alive pools) before anything counts.
    for (const e of [...Object.values(ceilings), ...endpoints]) await measure(e, { ...s, seconds: 1 });

    const runs = new Map<string, CannonRun[]>();
    const push = (id: string, r: CannonRun) => runs.set(id, [...(runs.get(id) ?? []), r]);
    for (let i = 0; i < s.reps; i++) {
      for (const e of endpoints) {
        push(ceilings[e.method]!.id, await measure(ceilings[e.method]!, s));
        push(e.id, await measure(e, s));
      }
      if (!endpoints.length) for (const c of Object.values(ceilings)) push(c.id, await measure(c, s));
    }

    const figures: Figure[] = [];
    const note = `autocannon, ${s.connections} connections, ${s.seconds} s per run, 2xx responses per second; server in its own process`;
    for (const c of Object.values(ceilings)) {
      const rs = runs.get(c.id) ?? [];
      if (rs.length)
        figures.push(
          figure({
            id: `throughput.${c.id}`,
            readme: c.method === 'HEAD',
            group,
            label: c.label,
            unit: 'req/s',
            values: rs.map((r) => r.rps),
            note,
            details: { runs: rs },
          }),
        );
    }
    for (const e of endpoints) {
      const rs = runs.get(e.id) ?? [];
      const bad = rs.reduce((n, r) => n + r.non2xx + r.errors, 0);
      figures.push(
        figure({
          id: `throughput.${e.id}`,
          group,
          label: e.label,
          unit: 'req/s',
          values: rs.map((r) => r.rps),
          ...(e.target && { target: { op: '>=' as const, value: e.target } }),
          note: `${note}${bad ? `; ${bad} non-2xx or errored responses (not counted)` : ''}`,
          details: { runs: rs },
        }),
      );
      const ceil = runs.get(ceilings[e.method]!.id) ?? [];
      figures.push(
        figure({
          id: `throughput.${e.id}.vs-ceiling`,
          group,
          label: `${e.label} / trivial ${e.method}`,
          unit: 'x',
          values: ratios(
            rs.map((r) => r.rps),
            ceil.map((r) => r.rps),
          ),
          note: 'ratio per repetition, measured back to back',
        }),
      );
    }
    if (!ref) {
      for (const id of ['head-fee-stats', 'get-event'])
        figures.push(
          missingFigure(
            { id: `throughput.${id}`, group, label: `reference ${id}`, unit: 'req/s' },
            `reference could not start: ${refError}`,
          ),
        );
    }
    return figures;
  } finally {
    await Promise.all([trivial.stop(), ref?.stop()]);
  }
}
