// The Markdown summary of a run (--summary-md <file>), for a CI job's page: the headline, the
// counts with their units, each failing rule with its one-line evidence and the curl line that
// repeats it, and where the reports are. On GitHub Actions it is also appended to the job summary
// ($GITHUB_STEP_SUMMARY). Text a target sent is escaped: the page renders Markdown and some HTML.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { curlOf } from '../src/record/recorder.js';
import { faultsOf, type ResultsFile } from '../src/results.js';
import { RULES } from '../src/rules/catalogue.js';
import { countsOf, failingRules, plural } from '../src/run-summary.js';
import { REPORT_FILES } from '../src/out-files.js';
import { VERDICTS } from '../src/verdict.js';
import { checkSetOf, type CheckSet } from '../src/check-set.js';
import { waiverLine, waiversOf } from '../src/waivers/waivers.js';
import { comparisonLines } from '../src/compare/lines.js';
import { comparisonOf } from './comparison.js';
import { ruleWaived } from './waivers.js';
import { cleanText, oneLine } from './text.js';

/** Failing rules listed in full; the rest are counted (a job summary holds at most 1 MiB). */
export const MAX_LISTED_RULES = 50;

export interface SummaryMdOptions {
  /** The folder of the reports, as the reader should find it (relative to where the job ran). */
  outDir: string;
  /** Where the reports can be downloaded (the workflow run's artifacts), when known. */
  artifactsUrl?: string;
  /** Where `results` does not hold its checks (a merge keeps them on disk). */
  checks?: CheckSet;
}

