// The comparison end to end: `--target` and `--compare` against two embedded references, one of them
// with a contract fault (payment-price-string: NFT-04) and an open-behaviour variant
// (missing-credentials-403: AUTH-07), in one run. The differences table names exactly what the
// fault and the variant change and nothing else; `chainprobe compare` of the same two runs gives the
// same table; and waivers, active, expired and stale, decide the exit status as documented.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/start.js';
import { runCli } from '../safety/support/cli.js';
import { HANG_MS, withSlowMachineTimeout } from '../support/backstops.js';
import type { Comparison, Difference } from '../../src/compare/types.js';
import { comparisonIn, resultsIn, runCompare } from './support.js';
import { LATENCY } from '../../src/compare/rules.js';

/** A row as the test names it: comparison rule, kind, what, both values, the rules it was found under. */
const row = (d: Difference) =>
  `${d.cmp} ${d.kind} ${d.key}: ${JSON.stringify(d.a)} | ${JSON.stringify(d.b)} @ ${d.rules.join(',')}`;

/**
 * What the fault and the variant change, and nothing else. The fault turns `price` into a string in
 * every answer carrying an event's payments (whichever rule's check fetched it: the auth matrix's
 * too), failing NFT-01 (schema), NFT-04 and RES-01 on the events with payments. The variant answers
 * a request without credentials 403 instead of 401 (without the WWW-Authenticate header), which the
 * errors summary (ERR-01) counts by status.
 */
function expectedRows(c: Comparison): string[] {
  const shape = c.differences.find((d) => d.kind === 'body-shape')!;
  const s401 = c.differences.find((d) => d.key === 'statuses.401');
  return [
    `CMP-05 body-shape data.payments[].price: "number" | "string" @ ${shape.rules.join(',')}`,
    'CMP-03 status status: 401 | 403 @ AUTH-07',
    'CMP-04 header www-authenticate: "present" | "absent" @ AUTH-07',
    'CMP-02 verdict verdict: "pass" | "fail" @ NFT-01',
    'CMP-02 verdict verdict: "pass" | "fail" @ NFT-04',
    'CMP-02 verdict verdict: "pass" | "fail" @ RES-01',
    `CMP-14 observation statuses.401: ${JSON.stringify(s401?.a)} | ${JSON.stringify(s401?.b)} @ ERR-01`,
    `CMP-14 observation statuses.403: undefined | ${JSON.stringify(c.differences.find((d) => d.key === 'statuses.403')?.b)} @ ERR-01`,
  ];
}

