// The work the contract stage sends itself while Playwright starts (contracts/stage-work.ts): the
// AUTH checks it judges over the auth matrix and writes for the AUTH tests are those the answers in
// hand give, and the file holds neither a credential nor a near miss of one; every work of
// contracts/work.ts (node paths, NFT, native, universal, errors) gets its file of checks; the workers
// are told to hold back their requests to every host the stage sends to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../../reference/start.js';
import { resolveTarget, secretsOf } from '../../src/target-file/load.js';
import { Redactor } from '../../src/record/redact.js';
import { Recorder } from '../../src/record/recorder.js';
import { Budget } from '../../src/budget.js';
import { closeHttp } from '../../src/http/client.js';
import type { RunContext } from '../../src/stages.js';
import { ApiClient } from '../../contracts/api.js';
import { Checks } from '../../contracts/checks.js';
import { readPublished } from '../../contracts/stage-files.js';
import type { CheckResult } from '../../src/verdict.js';
import { ENV } from '../../contracts/env.js';
import { planStageWork } from '../../contracts/stage-work.js';
import { FAMILY_WORKS } from '../../contracts/families.js';
import { runContracts } from '../../contracts/run.js';
import type { StageHold } from '../../contracts/stage-files.js';
import { judgeAuth } from '../../contracts/auth-judge.js';
import { AUTH_RULES, authPlanOf, sendAuth } from '../../contracts/auth-send.js';
import { stageKey } from '../../contracts/work.js';
import { Samples } from '../../contracts/samples.js';
import { withSlowMachineTimeout } from '../support/backstops.js';

const SEED = 424242;

test('the stage sends early: AUTH checks judged as in hand, no credential on disk, every work checked, its hosts held', async () => {
  const ref = await startReference();
  const workDir = mkdtempSync(join(tmpdir(), 'chainprobe-stage-work-'));
  try {
    const target = withSlowMachineTimeout(resolveTarget(ref.target, {}));
    const budgetFile = join(workDir, 'budget.count');
    writeFileSync(budgetFile, '');
    const redactor = new Redactor(secretsOf(target), SEED);
    const ctx: RunContext = {
      target,
      selected: () => true,
      outDir: join(workDir, 'out'),
      workDir,
      budgetFile,
      deadline: Date.now() + target.limits.maxSeconds * 1000,
      seed: SEED,
      redactor,
      signal: new AbortController().signal,
      progress: () => {},
    };
    const plan = planStageWork(ctx, () => true, { early: true });
    const done = await plan.run();
    const text = readFileSync(plan.env[ENV.authChecks]!, 'utf8');

    // The answers in hand are sent on a budget of their own: the stage spent much of the run's.
    const ownBudget = join(workDir, 'in-hand.count');
    writeFileSync(ownBudget, '');
    const budget = new Budget({
      maxRequests: target.limits.maxRequests,
      deadline: ctx.deadline,
      counterFile: ownBudget,
    });
    const api = new ApiClient(new Recorder(redactor), budget, { timeoutMs: target.limits.timeoutMs, perHost: 8 });
    const inHand = await sendAuth(
      api,
      new Samples(target),
      authPlanOf(target, SEED, () => true),
    );
    budget.close();

    const matrix = done.trace.find((w) => w.title === 'auth matrix');
    // Its requests: one per answer, and the first rarity page (the sample asset).
    assert.equal(matrix?.requests, inHand.usages.length + inHand.none.length + inHand.wrong.length + 1);
    const nearMisses = inHand.wrong.flatMap((w) => w.w.values).filter((v) => v.length >= 8);
    assert.ok(nearMisses.length > 20, `${nearMisses.length} near misses sent`);
    for (const secret of [...secretsOf(target), ...nearMisses])
      assert.ok(
        !text.includes(secret),
        `the file holds a credential or a near miss of one (${secret.length} characters)`,
      );

    const fromStage = JSON.parse(text) as { checks: CheckResult[]; error?: string };
    assert.equal(fromStage.error, undefined);
    const inHandChecks = new Checks(redactor, () => true);
    for (const rule of AUTH_RULES) inHandChecks.state(judgeAuth(rule, inHand));
    const verdicts = (checks: readonly CheckResult[]) =>
      checks.map((c) => `${c.rule} ${c.id} ${c.verdict} ${c.message}`);
    assert.ok(fromStage.checks.length > 100, `${fromStage.checks.length} AUTH checks`);
    assert.deepEqual(verdicts(fromStage.checks), verdicts(inHandChecks.results));

    // Every work of the target has its checks: the rate-limited node's too (no probes to wait for), held by no host.
    const files = JSON.parse(plan.env[ENV.stageChecks]!) as Record<string, string>;
    const env = { target, seed: SEED, startedAt: ctx.deadline - target.limits.maxSeconds * 1000 };
    const works = Object.entries(FAMILY_WORKS).flatMap(([family, of]) =>
      of(env).map((w, i) => ({ ...w, key: stageKey(family, i) })),
    );
    assert.deepEqual(Object.keys(files).sort(), works.map((w) => w.key).sort());
    assert.deepEqual(
      new Set(works.map((w) => w.key.split(':')[0])),
      new Set(['node', 'nft', 'native', 'universal', 'errors']),
    );
    for (const [key, f] of Object.entries(files)) {
      const got = JSON.parse(readFileSync(f, 'utf8')) as { checks: unknown[]; error?: string };
      // The errors work only provokes answers (ERR-01 is built from the run's non-2xx): no check of its own.
      const checked = key.startsWith('errors:') || got.checks.length > 0;
      assert.ok(checked && got.error === undefined, `${key}: ${JSON.stringify(got).slice(0, 300)}`);
    }
    // The stage hands back its non-2xx answers, the errors work's causes among them (ERR-01).
    const causes = new Set(done.non2xx.map((n) => n.cause));
    for (const cause of [
      'an unknown path',
      'no credentials',
      'a block height the chain does not have',
      'no node token',
    ])
      assert.ok(causes.has(cause), `no non-2xx answer for "${cause}"`);
    const hold = JSON.parse(plan.env[ENV.stageHold]!) as StageHold;
    const host = (u: string | undefined) => new URL(u!).host;
    assert.deepEqual(
      [...hold.hosts].sort(),
      [
        ...new Set([
          host(target.api!.baseUrl),
          host(target.api!.legacyBaseUrl),
          host(target.nodes.blockRest!.endpoint),
          host(target.nodes.chainB!.endpoint),
          host(target.nodes.chainB!.websocketUrl),
          target.nodes.chainB!.grpcAddress,
        ]),
      ].sort(),
    );
    assert.equal(
      hold.files.length,
      works.filter((w) => !w.rateLimited).length + 1,
      'the early works and the auth matrix',
    );
  } finally {
    await closeHttp();
    await ref.close();
    rmSync(workDir, { recursive: true, force: true });
  }
});

