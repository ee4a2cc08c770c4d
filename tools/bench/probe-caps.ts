// Probe cost against the two caps a horizon node may sit behind: the sliding one-second window
// (the reference's default) and nginx's strict spacing (`limit_req` without burst, the reference
// variant horizon-cap-strict-spacing), with the other core kept busy. Reported per cap: probe time
// and requests as ratios to the minimum the limiter allows (probes.ts, minimumOf), requests against
// Limit + 30, and the least gap between two paced sends against the spacing learned from the proxy.
import { join } from 'node:path';
import { CAP_STRICT_SPACING_VARIANT } from '../../reference/limiter/cap.js';
import { figure, missingFigure, type Figure } from './figures.js';
import { minimumOf } from './probes.js';
import { runInChild, startBusyLoop } from './runs.js';
import type { RunChildResult } from './run-child.js';

export interface ProbeCapSettings {
  reps: number;
  outRoot: string;
  log?: (line: string) => void;
}

const CAPS = [
  { key: 'sliding', label: 'sliding one-second window', variants: [] as string[] },
  { key: 'strict', label: 'strict spacing (nginx limit_req, no burst)', variants: [CAP_STRICT_SPACING_VARIANT] },
] as const;

interface Pacing {
  gapped?: { count: number; minSlackMs: number; minGapMs: number };
}

export async function benchProbeCaps(s: ProbeCapSettings): Promise<Figure[]> {
  const figures: Figure[] = [];
  const busy = startBusyLoop();
  try {
    for (const cap of CAPS) {
      const group = `Probe cost by cap (${cap.label}, other core busy)`;
      const runs: RunChildResult[] = [];
      let error: string | undefined;
      for (let i = 0; i < s.reps; i++) {
        try {
          const r = await runInChild({
            reference: { variants: [...cap.variants] },
            only: 'load',
            outDir: join(s.outRoot, 'runs', `probe-caps-${cap.key}`),
          });
          runs.push(r);
          s.log?.(
            `probe caps ${cap.key} ${i + 1}/${s.reps}: ${((r.limiter?.durationMs ?? NaN) / 1000).toFixed(1)} s, ` +
              `${r.limiter?.requestsSent ?? '?'} requests, fail ${r.summary.fail} error ${r.summary.error}`,
          );
        } catch (e) {
          error = (e as Error).message;
        }
      }
      if (!runs.length) {
        figures.push(
          missingFigure(
            { id: `probe-caps.${cap.key}.time-ratio`, group, label: 'probe time / minimum', unit: 'x' },
            error ?? 'no run',
          ),
        );
        continue;
      }
      const min = minimumOf(runs[0]!.limiterParams);
      const l = runs.map((r) => r.limiter!);
      const sent = l.map((x) => x.requestsSent);
      const refused = l.map((x) => Number(x['proxyRefusals'] ?? 0));
      const bad = runs.filter((r) => r.summary.fail || r.summary.error).length;
      const verdicts = bad ? `${bad} of ${runs.length} runs had fail/error verdicts` : 'every run without fail/error';
      const gaps = l.map((x) => (x.pacing as Pacing | undefined)?.gapped);
      const learned = l.map((x) => Number((x['proxySpacing'] as { gapMs?: number } | null)?.gapMs ?? 0));
      const kept = l.map((x) => Number(x['pacingGapMs'] ?? 0));
      figures.push(
        figure({
          id: `probe-caps.${cap.key}.time-ratio`,
          group,
          label: 'probe time / minimum',
          unit: 'x',
          values: l.map((x) => x.durationMs / 1000 / min.seconds),
          target: { op: '<=', value: 1.3 },
          note: `${min.formula}; ${verdicts}`,
          details: { durationMs: l.map((x) => x.durationMs) },
        }),
        figure({
          id: `probe-caps.${cap.key}.requests`,
          group,
          label: 'requests sent',
          unit: 'req',
          values: sent,
          target: { op: '<=', value: min.limit + 30 },
          note: `Limit ${min.limit}; target Limit + 30; of them refused by the proxy: ${refused.join(', ')}`,
        }),
        figure({
          id: `probe-caps.${cap.key}.requests-to-limiter`,
          group,
          label: 'requests that reached the limiter (sent less those the proxy refused)',
          unit: 'req',
          values: sent.map((n, i) => n - refused[i]!),
          target: { op: '<=', value: min.limit + 30 },
          note: 'the quota the run cost; proxy refusals use none',
        }),
        figure({
          id: `probe-caps.${cap.key}.requests-ratio`,
          group,
          label: 'requests / minimum',
          unit: 'x',
          values: sent.map((n) => n / min.requests),
          note: min.formula,
        }),
      );
      if (gaps.some((g) => g)) {
        figures.push(
          figure({
            id: `probe-caps.${cap.key}.gap-slack`,
            group,
            label: 'least paced send gap minus the gap asked for',
            unit: 'ms',
            values: gaps.map((g) => g?.minSlackMs ?? Number.NaN),
            target: { op: '>=', value: 0 },
            note:
              `gap kept between paced sends: ${kept.map((v) => v.toFixed(1)).join(', ')} ms ` +
              `(learned from the proxy's refusals, with margin: ${learned.map((v) => v.toFixed(1)).join(', ')} ms); ` +
              `least actual gap: ${gaps.map((g) => g?.minGapMs.toFixed(1) ?? '-').join(', ')} ms`,
          }),
        );
      }
    }
  } finally {
    await busy.stop();
  }
  return figures;
}
