// Secrets canary: the whole suite (contracts in the engine, then in Playwright, probes, every report
// writer, the Playwright HTML report with its embedded zip, the HAR, progress logs, error messages, the baseline diff)
// runs twice against the reference holding recognisable canary credentials, then every file it
// wrote and everything it printed is searched for each canary in every spelling, and for every
// near miss the auth checks derived from them (src/auth/near-miss.ts, per run seed). Zero hits.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { nearMisses } from '../../src/auth/near-miss.js';
import { authProbeOf } from '../../src/auth/surface.js';
import { REDACTED_SUFFIX } from '../../src/record/redact.js';
import type { ResultsFile } from '../../src/results.js';
import { runCli, stackTraceLines, type CliRun } from './support/cli.js';
import { canaryCredentials, QUICK_PROBES, startWatchedReference } from './support/reference.js';
import {
  describeHit,
  emptyReport,
  scanBlob,
  scanTree,
  secretForms,
  unzip,
  zipOf,
  type ScanReport,
} from './support/scan.js';
import { nginxSkip } from '../support/nginx.js';
import { closedPort } from '../support/ports.js';
import { harProblems } from '../interop/support/har-schema.js';
import { makePki, opensslSkip, startTlsFront } from '../support/tls.js';

function readResults(out: string): ResultsFile {
  return JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
}

/** Every near miss a run with this seed could send, named by credential and kind (never by value). */
function nearMissesOf(creds: Record<string, string>, seed: number): [name: string, value: string][] {
  const other: Record<string, string | undefined> = { apiKey: creds.legacyApiKey, legacyApiKey: creds.apiKey };
  return Object.entries(creds).flatMap(([name, secret]) =>
    nearMisses(secret, seed, other[name])
      .filter((m) => m.kind !== 'other-generation')
      .map((m): [string, string] => [`${name} near miss ${m.kind} (seed ${seed})`, m.value.trim()]),
  );
}

/**
 * The compile caches of tsx and Playwright live in the temp folder; a fresh one would make every run
 * compile the project again. They hold our own code and our dependencies', not run output: linked,
 * not scanned.
 */
const isCompileCache = (name: string): boolean => /^(tsx|playwright-transform-cache)-\d+$/.test(name);

function linkCompileCaches(into: string): void {
  for (const n of readdirSync(tmpdir()).filter(isCompileCache)) symlinkSync(join(tmpdir(), n), join(into, n));
}

test('the scanner finds a planted secret in every spelling, in files, zips embedded in HTML and base64 runs', () => {
  const secret = 'CANARY-legacy+QWERTZX/PLMKNJB=';
  const dir = join(tmpdir(), `chainprobe-safety-scan-${process.pid}`);
  mkdirSync(join(dir, 'deep'), { recursive: true });
  const forms = secretForms(secret);
  for (const f of ['raw', 'url-encoded', 'base64'])
    assert.ok(
      forms.some((x) => x.form === f),
      `no ${f} form`,
    );
  // base64url is listed unless it spells the same as base64 (no + or / in this one).
  assert.ok(forms.some((x) => x.text === Buffer.from(secret).toString('base64url')));
  forms.forEach((f, i) => writeFileSync(join(dir, 'deep', `f${i}.txt`), `before ${f.text} after`));
  const zip = zipOf([
    { name: 'data/report.json', data: Buffer.from(JSON.stringify({ title: `GET /x?apiKey=${secret}` })) },
  ]);
  writeFileSync(
    join(dir, 'index.html'),
    `<script>window.data = "data:application/zip;base64,${zip.toString('base64')}";</script>`,
  );
  writeFileSync(
    join(dir, 'trace.txt'),
    `attachment: ${Buffer.from(`{"headers":{"authorization":"Bearer ${secret}"}}`).toString('base64')}`,
  );
  writeFileSync(join(dir, 'kept5.txt'), `key ${secret.slice(0, 5)}${REDACTED_SUFFIX}`);
  writeFileSync(join(dir, 'tail.txt'), `…${secret.slice(-9)}`);
  writeFileSync(join(dir, 'clean.txt'), `key ${secret.slice(0, 4)}${REDACTED_SUFFIX}`);
  const report = scanTree(dir, [secret]);
  const where = (suffix: string) => report.hits.some((h) => h.where.endsWith(suffix) || h.where.includes(suffix));
  forms.forEach((_f, i) => assert.ok(where(`f${i}.txt`), `form ${forms[i]!.form} not found`));
  assert.ok(where('index.html!data/report.json'), 'secret inside the embedded zip not found');
  assert.ok(where('trace.txt (base64 run'), 'secret inside a base64 run not found');
  assert.ok(where('kept5.txt'), 'a redacted form keeping 5 characters not flagged');
  assert.ok(where('tail.txt'), 'the tail of a secret not flagged');
  assert.ok(!where('clean.txt'), 'a redacted form keeping 4 characters flagged');
  assert.deepEqual(
    unzip(zip).map((e) => e.name),
    ['data/report.json'],
  );
  rmSync(dir, { recursive: true, force: true });
});

