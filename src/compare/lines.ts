// A comparison in a few lines of text, wherever it is printed: the terminal's closing lines (the
// run with --compare, `chainprobe compare`) and the Markdown job summary.
import type { Comparison, Difference } from './types.js';

/** Differences no unexpired waiver covers: what --fail-on-difference fails on. */
export const unwaivedDifferences = (c: Comparison): Difference[] => c.differences.filter((d) => !d.waiver);

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** `staging: FAIL (NFT-01, NFT-04)`, `production: PASS`: a side as its exit status would see it. */
export function sideVerdict(side: Comparison['a']): string {
  const problems = [
    side.failing.length && `${side.failing.join(', ')} failing`,
    side.errors.length && `${side.errors.join(', ')} could not be tested`,
  ].filter(Boolean);
  const waived = side.waived.length ? `; waived: ${side.waived.join(', ')}` : '';
  return `${side.label}: ${problems.length ? `FAIL (${problems.join('; ')})` : 'PASS'}${waived}`;
}

/** The head line: what was compared with what, and how many differences. */
export function comparisonHeadline(c: Comparison): string {
  const n = c.counts.differences;
  const waived = c.counts.waived ? ` (${c.counts.waived} waived)` : '';
  const what = n ? `${plural(n, 'difference')}${waived}` : 'no difference';
  return `${c.a.label} compared with ${c.b.label}: ${what} over ${plural(c.counts.rulesCompared, 'rule')}`;
}

/**
 * The terminal's lines: the head line, each side's verdict, the differences (unwaived first, then
 * waived ones with their waiver), sections one side has none of, and where the rest is.
 */
export function comparisonLines(c: Comparison, max = 15): string[] {
  const lines = [comparisonHeadline(c), `  ${sideVerdict(c.a)}`, `  ${sideVerdict(c.b)}`];
  const open = unwaivedDifferences(c);
  const waived = c.differences.filter((d) => d.waiver);
  const shown = [...open, ...waived].slice(0, max);
  for (const d of shown)
    lines.push(
      `  ${d.id.padEnd(4)} ${d.text}${d.waiver ? ` [waived until ${d.waiver.expires}: ${d.waiver.reason}]` : ''}`,
    );
  if (c.differences.length > shown.length)
    lines.push(`  … and ${c.differences.length - shown.length} more (see index.html)`);
  for (const s of c.absentSections) {
    const label = s.side === 'a' ? c.a.label : c.b.label;
    lines.push(`  not compared: ${label}'s target file has no ${s.section} section (${s.rules.join(', ')})`);
  }
  return lines;
}
