// The report's first lines about the run itself: connection causes (one line per host that could
// not be reached, with how many checks it cost) and the insecure-TLS note, and the page title,
// which counts failures and errors, so a run that tested nothing never reads "no failures".
import type { ResultsFile } from '../src/results.js';
import { groupLine, type CauseGroup } from '../src/net/causes.js';
import { esc } from './text.js';

export function causesOf(results: ResultsFile): CauseGroup[] {
  return Array.isArray(results.causes) ? (results.causes as CauseGroup[]) : [];
}

/** Banners under the report's heading: causes first, then verification off. Empty when neither. */
export function runBanners(results: ResultsFile): string {
  const lines = causesOf(results).map((g) => `<p class="banner" data-cause="${esc(g.kind)}">${esc(groupLine(g))}</p>`);
  if ((results.tls as { insecure?: boolean } | undefined)?.insecure === true) {
    lines.push('<p class="banner" data-tls="insecure">TLS verification was OFF (--insecure / tls.insecure): certificates were not checked; use this for staging only.</p>');
  }
  return lines.join('\n');
}

/** "target - 2 failing, 301 errors", "target - could not test (301 errors)", "target - no failures". */
export function reportTitle(results: ResultsFile): string {
  const fail = results.summary?.fail ?? 0;
  const error = results.summary?.error ?? 0;
  const errors = `${error} error${error === 1 ? '' : 's'}`;
  const state = fail ? `${fail} failing${error ? `, ${errors}` : ''}` : error ? `could not test everything (${errors})` : 'no failures';
  const insecure = (results.tls as { insecure?: boolean } | undefined)?.insecure === true ? ' - TLS not verified' : '';
  return `chainprobe: ${results.target} - ${state}${insecure}`;
}
