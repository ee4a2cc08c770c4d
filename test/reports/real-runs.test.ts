// The reports of real runs against the embedded reference, as users meet them: the HTML report in
// Chromium where there is one (a clean run and a run with faults), a baseline that notices an observed behaviour
// changing, and the ad hoc node command. The limiter runs at 7200/h with burst 30 so the probes
// take seconds; every rule they judge still applies (T = 0.5 s, Limit 31 > the 20/s cap).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startReference, type RunningReference } from '../../reference/start.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { parseSelectors } from '../../src/select.js';
import { runChainprobe, type RunOutcome } from '../../run/pipeline.js';
import type { ReferenceOptions } from '../../reference/options.js';
import type { ResultsFile } from '../../src/results.js';
import type { TimelineEntry } from '../../src/stages.js';
import { RULES } from '../../src/rules/catalogue.js';
import { checkReportInBrowser, CHART_IDS } from './browser-check.js';
import { closeSharedChromium, sharedChromium, skipWithoutBrowser } from '../support/chromium.js';
import { checkLayout } from './layout-check.js';
import { runCli } from '../safety/support/cli.js';
import { HANG_MS } from '../support/backstops.js';
import { judgeProbeErrors, judgeSteady, runStallMs } from '../support/stalls.js';

const OUT = resolve('test-results/real-runs');
const FAST_LIMITER: Partial<ReferenceOptions> = { hourlyLimit: 7200, burst: 30 };

async function runAgainst(
  options: Partial<ReferenceOptions>,
  only: string | undefined,
  out: string,
  baseline?: ResultsFile,
): Promise<RunOutcome> {
  const ref = await startReference({ ...FAST_LIMITER, ...options });
  try {
    return await runChainprobe({
      target: resolveTarget(ref.target, {}, 'reference'),
      selection: parseSelectors(only),
      outDir: out,
      baseline,
    });
  } finally {
    await ref.close();
  }
}

before(() => rmSync(OUT, { recursive: true, force: true }));
// One browser for the reports of both runs.
after(closeSharedChromium);

