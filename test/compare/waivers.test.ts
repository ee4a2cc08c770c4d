// Waivers (--waivers): the file and its checks, an active waiver (the failure stays visible, the
// exit status does not count it), an expired one (it says so and waives nothing), a stale one
// (it covered nothing), and how every report shows them: JUnit, the Markdown summary, index.html.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyWaivers,
  loadWaivers,
  parseWaivers,
  waiveDifferences,
  waiverLine,
  WaiverError,
  waiversRecord,
  type Waiver,
} from '../../src/waivers/waivers.js';
import { ROOT } from '../support/checkout.js';
import { buildResults, exitCodeOf } from '../../src/results.js';
import { compareResults } from '../../src/compare/compare.js';
import { renderJunit } from '../../reports/junit.js';
import { summaryMarkdown } from '../../reports/summary-md.js';
import { renderHtml } from '../../reports/html.js';
import { API, API_B, check, exchange, run } from './fixture.js';

const TODAY = '2026-12-04';
const NFT04: Waiver = {
  rule: 'NFT-04',
  reason: 'price is a string until v2.3',
  expires: '2027-01-31',
  link: 'https://tracker.example/BAS-12',
};

const failing = () =>
  run('staging', [
    check('nft.event[1]', 'NFT-04', 'fail', { expected: 'number', actual: '"1.25"', path: 'data.payments[0].price' }),
    check('nft.event[1]', 'NFT-01', 'pass'),
    check('native.network[sepolia]', 'RPC-03', 'error', { cause: 'timeout' }),
  ]);

const problem = (data: unknown) => {
  try {
    parseWaivers(data);
  } catch (e) {
    assert.ok(e instanceof WaiverError);
    return e.message;
  }
  assert.fail('no problem found');
};

