// Bench child: `npm run merge` of a folder, in a process that loads what the command loads and no
// more, so its peak RSS is the command's.
//   merge-child.ts '<json {dir, outDir}>'  -> {type:'result', wallMs, maxRssKb, runs, checks}
import { mergeInto } from '../../cli/merge.js';
import { toParent } from './child.js';

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as { dir: string; outDir: string };
  const t0 = performance.now();
  const merged = await mergeInto([input.dir], input.outDir);
  const wallMs = performance.now() - t0;
  await toParent({
    type: 'result',
    wallMs,
    maxRssKb: process.resourceUsage().maxRSS,
    runs: merged.runs.length,
    checks: merged.checks.count,
  });
}

main().then(
  () => process.exit(0),
  (e: unknown) =>
    toParent({ type: 'result', error: e instanceof Error ? e.message.split('\n')[0] : String(e) }).then(() =>
      process.exit(1),
    ),
);