test('a stage that could not send the matrix gives the AUTH tests its reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-stage-reason-'));
  try {
    // What authInStage writes when the matrix throws, and what each AUTH test then reads (auth.spec.ts).
    const file = join(dir, 'auth-checks.json');
    writeFileSync(file, JSON.stringify({ checks: [], error: 'budget: the run reached limits.maxRequests (5)' }));
    await assert.rejects(readPublished(file, Date.now() + 1000, 'the auth matrix'), /limits\.maxRequests \(5\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a stage that cannot write its work stops the contract run at once, not at the deadline', async () => {
  const ref = await startReference();
  const workDir = mkdtempSync(join(tmpdir(), 'chainprobe-stage-fails-'));
  try {
    const target = resolveTarget(ref.target, {});
    const budgetFile = join(workDir, 'budget.count');
    writeFileSync(budgetFile, '');
    // The AUTH checks' temporary file is a folder: the stage can write neither them nor why.
    mkdirSync(join(workDir, 'auth-checks.json.tmp', 'in-the-way'), { recursive: true });
    const selected = (rule: string) => rule.startsWith('AUTH-');
    const ctx: RunContext = {
      target,
      selected,
      outDir: join(workDir, 'out'),
      workDir,
      budgetFile,
      deadline: Date.now() + 600_000,
      seed: SEED,
      redactor: new Redactor(secretsOf(target), SEED),
      signal: new AbortController().signal,
      progress: () => {},
    };
    const started = Date.now();
    await assert.rejects(runContracts(ctx, { htmlReport: false }), /EISDIR|illegal operation on a directory/);
    // The AUTH tests would have waited for the file until the deadline, ten minutes away.
    assert.ok(Date.now() - started < 120_000, `stopped after ${Date.now() - started} ms`);
  } finally {
    await closeHttp();
    await ref.close();
    rmSync(workDir, { recursive: true, force: true });
  }
});