test('a waivers file: rule ids of the catalogue or the comparison, real dates; each problem in one line', () => {
  assert.deepEqual(
    parseWaivers({
      $schema: '../schemas/waivers.schema.json',
      waivers: [NFT04, { rule: 'CMP-12', reason: 'smaller machines', expires: '2027-03-01' }],
    }),
    [NFT04, { rule: 'CMP-12', reason: 'smaller machines', expires: '2027-03-01' }],
  );
  assert.equal(
    problem({ waivers: [{ ...NFT04, rule: 'NFT-99' }] }),
    'waivers[0].rule: unknown rule id "NFT-99" (did you mean NFT-09?) (docs/rules.md, docs/compare.md)',
  );
  assert.equal(
    problem({ waivers: [{ ...NFT04, expires: '2027-02-30' }] }),
    'waivers[0].expires: "2027-02-30" is not a date (YYYY-MM-DD)',
  );
  assert.equal(
    problem({ waivers: [{ ...NFT04, expires: 'next week' }] }),
    'waivers[0].expires: "next week" is not a date (YYYY-MM-DD)',
  );
  assert.equal(problem({ waivers: [{ ...NFT04, owner: 'me' }] }), 'waivers[0]: unknown field "owner"');
  assert.equal(problem({ waivers: [{ rule: 'NFT-04', expires: '2027-01-31' }] }), 'waivers[0]: needs "reason"');
  assert.match(
    problem({
      waivers: [
        { ...NFT04, rule: 'X-1' },
        { ...NFT04, expires: '1.1.2027' },
      ],
    }),
    /^waivers\[0\]\.rule: .* \(and 1 more\)$/,
  );
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-waivers-'));
  try {
    writeFileSync(join(dir, 'w.json'), '{ "waivers": [ ');
    assert.throws(
      () => loadWaivers(join(dir, 'w.json')),
      (e: Error) => /w\.json: not valid JSON/.test(e.message) && !e.message.includes('\n'),
    );
    assert.throws(() => loadWaivers(join(dir, 'none.json')), /none\.json: file not found$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an active waiver: the failure keeps its verdict and shows the waiver; the exit status does not count it', () => {
  const r = failing();
  assert.equal(exitCodeOf(r), 1);
  const { results } = applyWaivers(
    r,
    [NFT04, { rule: 'RPC-03', target: 'staging', reason: 'sepolia retired', expires: TODAY }],
    TODAY,
  );
  const nft = results.checks.find((c) => c.rule === 'NFT-04')!;
  assert.equal(nft.verdict, 'fail');
  assert.deepEqual(nft.waiver, NFT04);
  assert.equal(results.rules['NFT-04'], 'fail', 'the rule still fails in results.json');
  assert.equal(results.summary.fail, 1);
  assert.equal(results.summary.waived, 2);
  assert.equal(exitCodeOf(results), 0, 'waived through its last day');
  assert.deepEqual(
    (results.waivers as { entries: { status: string; matched: number }[] }).entries.map((e) => [e.status, e.matched]),
    [
      ['active', 1],
      ['active', 1],
    ],
  );
  assert.equal(r.checks.find((c) => c.rule === 'NFT-04')!.waiver, undefined, 'the input is not changed');
});

test('an expired waiver says so and waives nothing; a waiver another deployment or node names does not apply', () => {
  const { results } = applyWaivers(
    failing(),
    [
      { ...NFT04, expires: '2026-12-03' },
      { rule: 'RPC-03', target: 'production', reason: 'not this one', expires: '2027-01-01' },
      { rule: 'RPC-03', node: 'eu-1', reason: 'nor this one', expires: '2027-01-01' },
    ],
    TODAY,
  );
  assert.deepEqual(results.checks.find((c) => c.rule === 'NFT-04')!.waiver, {
    ...NFT04,
    expires: '2026-12-03',
    expired: true,
  });
  assert.equal(results.summary.waived, 0);
  assert.equal(exitCodeOf(results), 1);
  const entries = (results.waivers as { entries: Parameters<typeof waiverLine>[0][] }).entries;
  assert.deepEqual(
    entries.map((e) => e.status),
    ['expired', 'stale', 'stale'],
  );
  assert.equal(
    waiverLine(entries[0]!),
    'NFT-04 waiver EXPIRED on 2026-12-03 and waives nothing: price is a string until v2.3 (https://tracker.example/BAS-12)',
  );
  assert.match(
    waiverLine(entries[1]!),
    /^RPC-03 \(production\) waiver is stale \(nothing it names failed in this run\)/,
  );
});

test('a merge keeps waived failures waived: the tally counts them from the checks', () => {
  const { results } = applyWaivers(failing(), [NFT04, { rule: 'RPC-03', reason: 'r', expires: '2027-01-01' }], TODAY);
  const again = buildResults({
    target: 'merged',
    startedAt: new Date(),
    finishedAt: new Date(),
    checks: results.checks,
    limiter: null,
  });
  assert.equal(again.summary.waived, 2);
  assert.equal(exitCodeOf(again), 0);
});

test('differences: a waiver naming a difference’s rule or its comparison rule covers it, until it expires', () => {
  const timed = (base: string, ms: number) =>
    Array.from({ length: 40 }, (_v, i) =>
      check(`universal.block-number[n${i}]`, 'UNI-01', 'pass', {
        exchanges: [
          exchange({
            url: `${base}/universal/v1/x/n${i}/sync/block_number`,
            durationMs: ms,
            body: { block_number: 1 },
          }),
        ],
      }),
    );
  const c = compareResults(run('production', timed(API, 40)), run('staging', timed(API_B, 900)));
  assert.deepEqual(
    c.differences.map((d) => d.cmp),
    ['CMP-12', 'CMP-12'],
  );
  const w = waiveDifferences(
    c,
    [{ rule: 'CMP-12', target: 'staging', reason: 'smaller machines', expires: '2027-01-01' }],
    TODAY,
  );
  assert.equal(w.comparison.counts.waived, 2);
  assert.deepEqual(w.matched, [2]);
  assert.equal(w.comparison.differences[0]!.waiver!.reason, 'smaller machines');
  const late = waiveDifferences(c, [{ rule: 'CMP-12', reason: 'smaller machines', expires: '2026-12-01' }], TODAY);
  assert.equal(late.comparison.counts.waived, 0);
});

test('the reports: JUnit skips a waived failure with its reason, the summary lists new failures first, index.html passes with a note', () => {
  const { results } = applyWaivers(
    run('staging', [
      check('nft.event[1]', 'NFT-04', 'fail', { expected: 'number', actual: 'string' }),
      check('nft.event[1]', 'NFT-02', 'fail', { expected: 'id', actual: 'other id' }),
    ]),
    [NFT04],
    TODAY,
  );
  const junit = renderJunit(results);
  assert.match(junit, /<testsuites [^>]*failures="1" errors="0" skipped="1"/);
  assert.match(
    junit,
    new RegExp(
      '<skipped message="waived until 2027-01-31: price is a string until v2\\.3 \\(https:\\/\\/tracker\\.example\\/BAS-12\\); ' +
        'the check had fail: nft\\.event\\[1\\]: fail"\\/>',
    ),
  );
  const md = summaryMarkdown(results, { outDir: 'reports' });
  assert.match(md, /^## ❌ chainprobe: FAIL/);
  assert.ok(md.indexOf('### Failing rules') < md.indexOf('### Waived failures'), md);
  assert.match(md.slice(md.indexOf('### Failing rules'), md.indexOf('### Waived failures')), /NFT-02/);
  assert.doesNotMatch(md.slice(md.indexOf('### Failing rules'), md.indexOf('### Waived failures')), /NFT-04/);
  assert.match(
    md.slice(md.indexOf('### Waived failures')),
    /\*\*NFT-04\*\* \(fail, waived until 2027-01-31: price is a string until v2\.3/,
  );

  const onlyWaived = applyWaivers(run('staging', [check('nft.event[1]', 'NFT-04', 'fail')]), [NFT04], TODAY).results;
  assert.match(
    summaryMarkdown(onlyWaived, { outDir: 'reports' }),
    /^## ✅ chainprobe: PASS .*\n\n\*\*PASS\*\*: no rule failing of the 1 rule checked \(1 rule failing under a waiver\)/,
  );
  const html = renderHtml({
    results: onlyWaived,
    timeline: [],
    files: { results: 'results.json', junit: 'junit.xml', timeline: 'timeline.json' },
  });
  assert.match(html, /data-headline="PASS"/);
  assert.match(html, /data-waiver-status="active">NFT-04 waived until 2027-01-31: price is a string until v2\.3/);
  assert.match(
    html,
    /<span class="waiver" data-waiver="active">waived until 2027-01-31: price is a string until v2\.3/,
  );
  assert.match(html, /data-rule="NFT-04" data-kind="must" data-verdict="fail"/, 'the rule still shows its verdict');
});

test('a waivers record names only fields results.schema.json describes, differences included', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/results.schema.json'), 'utf8')) as {
    $defs: { waiversRecord: { properties: { entries: { items: { properties: Record<string, unknown> } } } } };
  };
  const described = Object.keys(schema.$defs.waiversRecord.properties.entries.items.properties).sort();
  const full = {
    rule: 'CMP-12',
    target: 'staging',
    node: 'horizon-1',
    reason: 'smaller machines',
    expires: '2027-01-01',
    link: 'https://tracker.example/BAS-12',
  };
  const record = waiversRecord([full], [[1], [0]], [2], TODAY);
  const written = [...new Set(record.entries.flatMap((e) => Object.keys(e)))].sort();
  assert.deepEqual(written, described);
  assert.deepEqual(record.entries[0]!.differences, 2);
});