test('no canary credential leaks from a whole run and a baseline re-run: files, Playwright zip, output, errors', async (t) => {
  const creds = canaryCredentials();
  const names = Object.keys(creds);
  const secrets = Object.values(creds);
  const credsByName = creds as unknown as Record<string, string>;
  const ref = await startWatchedReference({ ...QUICK_PROBES, credentials: creds });
  try {
    // The scan needs whole runs: room in the budget for the probes' extra bursts on a busy machine
    // (the contract checks alone send about 700 requests beside them).
    const target = ref.writeTarget((t) => {
      t.limits = { ...t.limits, maxRequests: 3000 };
    });
    const out1 = join(ref.dir, 'run1');
    const out2 = join(ref.dir, 'run2');
    // The runs get a temp folder of their own: whatever they put there (work dir, Playwright
    // scratch) is output too, and must be gone when they are done.
    const tmp = join(ref.dir, 'tmp');
    mkdirSync(tmp);
    linkCompileCaches(tmp);
    const env = { TMPDIR: tmp };
    // Run 1 also writes every exchange as HAR (--har), inside its output folder, so the scan covers it.
    const har1 = join(out1, 'run.har');
    const r1 = await runCli(['--target', target, '--out', out1, '--har', har1], { env });
    // Run 2 hosts the contract rules in Playwright Test, so its reporters and HTML report are scanned too.
    const r2 = await runCli(
      ['--target', target, '--out', out2, '--baseline', join(out1, 'results.json'), '--runner', 'playwright'],
      { env },
    );
    t.diagnostic(
      `run 1: exit ${r1.code} in ${Math.round(r1.wallMs)} ms; run 2: exit ${r2.code} in ${Math.round(r2.wallMs)} ms; ` +
        `reference saw ${JSON.stringify(ref.options.counters.snapshot())}`,
    );

    // Error messages: a target file that is not JSON where the parser stops inside a credential,
    // and the ad hoc node mode against a port that refuses, with the token from the environment.
    const broken = join(ref.dir, 'broken.json');
    writeFileSync(
      broken,
      readFileSync(target, 'utf8').replace(`"${creds.horizonToken}"`, `"${creds.horizonToken} oops`),
    );
    const r3 = await runCli(['--target', broken, '--out', join(ref.dir, 'run3')], { env });
    const refused = await closedPort();
    t.after(() => refused.close());
    const refusedEndpoint = `http://127.0.0.1:${refused.port}`;
    const r4 = await runCli(
      [
        '--node',
        'horizon',
        '--endpoint',
        refusedEndpoint,
        '--token-env',
        'SAFETY_NODE_TOKEN',
        '--only',
        'RL-02',
        '--out',
        join(ref.dir, 'run4'),
      ],
      {
        env: { ...env, SAFETY_NODE_TOKEN: creds.horizonToken },
      },
    );
    t.diagnostic(
      `bad target file: exit ${r3.code}; node mode against a refusing port: exit ${r4.code} in ${Math.round(r4.wallMs)} ms`,
    );

    // The runs did what the scan assumes: the whole suite, both report sets, the baseline diff.
    for (const [r, out] of [
      [r1, out1],
      [r2, out2],
    ] as [CliRun, string][]) {
      assert.ok(r.code === 0 || r.code === 1, `exit ${r.code}: ${r.stderr.slice(-500)}`);
      const results = readResults(out);
      assert.ok(results.summary.pass > 100, `only ${results.summary.pass} checks passed: the credentials did not work`);
      assert.notEqual(results.limiter, null, 'the probes did not run');
      for (const f of ['index.html', 'junit.xml', 'timeline.json', ...(out === out2 ? ['playwright/index.html'] : [])])
        assert.ok(existsSync(join(out, f)), `${f} missing`);
      const timeline = JSON.parse(readFileSync(join(out, 'timeline.json'), 'utf8')) as unknown[];
      const rl = results.checks.filter((c) => c.rule.startsWith('RL-') && c.verdict !== 'pass');
      assert.ok(
        timeline.length > 20,
        `the probes sent ${timeline.length} requests; RL checks not passing: ` +
          rl.map((c) => `${c.id} ${c.verdict}: ${c.message}`).join(' | '),
      );
      assert.deepEqual(stackTraceLines(r.stderr + r.stdout), []);
    }
    assert.ok(existsSync(join(out2, 'baseline-diff.json')), 'baseline-diff.json missing');
    const har = JSON.parse(readFileSync(har1, 'utf8')) as { log: { pages: { id: string }[]; entries: unknown[] } };
    assert.deepEqual(harProblems(har), []);
    // One page per stage, in the order their first requests went (side by side, the probes' may go first).
    assert.deepEqual(har.log.pages.map((p) => p.id).sort(), ['contracts', 'probes']);
    assert.ok(har.log.entries.length > 500, `the HAR holds ${har.log.entries.length} entries`);
    assert.equal(r3.code, 2);
    assert.match(r3.stderr, /not valid JSON/);
    assert.equal(r4.code, 1);
    // The refusal was found before any request (no URL with the token was ever built) and said once.
    assert.match(
      r4.stdout,
      new RegExp(`cannot reach 127\\.0\\.0\\.1:${refused.port} \\(connection refused\\): \\d+ checks? could not run`),
    );

    // The near misses of both runs (each drew its own seed, written to results.json) are secrets too.
    const seeds = [readResults(out1).seed, readResults(out2).seed];
    assert.ok(
      seeds.every((s) => typeof s === 'number'),
      `results.json seeds: ${JSON.stringify(seeds)}`,
    );
    const misses = seeds.flatMap((s) => nearMissesOf(credsByName, s as number));
    names.push(...misses.map(([n]) => n));
    secrets.push(...misses.map(([, v]) => v));
    // They were sent, in every kind, to the API and to the nodes.
    const sentKinds = new Set(readResults(out1).checks.flatMap((c) => authProbeOf(c)?.probe ?? []));
    for (const kind of [
      'first-changed',
      'middle-changed',
      'last-changed',
      'case-changed',
      'char-cut',
      'first-half',
      'char-added',
      'whitespace',
      'empty',
      'dup-wrong-first',
    ])
      assert.ok(sentKinds.has(kind as never), `no ${kind} near miss was sent`);

    const report: ScanReport = emptyReport();
    for (const out of [out1, out2, join(ref.dir, 'run4')]) scanTree(out, secrets, report);
    if (existsSync(join(ref.dir, 'run3'))) scanTree(join(ref.dir, 'run3'), secrets, report);
    [r1, r2, r3, r4].forEach((r, i) => {
      scanBlob(r.stdout, `run ${i + 1} stdout`, secrets, report);
      scanBlob(r.stderr, `run ${i + 1} stderr`, secrets, report);
    });
    // Anything a run left behind in the temp folder is output too.
    // A cache the runs made here (none existed yet on this machine) is not output either.
    const leftovers = readdirSync(tmp).filter((n) => !isCompileCache(n));
    scanTree(tmp, secrets, report);
    t.diagnostic(
      `scanned ${report.files.length} files, ${report.zipEntries.length} zip entries, ${report.base64Runs} base64 runs; ` +
        `leftover temp folders: ${leftovers.join(', ') || 'none'}`,
    );

    assert.deepEqual(
      report.hits.map((h) => describeHit(h, names)),
      [],
      'a credential leaked',
    );
    // The scan looked where the secrets could have gone: the Playwright report's zip holds JSON test results.
    assert.ok(
      report.zipEntries.filter((e) => e.endsWith('.json')).length >= 2,
      `zip entries: ${report.zipEntries.join(', ')}`,
    );
    // Redaction kept at most 4 characters, and it did happen (the forms were recorded, masked).
    const masked = `${creds.apiKey.slice(0, 4)}${REDACTED_SUFFIX}`;
    const maskedEncoded = encodeURIComponent(masked);
    const text = [
      ...['results.json', 'timeline.json', 'index.html', 'run.har'].map((f) => join(out1, f)),
      join(out2, 'playwright', 'index.html'),
    ]
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const zips = [...text.matchAll(/data:application\/zip;base64,([A-Za-z0-9+/=]+)/g)].flatMap((m) =>
      unzip(Buffer.from(m[1]!, 'base64')).map((e) => e.data.toString('utf8')),
    );
    const all = [text, ...zips].join('\n');
    assert.ok(all.includes(masked) || all.includes(maskedEncoded), `no masked credential (${masked}) in the reports`);
    assert.deepEqual(leftovers, [], 'the run left temporary folders behind');
  } finally {
    await ref.close();
  }
});