/** Text of a target or a check in Markdown: no markup, no HTML, one line. */
export function mdText(s: string, max = 300): string {
  return oneLine(cleanText(s), max)
    .replace(/[\\`*_{}[\]()<>#+!|~]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;');
}

/** A fenced code block whose fence no line of the content can close. */
function codeBlock(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${cleanText(text)}\n${fence}`;
}

const titleOf = new Map(RULES.map((r) => [r.id, r.title]));

export function summaryMarkdown(results: ResultsFile, o: SummaryMdOptions): string {
  const c = countsOf(results, o.checks);
  const checks = o.checks ?? checkSetOf(results.checks ?? []);
  // New failures first; those an unexpired waiver covers (--waivers) after them, and they fail nothing.
  const all = failingRules(results, checks);
  const failing = all.filter((f) => !ruleWaived(checks, f.rule));
  const waived = all.filter((f) => ruleWaived(checks, f.rule));
  // With --compare the other deployment counts too, as in the exit status.
  const other = comparisonOf(results)?.b;
  const overall =
    failing.some((f) => f.verdict === 'fail') || other?.failing.length
      ? 'FAIL'
      : failing.length || other?.errors.length
        ? 'ERROR'
        : 'PASS';
  const icon = { PASS: '✅', FAIL: '❌', ERROR: '⚠️' }[overall];
  const nFail = failing.filter((f) => f.verdict === 'fail').length;
  const nError = failing.length - nFail;
  const checked = `of the ${plural(c.rules, 'rule')} checked`;
  const own = failing.length
    ? [nFail && `${plural(nFail, 'rule')} failing`, nError && `${nError} with errors`].filter(Boolean).join(', ') +
      ` ${checked}`
    : `no rule failing ${checked}${waived.length ? ` (${plural(waived.length, 'rule')} failing under a waiver)` : ''}`;
  const theirs = other
    ? [
        other.failing.length && `${plural(other.failing.length, 'rule')} failing (${other.failing.join(', ')})`,
        other.errors.length && `${plural(other.errors.length, 'rule')} with errors (${other.errors.join(', ')})`,
      ].filter(Boolean)
    : [];
  const why = `${own}${theirs.length ? `; ${mdText(other!.label)}: ${theirs.join(', ')}` : ''}`;
  const versus = other ? ` compared with "${mdText(other.label)}"` : '';
  const out = [
    `## ${icon} chainprobe: ${overall} · target "${mdText(results.target)}"${versus}`,
    '',
    `**${overall}**: ${why}.`,
  ];
  for (const f of faultsOf(results))
    out.push('', `Fault \`${mdText(f.name)}\` switched on: breaks **${f.rule}** (${mdText(f.description)}).`);
  out.push(
    '',
    `| | ${VERDICTS.join(' | ')} |`,
    `|---|${VERDICTS.map(() => '---:').join('|')}|`,
    `| **${plural(c.rules, 'rule')}** | ${VERDICTS.map((v) => c.byRule[v]).join(' | ')} |`,
    `| **${plural(c.checks, 'check')}** | ${VERDICTS.map((v) => c.byCheck[v]).join(' | ')} |`,
  );
  if (failing.length) {
    out.push('', '### Failing rules');
    for (const { rule, verdict, check } of failing.slice(0, MAX_LISTED_RULES)) {
      const title = titleOf.get(rule);
      out.push('', `- **${rule}** (${verdict})${title ? `: ${mdText(title)}` : ''}`, `  ${mdText(check.message, 500)}`);
      const first = check.evidence?.exchanges?.[0];
      if (first)
        out.push(
          '',
          codeBlock(curlOf(first), 'sh')
            .split('\n')
            .map((l) => `  ${l}`)
            .join('\n'),
        );
    }
    if (failing.length > MAX_LISTED_RULES)
      out.push('', `…and ${failing.length - MAX_LISTED_RULES} more failing rules: see the report.`);
  }
  if (waived.length) {
    out.push('', '### Waived failures');
    for (const { rule, verdict, check } of waived.slice(0, MAX_LISTED_RULES)) {
      const w = checks.of(rule).find((x) => x.waiver && !x.waiver.expired)?.waiver;
      const until = w ? ` waived until ${w.expires}: ${mdText(w.reason)}${w.link ? ` (${mdText(w.link)})` : ''}` : '';
      out.push('', `- **${rule}** (${verdict},${until})`, `  ${mdText(check.message, 500)}`);
    }
  }
  const record = waiversOf(results);
  const notWaiving = record?.entries.filter((w) => w.status !== 'active') ?? [];
  if (notWaiving.length) {
    out.push('', '### Waivers that waive nothing');
    for (const w of notWaiving) out.push(`- ${mdText(waiverLine(w), 500)}`);
  }
  const comparison = comparisonOf(results);
  if (comparison) {
    const [head, ...rest] = comparisonLines(comparison, MAX_LISTED_RULES);
    out.push('', `### ${mdText(head!)}`, '', ...rest.map((l) => `- ${mdText(l.trim(), 500)}`));
  }
  const dir = o.outDir.replace(/\/+$/, '') || '.';
  const files = [REPORT_FILES.html, REPORT_FILES.results, REPORT_FILES.junit].map(
    (f) => `\`${mdText(`${dir}/${f}`)}\``,
  );
  out.push(
    '',
    `Reports: ${files.join(', ')}${o.artifactsUrl ? ` ([download from the run's artifacts](${encodeURI(o.artifactsUrl)}))` : ''}.`,
  );
  return `${out.join('\n')}\n`;
}

/** The artifacts of this workflow run on GitHub Actions (from its standard variables), else undefined. */
export function artifactsUrlOf(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  return server && repo && run && /^\d+$/.test(run) ? `${server}/${repo}/actions/runs/${run}#artifacts` : undefined;
}

/**
 * Writes the summary to `file`, and appends it to $GITHUB_STEP_SUMMARY when that is set (and is
 * another file). Returns the files written.
 */
export function writeSummaryMd(
  results: ResultsFile,
  file: string,
  outDir: string,
  env: NodeJS.ProcessEnv = process.env,
  checks?: CheckSet,
): string[] {
  const shownOut = relative(process.cwd(), outDir) || '.';
  const text = summaryMarkdown(results, {
    outDir: shownOut.startsWith('..') ? outDir : shownOut,
    artifactsUrl: artifactsUrlOf(env),
    checks,
  });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const written = [file];
  const step = env.GITHUB_STEP_SUMMARY;
  if (step && resolve(step) !== resolve(file)) {
    appendFileSync(step, text);
    written.push(step);
  }
  return written;
}