test(
  'a clean run: report in Chromium shows every rule, none failing, the limiter charts drawn',
  { timeout: HANG_MS },
  async (t) => {
    const out = join(OUT, 'clean');
    const run = await runAgainst({}, undefined, out);
    assert.equal(
      run.results.summary.fail,
      0,
      JSON.stringify(run.results.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.rule} ${c.message}`)),
    );
    // A clean run sees 429s with retry-after, unless the machine was too starved to send the
    // burst past the limit (then the retry-after chart is rightly empty).
    const timeline = JSON.parse(readFileSync(join(out, 'timeline.json'), 'utf8')) as TimelineEntry[];
    const sawRetryAfter = timeline.some((e) => e.retryAfter !== undefined);
    judgeSteady(t, runStallMs(out), () => assert.ok(sawRetryAfter, 'no 429 with retry-after in a clean run'));
    // The chart's points: the answers' retry-after and the model's, where it predicted a 429.
    const retryAfterPoints = timeline.some((e) => e.retryAfter !== undefined || e.predicted?.retryAfter !== undefined);
    await t.test('in Chromium', { skip: skipWithoutBrowser() }, async () => {
      const drawn = CHART_IDS.filter((id) => id !== 'retry-after' || retryAfterPoints);
      const found = await checkReportInBrowser(
        join(out, 'index.html'),
        { screenshot: join(OUT, 'clean.png'), charts: drawn },
        await sharedChromium(),
      );
      assert.deepEqual(found.rules.map((r) => r.id).sort(), RULES.map((r) => r.id).sort());
      assert.deepEqual(found.failingRules, []);
      // Every chart draws what the probes saw, and only that.
      for (const id of CHART_IDS)
        assert.equal(found.charts[id]!.drawnCoordinates > 0, drawn.includes(id), `chart ${id}`);
      assert.deepEqual(found.blockedRequests, []);
    });
  },
);

test('a run with faults: the failing rules are expanded with their evidence', { timeout: HANG_MS }, async (t) => {
  const out = join(OUT, 'faults');
  const run = await runAgainst(
    // A limiter fault whose catch does not rest on timing (a busy machine cannot blur a burst into it).
    { faults: new Set(['xapikey-case-sensitive', 'hex-leading-zero', 'rl-limit-drifts']) },
    'auth,native,load',
    out,
  );
  const failing = Object.entries(run.results.rules)
    .filter(([, v]) => v === 'fail')
    .map(([id]) => id);
  for (const rule of ['AUTH-03', 'RPC-02', 'RL-02'])
    assert.ok(failing.includes(rule), `${rule} not failing: ${failing.join(', ')}`);
  await t.test('in Chromium', { skip: skipWithoutBrowser() }, async () => {
    const browser = await sharedChromium();
    const found = await checkReportInBrowser(join(out, 'index.html'), { screenshot: join(OUT, 'faults.png') }, browser);
    const layout = await checkLayout(join(out, 'index.html'), join(OUT, 'faults-layout'), browser);
    assert.deepEqual([...found.failingRules].sort(), [...failing].sort());
    assert.match(layout.laptop.headline, /^FAIL /);
    for (const rule of failing) {
      const row = found.rules.find((r) => r.id === rule)!;
      assert.ok(row.open && row.visible, `${rule} is not expanded and visible`);
    }
  });
});

test(
  'a baseline notices an observed behaviour that changed (missing credentials: 401 -> 403)',
  { timeout: HANG_MS },
  async () => {
    const first = await runAgainst({}, 'auth', join(OUT, 'baseline-1'));
    const second = await runAgainst(
      { variants: new Set(['missing-credentials-403']) },
      'auth',
      join(OUT, 'baseline-2'),
      first.results,
    );
    // The variant breaks no rule: the verdicts stay; only the observation moves.
    assert.deepEqual(second.results.rules, first.results.rules);
    const drift = second.baseline!.items.filter((i) => i.rule === 'AUTH-07' && i.kind === 'observation-changed');
    assert.ok(drift.length > 0, `no AUTH-07 drift: ${JSON.stringify(second.baseline!.items.slice(0, 5))}`);
    assert.ok(
      drift.some((i) => /401/.test(i.text) && /403/.test(i.text)),
      drift.map((i) => i.text).join('\n'),
    );
    const html = readFileSync(join(OUT, 'baseline-2', 'index.html'), 'utf8');
    assert.match(html, /data-drift-kind="observation-changed"/);
  },
);

let nodeRef: RunningReference | undefined;
after(async () => nodeRef?.close());

test('the ad hoc node command runs only the node and limiter checks of that node', { timeout: HANG_MS }, async (t) => {
  nodeRef = await startReference(FAST_LIMITER);
  const horizon = nodeRef.target.nodes!.horizon!;
  const out = join(OUT, 'adhoc');
  const run = await runCli(
    [
      '--node',
      'horizon',
      '--endpoint',
      horizon.endpoint,
      '--token-env',
      'ADHOC_NODE_TOKEN',
      '--hourly-limit',
      '7200',
      '--out',
      out,
    ],
    { env: { ADHOC_NODE_TOKEN: horizon.token } },
  );
  assert.ok(!(run.stdout + run.stderr).includes(horizon.token), 'the token was printed');
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsFile;
  // Exit 0 needs every RL check judged, which rests on timing: judged on a steady run, the probes'
  // could-not-test up to the plan's margin (judgeProbeErrors).
  const bad = (probes: boolean, ...verdicts: string[]) =>
    results.checks
      .filter((c) => verdicts.includes(c.verdict) && c.rule.startsWith('RL-') === probes)
      .map((c) => `${c.verdict} ${c.rule}: ${c.message}`);
  const stall = runStallMs(out);
  assert.equal(
    run.code,
    bad(true, 'fail', 'error').length + bad(false, 'fail', 'error').length ? 1 : 0,
    run.stderr.slice(-800),
  );
  judgeSteady(t, stall, () => assert.deepEqual([...bad(false, 'fail', 'error'), ...bad(true, 'fail')], []));
  judgeProbeErrors(
    t,
    stall,
    results.checks.filter((c) => c.rule.startsWith('RL-')),
    'the probes could not test',
  );
  const sections = new Set(results.checks.map((c) => c.rule.split('-')[0]));
  assert.deepEqual([...sections].sort(), ['NAUTH', 'NODE', 'RL']);
  const ran = new Set(results.checks.filter((c) => c.verdict !== 'skipped').map((c) => c.rule));
  for (const rule of ['NAUTH-04', 'NAUTH-07', 'NODE-07', ...RULES.filter((r) => r.section === 'RL').map((r) => r.id)])
    assert.ok(ran.has(rule), `${rule} did not run`);
  // The other node kinds are not in the in-memory target: their checks say so instead of running.
  for (const c of results.checks.filter((x) => x.rule === 'NODE-01' || x.rule === 'NODE-06'))
    assert.equal(c.verdict, 'skipped', c.id);
});
