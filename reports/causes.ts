// The report's headline notes about the run itself: connection causes (one line per host that could
// not be reached, with how many checks it cost) and the insecure-TLS note, and the page title,
// which counts failures and errors, so a run that tested nothing never reads "no failures".
import type { ResultsFile } from '../src/results.js';
import { groupLine, type CauseGroup } from '../src/net/causes.js';
import { esc } from './text.js';

export function causesOf(results: ResultsFile): CauseGroup[] {
  return Array.isArray(results.causes) ? (results.causes as CauseGroup[]) : [];
}

/** The headline note naming each cause (host and port, how many checks it cost); undefined when none. */
export function causeNote(results: ResultsFile): string | undefined {
  const lines = causesOf(results).map(
    (g) => `<span class="cause" data-cause="${esc(g.kind)}">${esc(groupLine(g))}</span>`,
  );
  return lines.length ? lines.join('<br>') : undefined;
}

/** The headline note that verification was off. */
export function insecureNote(results: ResultsFile): string | undefined {
  if ((results.tls as { insecure?: boolean } | undefined)?.insecure !== true) return undefined;
  return '<span data-tls="insecure">TLS verification was OFF (--insecure / tls.insecure): certificates were not checked; use this for staging only.</span>';
}

/** "target - 2 failing, 301 errors", "target - could not test (301 errors)", "target - no failures". */
export function reportTitle(results: ResultsFile): string {
  const fail = results.summary?.fail ?? 0;
  const error = results.summary?.error ?? 0;
  const errors = `${error} error${error === 1 ? '' : 's'}`;
  const state = fail
    ? `${fail} failing${error ? `, ${errors}` : ''}`
    : error
      ? `could not test everything (${errors})`
      : 'no failures';
  const insecure = (results.tls as { insecure?: boolean } | undefined)?.insecure === true ? ' - TLS not verified' : '';
  return `chainprobe: ${results.target} - ${state}${insecure}`;
}
