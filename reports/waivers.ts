// How the reports show waivers (--waivers): a waived failure keeps its verdict and says so, with the
// waiver's reason and expiry; the headline names the rules failing under a waiver, and any expired
// or stale waiver, so that neither is forgotten.
import type { ResultsFile } from '../src/results.js';
import type { CheckResult } from '../src/verdict.js';
import type { CheckSet } from '../src/check-set.js';
import { isWaived, waiverLine, waiversOf } from '../src/waivers/waivers.js';
import { esc } from './text.js';

/** Whether a rule fails or errors only in checks that unexpired waivers cover. */
export function ruleWaived(checks: CheckSet, rule: string): boolean {
  const verdicts = checks.verdicts(rule);
  if (!verdicts.has('fail') && !verdicts.has('error')) return false;
  return checks.of(rule).every((c) => (c.verdict !== 'fail' && c.verdict !== 'error') || isWaived(c));
}

/** A check's waiver beside its message. */
export function waiverBadge(c: CheckResult): string {
  const w = c.waiver;
  if (!w) return '';
  const link = w.link ? ` <a href="${esc(w.link)}" rel="noreferrer">${esc(w.link)}</a>` : '';
  return w.expired
    ? ` <span class="waiver expired" data-waiver="expired">waiver expired on ${esc(w.expires)} (${esc(w.reason)})${link}</span>`
    : ` <span class="waiver" data-waiver="active">waived until ${esc(w.expires)}: ${esc(w.reason)}${link}</span>`;
}

/** The headline's note on waivers: the waived, then the expired and the stale, each once. */
export function waiverNote(results: ResultsFile): string | undefined {
  const record = waiversOf(results);
  if (!record?.entries.length) return undefined;
  const lines = [
    ...record.entries.filter((w) => w.status === 'active'),
    ...record.entries.filter((w) => w.status === 'expired'),
    ...record.entries.filter((w) => w.status === 'stale'),
  ].map(
    (w) => `<span class="waiver-${esc(w.status)}" data-waiver-status="${esc(w.status)}">${esc(waiverLine(w))}</span>`,
  );
  return `Waivers (${esc(record.today)}): ${lines.join('; ')}`;
}
