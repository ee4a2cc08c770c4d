// Scale: the rarity-list walk over a 10,000- and a 100,000-asset collection. The reference
// serving the pages runs in one child process, the walker in another, so the walker's peak RSS
// is its own; memory must stay flat as the collection grows.
import { figure, missingFigure, ratios, type Figure } from './figures.js';
import { runChild, startChild, type ChildMessage } from './child.js';
import type { TargetFile } from '../../src/types/generated/target.js';
import type { WalkInput, WalkResult } from './walk-child.js';

export interface ScaleSettings {
  reps: number;
  sizes: readonly number[];
}

const MB = 1024 * 1024;

async function walkSize(size: number, reps: number): Promise<WalkResult[]> {
  const ref = await startChild<ChildMessage & { target: TargetFile; bigCollectionId?: string }>(
    'tools/bench/serve.ts',
    ['reference', JSON.stringify({ bigCollectionSize: size })],
    120_000,
  );
  try {
    const api = ref.ready.target.api;
    const collectionId = ref.ready.bigCollectionId;
    if (!api?.baseUrl || !api.apiKey || !api.nft || !collectionId)
      throw new Error('the reference did not name its big collection');
    const input: WalkInput = {
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      protocol: api.nft.protocol,
      network: api.nft.network,
      collectionId,
      pageTokenParam: api.nft.pageTokenParam ?? 'page_token',
      maxPages: Math.ceil(size / 10) + 10,
    };
    const out: WalkResult[] = [];
    // One unmeasured walk first: the reference computes its rarity table on first use.
    await runChild('tools/bench/walk-child.ts', [JSON.stringify(input)], 300_000);
    for (let i = 0; i < reps; i++)
      out.push(
        await runChild<ChildMessage & WalkResult>('tools/bench/walk-child.ts', [JSON.stringify(input)], 300_000),
      );
    for (const r of out) {
      if (r.items !== size || r.invalid || r.duplicates || r.orderViolations || r.missingRanks) {
        throw new Error(
          `walk of ${size}: ${r.items} items, ${r.invalid} schema problems, ${r.duplicates} duplicates, ` +
            `${r.orderViolations} order violations, ${r.missingRanks} missing ranks`,
        );
      }
    }
    return out;
  } finally {
    await ref.stop();
  }
}

export async function benchScale(s: ScaleSettings): Promise<Figure[]> {
  const group = 'Scale (rarity walk)';
  const figures: Figure[] = [];
  const bySize = new Map<number, WalkResult[]>();
  for (const size of s.sizes) {
    const label = `${size.toLocaleString('en-US')} assets`;
    try {
      const rs = await walkSize(size, s.reps);
      bySize.set(size, rs);
      const note = `${rs[0]!.pages} pages, each validated (rarity-list-response) and fed to the contract suite's RarityWalk; walker in its own process`;
      figures.push(
        figure({
          id: `scale.${size}.time`,
          group,
          label: `${label}: walk time`,
          unit: 's',
          values: rs.map((r) => r.ms / 1000),
          note,
        }),
        figure({
          id: `scale.${size}.items-per-second`,
          readme: size === Math.max(...s.sizes),
          group,
          label: `${label}: items validated per second`,
          unit: 'items/s',
          values: rs.map((r) => (r.items * 1000) / r.ms),
        }),
        figure({
          id: `scale.${size}.peak-rss`,
          readme: true,
          group,
          label: `${label}: walker peak RSS`,
          unit: 'MB',
          values: rs.map((r) => r.maxRssBytes / MB),
          note: 'process.resourceUsage().maxRSS of the walking process',
          details: { startRssMB: rs.map((r) => r.startRssBytes / MB) },
        }),
      );
    } catch (e) {
      figures.push(
        missingFigure({ id: `scale.${size}.time`, group, label: `${label}: walk`, unit: 's' }, (e as Error).message),
      );
    }
  }
  const [small, large] = [Math.min(...s.sizes), Math.max(...s.sizes)];
  const a = bySize.get(large);
  const b = bySize.get(small);
  if (a && b && small !== large) {
    figures.push(
      figure({
        id: 'scale.peak-rss-ratio',
        group,
        label: `peak RSS ${large.toLocaleString('en-US')} / ${small.toLocaleString('en-US')} assets`,
        unit: 'x',
        values: ratios(
          a.map((r) => r.maxRssBytes),
          b.map((r) => r.maxRssBytes),
        ),
        target: { op: '<=', value: 1.5 },
        note: 'ratio per repetition',
      }),
    );
  }
  return figures;
}