test(
  'a TLS run with a client certificate (mutual TLS, nginx, private CA) leaks neither the canary credentials nor any key material',
  { skip: nginxSkip() || opensslSkip() },
  async (t) => {
    const creds = canaryCredentials();
    const ref = await startWatchedReference({ credentials: creds });
    const pki = makePki();
    const front = await startTlsFront(ref.target, pki, { mtls: true });
    try {
      const target = ref.writeTarget((tf) =>
        Object.assign(tf, structuredClone(front.target), {
          tls: { ca: pki.caCert, cert: pki.clientCert, key: pki.clientKey },
        }),
      );
      const out = join(ref.dir, 'tls');
      const r = await runCli(['--target', target, '--only', 'node', '--out', out], {
        env: {},
      });
      // The same target without the client certificate: nginx completes the handshake and answers 400
      // ("No required SSL certificate was sent"), so there are failure messages and exchanges to scan too.
      const noCert = ref.writeTarget((tf) =>
        Object.assign(tf, structuredClone(front.target), { tls: { ca: pki.caCert } }),
      );
      const r2 = await runCli(['--target', noCert, '--only', 'node', '--out', join(ref.dir, 'tls-no-cert')], {
        env: {},
      });
      t.diagnostic(
        `mTLS run: exit ${r.code} in ${Math.round(r.wallMs)} ms; without the client certificate: exit ${r2.code} in ${Math.round(r2.wallMs)} ms`,
      );
      const results = readResults(out);
      // The client certificate was used: nginx refuses every handshake without it.
      assert.ok(
        results.checks.some((c) => c.rule === 'NODE-06' && c.verdict === 'pass'),
        r.stdout,
      );
      assert.ok(results.summary.pass > 10, `only ${results.summary.pass} passed`);
      assert.deepEqual(results.tls, { insecure: false, ca: ['ca.pem'], clientCertificate: true });
      assert.ok(existsSync(join(ref.dir, 'tls-no-cert', 'results.json')), r2.stderr);

      // Key material: every line of both private keys' PEM bodies, and the keys' DER in base64 as one run.
      const keyLines = [pki.clientKey, pki.serverKey].flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l.length >= 16 && !l.startsWith('-----')),
      );
      const secrets = [...Object.values(creds), ...keyLines];
      const report: ScanReport = emptyReport();
      for (const dir of [out, join(ref.dir, 'tls-no-cert')]) scanTree(dir, secrets, report);
      [r, r2].forEach((x, i) => {
        scanBlob(x.stdout, `tls run ${i + 1} stdout`, secrets, report);
        scanBlob(x.stderr, `tls run ${i + 1} stderr`, secrets, report);
      });
      assert.deepEqual(
        report.hits.map((h) => describeHit(h, [...Object.keys(creds), ...keyLines.map((_l, i) => `key line ${i}`)])),
        [],
        'a credential or key leaked',
      );
      assert.deepEqual(stackTraceLines(r.stderr + r.stdout + r2.stderr + r2.stdout), []);
    } finally {
      await front.nginx.stop();
      pki.close();
      await ref.close();
    }
  },
);