test(
  '--target and --compare against two references (a contract fault and an open-behaviour variant on one): ' +
    'the differences table names exactly those differences, and chainprobe compare of the two runs gives the same table',
  { timeout: HANG_MS },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'chainprobe-compare-live-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const production = await startReference();
    t.after(() => production.close());
    const staging = await startReference({
      faults: new Set(['payment-price-string']),
      variants: new Set(['missing-credentials-403']),
    });
    t.after(() => staging.close());
    const a = join(dir, 'production.json');
    const b = join(dir, 'staging.json');
    // Both references answer from this test's process: a starved machine must not make a request
    // of the run time out (a gRPC call's deadline cannot be extended by the time it was held up).
    writeFileSync(a, JSON.stringify({ ...withSlowMachineTimeout(production.target), name: 'production' }));
    writeFileSync(b, JSON.stringify({ ...withSlowMachineTimeout(staging.target), name: 'staging' }));
    const out = join(dir, 'out');

    const started = performance.now();
    const summary = join(dir, 'summary.md');
    const r = await runCli(['--target', a, '--compare', b, '--out', out, '--summary-md', summary]);
    t.diagnostic(`the run of both: ${Math.round(performance.now() - started)} ms`);
    assert.equal(r.code, 1, `staging fails NFT-01, NFT-04, RES-01: exit 1\n${r.stderr}`);
    const c = comparisonIn(out);
    // Latency is compared too (CMP-12): its figures, for a run on a loaded machine that fails on it.
    t.diagnostic(
      `latency, median/p95 ms: ${c.latency.map((l) => `${l.family} ${l.a.medianMs}/${l.a.p95Ms} vs ${l.b.medianMs}/${l.b.p95Ms}`).join('; ')}`,
    );
    // Latency rows (CMP-12) are the machine's: two identical references served by one busy process
    // may answer a family at different speeds, and a row then says so truly. Each must match the
    // family's figures, the slower more than the factor slower; they come after the others (D9
    // on). Every other row is exactly what the fault and the variant change.
    const timing = c.differences.filter((d) => d.cmp === 'CMP-12');
    for (const d of timing) {
      const [family, figure] = d.key.split(': ');
      const l = c.latency.find((x) => x.family === family)!;
      const [a, b] = figure === 'median (ms)' ? [l.a.medianMs, l.b.medianMs] : [l.a.p95Ms, l.b.p95Ms];
      assert.deepEqual([d.a, d.b], [a, b], row(d));
      assert.ok(Math.max(a!, b!) > LATENCY.factor * Math.min(a!, b!), row(d));
    }
    assert.deepEqual(c.differences.slice(8), timing, `the latency rows last:\n${c.differences.map(row).join('\n')}`);
    const n = 8 + timing.length;
    const rows = c.differences.slice(0, 8).map(row);
    assert.deepEqual(rows, expectedRows(c), c.differences.map(row).join('\n'));
    // The price row: found under the NFT rules and, through the events the auth matrix fetched, auth rules only.
    const shape = c.differences[0]!;
    assert.ok(['NFT-01', 'NFT-04'].every((id) => shape.rules.includes(id)));
    assert.ok(
      shape.rules.every((id) => /^(AUTH|NFT|RES)-/.test(id)),
      shape.rules.join(','),
    );
    // What the variant moved: the 401s the errors summary counted became 403s, none lost.
    const [s401, s403] = [c.differences[6]!, c.differences[7]!];
    assert.equal(Number(s401.a), Number(s401.b) + Number(s403.b));
    assert.deepEqual(c.counts, { differences: n, waived: 0, rulesCompared: 70, rulesNotCompared: 0 });
    assert.deepEqual([c.a.failing, c.b.failing], [[], ['NFT-01', 'NFT-04', 'RES-01']]);
    assert.ok(c.latency.length >= 6, 'latency per family on both sides');
    // Each deployment has its own run: staging's reports in <out>/compare.
    const stagingRun = resultsIn(join(out, 'compare'));
    assert.equal(stagingRun.target, 'staging');
    assert.equal(stagingRun.rules['NFT-04'], 'fail');
    assert.equal(resultsIn(out).seed, stagingRun.seed, 'the same plan: one seed');
    assert.deepEqual(resultsIn(out).tolerances, { blockNumbers: 2 });
    // The terminal's closing lines: staging's verdict, then the table.
    assert.match(
      r.stdout,
      new RegExp(
        `production compared with staging: ${n} differences over 70 rules\\n {4}production: PASS\\n ` +
          '{4}staging: FAIL \\(NFT-01, NFT-04, RES-01 failing\\)\\n ' +
          '{4}D1 +body field data\\.payments\\[\\]\\.price: number \\(production\\) vs string \\(staging\\)',
      ),
    );
    // The job summary: FAIL as the exit status says, then the comparison: staging's verdict, then the table.
    const md = readFileSync(summary, 'utf8');
    assert.match(
      md,
      new RegExp(
        '^## ❌ chainprobe: FAIL · target "production" compared with "staging"\\n\\n' +
          '\\*\\*FAIL\\*\\*: no rule failing of the 70 rules checked; staging: 3 rules failing \\(NFT-01, NFT-04, RES-01\\)\\.',
      ),
    );
    const table = md.slice(md.indexOf(`### production compared with staging: ${n} differences over 70 rules\n`));
    assert.ok(table.length < md.length, md);
    for (const line of [
      '- production: PASS',
      '- staging: FAIL \\(NFT-01, NFT-04, RES-01 failing\\)',
      '- D1 body field data.payments\\[\\].price',
    ])
      assert.ok(table.includes(line), `${line}\n${table}`);
    // index.html: the comparison first, its differences table before the rules.
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const main = html.slice(html.indexOf('<main>'));
    assert.ok(
      main.startsWith(`<main>\n<section id="comparison" data-differences="${n}" data-waived="0">`),
      main.slice(0, 200),
    );
    assert.ok(main.indexOf('<table class="diffs"') < main.indexOf('<table class="rulecmp"'));
    assert.ok(main.indexOf('id="comparison"') < main.indexOf('id="rule-matrix"'));

    // After the fact: the two runs' results files give the same table.
    const again = join(dir, 'again');
    const rc = await runCompare([join(out, 'results.json'), join(out, 'compare', 'results.json'), '--out', again]);
    assert.equal(rc.code, 1, rc.stderr);
    const c2 = comparisonIn(again);
    assert.deepEqual(c2.differences, c.differences);
    assert.deepEqual(c2.byRule, c.byRule);
    assert.deepEqual(c2.latency, c.latency);
    assert.ok(rc.stdout.includes(`production compared with staging: ${n} differences over 70 rules`), rc.stdout);

    // Waivers: active for staging's three failing rules, with one for the variant's status.
    const waivers = (list: unknown[]) => {
      const f = join(dir, `waivers-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(f, JSON.stringify({ $schema: '../schemas/waivers.schema.json', waivers: list }));
      return f;
    };
    const known = ['NFT-01', 'NFT-04', 'RES-01'].map((rule) => ({
      rule,
      target: 'staging',
      reason: 'price as a string until the v2.3 indexer ships',
      expires: '2099-12-31',
      link: 'https://tracker.example/BAS-12',
    }));
    const active = waivers(known);
    const w1 = await runCompare([
      join(out, 'results.json'),
      join(out, 'compare', 'results.json'),
      '--out',
      join(dir, 'w1'),
      '--waivers',
      active,
      '--summary-md',
      join(dir, 'w1.md'),
    ]);
    assert.equal(w1.code, 0, `every failure waived: exit 0\n${w1.stdout}${w1.stderr}`);
    // The job summary: the differences no waiver covers first, the waived ones after them.
    const w1md = readFileSync(join(dir, 'w1.md'), 'utf8');
    assert.ok(w1md.indexOf('- D2 status') > 0 && w1md.indexOf('- D2 status') < w1md.indexOf('- D1 body field'), w1md);
    assert.ok(w1md.startsWith('## ✅ chainprobe: PASS'), w1md);
    assert.ok(w1md.includes('- staging: PASS; waived: NFT-01, NFT-04, RES-01'), w1md);
    assert.match(
      w1.stdout,
      new RegExp(
        'NFT-01 \\(staging\\) waived until 2099-12-31: price as a string until the v2\\.3 indexer ships ' +
          '\\(https:\\/\\/tracker\\.example\\/BAS-12\\) \\(covers 2 failing checks, 2 differences\\)',
      ),
    );
    const cw = comparisonIn(join(dir, 'w1'));
    assert.deepEqual(cw.b.waived, ['NFT-01', 'NFT-04', 'RES-01']);
    assert.deepEqual(cw.b.failing, []);
    // The waived failures stay visible: verdicts unchanged, each check with its waiver.
    assert.equal(cw.byRule.find((x) => x.rule === 'NFT-04')!.b, 'fail');
    // A difference found under a waived rule is covered (the price row, and the three verdict rows); the variant's are not.
    assert.deepEqual(
      cw.differences.filter((d) => d.waiver).map((d) => d.id),
      ['D1', 'D4', 'D5', 'D6'],
    );
    // --fail-on-difference: the differences no waiver covers make it 1.
    const w2 = await runCompare([
      join(out, 'results.json'),
      join(out, 'compare', 'results.json'),
      '--out',
      join(dir, 'w2'),
      '--waivers',
      active,
      '--fail-on-difference',
    ]);
    assert.equal(w2.code, 1);
    assert.ok(w2.stdout.includes(`--fail-on-difference: ${4 + timing.length} differences no waiver covers`), w2.stdout);

    // Expired: says so and waives nothing; stale: a waiver nothing failed under is reported.
    const expired = waivers([
      { ...known[1], expires: '2020-01-31' },
      known[0],
      known[2],
      { rule: 'RPC-03', reason: 'sepolia retired', expires: '2099-01-01' },
    ]);
    const w3 = await runCompare([
      join(out, 'results.json'),
      join(out, 'compare', 'results.json'),
      '--out',
      join(dir, 'w3'),
      '--waivers',
      expired,
    ]);
    assert.equal(w3.code, 1, 'NFT-04 fails again once its waiver expired');
    assert.match(w3.stdout, /NFT-04 \(staging\) waiver EXPIRED on 2020-01-31 and waives nothing/);
    assert.match(w3.stdout, /RPC-03 waiver is stale \(nothing it names failed in this run\)/);
    const w3results = resultsIn(join(dir, 'w3'));
    assert.deepEqual(
      (w3results.waivers as { entries: { rule: string; status: string }[] }).entries.map(
        (e) => `${e.rule} ${e.status}`,
      ),
      ['NFT-04 expired', 'NFT-01 active', 'RES-01 active', 'RPC-03 stale'],
    );
    assert.deepEqual(comparisonIn(join(dir, 'w3')).b.failing, ['NFT-04']);
  },
);
