// The Markdown job summary: the headline, counts with their units, each failing rule with its
// message and curl line, the reports; target text cannot inject markup; on GitHub Actions it is
// appended to $GITHUB_STEP_SUMMARY, never replacing what the job wrote there before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactsUrlOf, MAX_LISTED_RULES, mdText, summaryMarkdown, writeSummaryMd } from '../../reports/summary-md.js';
import { buildResults } from '../../src/results.js';
import { RULES } from '../../src/rules/catalogue.js';
import { countsOf } from '../../src/run-summary.js';
import { syntheticResults, XSS_MESSAGE } from './fixture.js';

test('a failing run: FAIL headline, both counts with units, each failing rule with its message and curl line', () => {
  const results = syntheticResults();
  const md = summaryMarkdown(results, { outDir: 'chainprobe-report' });
  const c = countsOf(results);
  assert.match(md, /^## ❌ chainprobe: FAIL · target "synthetic \\<staging\\>"$/m);
  assert.match(md, new RegExp(`^\\| \\*\\*${c.rules} rules\\*\\* \\| ${c.byRule.pass} \\| ${c.byRule.fail} \\|`, 'm'));
  assert.match(
    md,
    new RegExp(`^\\| \\*\\*${c.checks} checks\\*\\* \\| ${c.byCheck.pass} \\| ${c.byCheck.fail} \\|`, 'm'),
  );
  for (const [rule, verdict] of Object.entries(results.rules).filter(([, v]) => v === 'fail')) {
    assert.match(md, new RegExp(`^- \\*\\*${rule}\\*\\* \\(${verdict}\\)`, 'm'), rule);
  }
  // NFT-02's check in the fixture carries an exchange: its curl line is there, in a code block.
  const nft02 = md.slice(md.indexOf('- **NFT-02**'));
  assert.match(nft02, /```sh\n {2}curl /);
  assert.match(
    md,
    /Reports: `chainprobe-report\/index\.html`, `chainprobe-report\/results\.json`, `chainprobe-report\/junit\.xml`\./,
  );
});

test('text from the target is escaped: no HTML tag, no link, no code fence it could close', () => {
  const results = syntheticResults();
  const md = summaryMarkdown(results, { outDir: 'out' });
  assert.ok(!md.includes('<script>'), 'a raw <script> tag');
  assert.ok(md.includes(mdText(XSS_MESSAGE, 500)));
  assert.equal(mdText('[x](javascript:alert(1)) <b>`'), '\\[x\\]\\(javascript:alert\\(1\\)\\) \\<b\\>\\`');
  // A curl line with backticks in it still sits inside one block: the fence is longer than any run of them.
  const tricky = syntheticResults({
    checks: [
      {
        id: 'x',
        rule: 'NFT-02',
        verdict: 'fail',
        message: 'm',
        evidence: {
          exchanges: [
            {
              seq: 1,
              method: 'GET',
              url: 'https://h.invalid/```',
              requestHeaders: {},
              status: 200,
              responseHeaders: {},
              sentAt: 0,
            },
          ],
        },
      },
    ],
  });
  const block = summaryMarkdown(tricky, { outDir: 'out' });
  assert.match(block, /````sh\n[^\n]*```[^\n]*\n {2}````/);
});

test('a clean run: PASS headline, no failing section; a fault switched on is named', () => {
  const results = buildResults({
    target: 'reference',
    startedAt: new Date(0),
    finishedAt: new Date(1000),
    checks: [{ id: 'a', rule: 'AUTH-01', verdict: 'pass', message: 'ok', evidence: {} }],
    limiter: null,
    extra: {
      reference: {
        faults: ['event-wrong-id'],
        variants: [],
        faultDetails: [{ name: 'event-wrong-id', rule: 'NFT-02', description: 'off by one' }],
      },
    },
  });
  const md = summaryMarkdown(results, { outDir: '.' });
  assert.match(md, /^\*\*PASS\*\*: no rule failing of the 1 rule checked\.$/m);
  assert.ok(!md.includes('### Failing rules'));
  assert.match(md, /^Fault `event-wrong-id` switched on: breaks \*\*NFT-02\*\* \(off by one\)\.$/m);
});

test('past the listed limit, the rest are counted', () => {
  const failing = RULES.slice(0, MAX_LISTED_RULES + 3);
  const results = buildResults({
    target: 't',
    startedAt: new Date(0),
    finishedAt: new Date(0),
    checks: failing.map((r) => ({ id: r.id, rule: r.id, verdict: 'fail' as const, message: 'no', evidence: {} })),
    limiter: null,
  });
  const md = summaryMarkdown(results, { outDir: '.' });
  assert.equal(md.match(/^- \*\*/gm)?.length, MAX_LISTED_RULES);
  assert.match(md, /…and 3 more failing rules: see the report\./);
});

test('written to the file and appended to $GITHUB_STEP_SUMMARY, with the run artifacts link', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-summary-md-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const step = join(dir, 'step-summary.md');
  writeFileSync(step, 'earlier step\n');
  const env = {
    GITHUB_STEP_SUMMARY: step,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'o/r',
    GITHUB_RUN_ID: '42',
  };
  const file = join(dir, 'sub', 'summary.md');
  const written = writeSummaryMd(syntheticResults(), file, join(dir, 'out'), env);
  assert.deepEqual(written, [file, step]);
  const own = readFileSync(file, 'utf8');
  assert.equal(readFileSync(step, 'utf8'), `earlier step\n${own}`);
  assert.ok(own.includes('(https://github.com/o/r/actions/runs/42#artifacts)'));
  // Not on GitHub: only the file.
  assert.deepEqual(writeSummaryMd(syntheticResults(), file, join(dir, 'out'), {}), [file]);
  assert.equal(
    artifactsUrlOf({ GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'o/r', GITHUB_RUN_ID: 'x' }),
    undefined,
  );
});
