// Playwright's own report agrees with chainprobe: a test with a failing check is failed there,
// with a step per rule and inside it a step per check that did not pass, located in its spec file,
// and rule ids are tags that --grep selects by.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { startReference } from '../../reference/start.js';
import { isRuleId } from '../../src/rules/catalogue.js';
import { resolveTarget } from '../../src/target-file/load.js';
import { ruleStepTitle, stepTitle } from '../../contracts/steps.js';
import { htmlReportFiles, runAgainstReference } from './harness.js';
import { HANG_MS } from '../support/backstops.js';

interface PwStep {
  title: string;
  location?: { file: string; line: number };
  error?: unknown;
  steps?: PwStep[];
}
interface PwTest {
  title: string;
  tags: string[];
  outcome: string;
  location: { file: string; line: number };
  results: { status?: string; steps: PwStep[]; errors?: { message?: string }[] }[];
}

describe("Playwright's report", () => {
  it('counts a test with a failing check as failed: a step per rule, in it a step per check that did not pass, located in its spec file', async () => {
    let html = '';
    const run = await runAgainstReference({
      reference: { faults: new Set(['event-block-number-string']) },
      only: 'NFT-01',
      contracts: { htmlReport: true, workers: 1 },
      inspect: (out) => (html = readFileSync(join(out, 'playwright', 'index.html'), 'utf8')),
    });
    // chainprobe's own verdicts: the fault's fail, and nothing made up because Playwright failed the test.
    assert.ok(run.checks.some((c) => c.rule === 'NFT-01' && c.verdict === 'fail'));
    assert.deepEqual(
      run.checks.filter((c) => c.verdict === 'error').map((c) => c.message),
      [],
    );

    const files = htmlReportFiles(html);
    const report = JSON.parse(files.find((f) => f.name === 'report.json')!.text) as {
      stats: { unexpected: number; expected: number };
    };
    const tests = files
      .filter((f) => f.name !== 'report.json')
      .flatMap((f) => (JSON.parse(f.text) as { tests: PwTest[] }).tests);
    const events = tests.find((t) => t.tags.includes('@NFT-01'));
    assert.ok(events, `no test tagged @NFT-01 among ${tests.map((t) => t.title).join(' | ')}`);
    assert.equal(events.outcome, 'unexpected');
    assert.equal(report.stats.unexpected, 1);
    // The spec file Playwright ran: compiled (src/compiled.ts), or the source where it could not be.
    assert.match(events.location.file, /^nft\.spec\.[jt]s$/);
    const result = events.results[0]!;
    assert.equal(result.status, 'failed');
    assert.match(result.errors?.[0]?.message ?? '', /fail NFT-01 /);

    const mine = run.checks.filter((c) => c.rule === 'NFT-01');
    assert.ok(
      mine.some((c) => c.verdict === 'pass'),
      'the fault leaves passing NFT-01 checks too',
    );
    const ruleSteps = result.steps.filter((s) =>
      /^(PASS|FAIL|OBSERVED|SKIPPED|ERROR) [A-Z]+-\d+: \d+ checks? \(/.test(s.title),
    );
    const rule = ruleSteps.find((s) => s.title === ruleStepTitle('NFT-01', mine));
    assert.ok(rule, `no step for NFT-01 among ${ruleSteps.map((s) => s.title).join(' | ')}`);
    assert.match(rule.title, /^FAIL NFT-01: /);
    assert.ok(rule.error !== undefined, "the failing rule's step is failed");
    const at = (s: PwStep) => [s.location?.file, s.location?.line];
    assert.deepEqual(at(rule), [events.location.file, events.location.line]);
    // Inside it: the checks that did not pass, one step each; passing checks are only counted.
    const inner = (rule.steps ?? []).filter((s) => !s.title.startsWith('Attach'));
    const notPassing = mine.filter((c) => c.verdict !== 'pass');
    assert.deepEqual(
      inner.map((s) => s.title),
      notPassing.map(stepTitle),
    );
    for (const c of notPassing) {
      const step = inner.find((s) => s.title === stepTitle(c))!;
      assert.deepEqual(at(step), [events.location.file, events.location.line]);
      assert.equal(
        step.error !== undefined,
        c.verdict === 'fail' || c.verdict === 'error',
        `${c.verdict} step ${c.id}: error ${JSON.stringify(step.error)}`,
      );
    }
  });

  it('a test failing on its checks costs no worker: one worker runs every test of the family, failed ones included', async () => {
    const run = await runAgainstReference({
      reference: { faults: new Set(['event-block-number-string', 'collection-verified-string', 'asset-wrong-token']) },
      only: 'nft',
      contracts: { htmlReport: false, workers: 1 },
    });
    const tests = run.trace!.tests;
    const failed = tests.filter((t) => t.status === 'failed');
    assert.ok(failed.length >= 3, `failed tests: ${failed.map((t) => t.title).join(', ')}`);
    assert.deepEqual([...new Set(tests.map((t) => t.workerIndex))], [0], 'no worker started again');
    for (const rule of ['NFT-01', 'NFT-05', 'NFT-06'])
      assert.ok(
        run.checks.some((c) => c.rule === rule && c.verdict === 'fail'),
        `${rule} fails`,
      );
  });

  it('tags every test with its rule ids: --grep @<rule> selects exactly the tests of that rule', async () => {
    const ref = await startReference();
    try {
      const target = resolveTarget(ref.target, {});
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        FORCE_COLOR: '0',
        CHAINPROBE_TARGET: JSON.stringify(target),
      };
      const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
      const list = (...extra: string[]) => {
        const r = spawnSync(
          process.execPath,
          [cli, 'test', '-c', resolve('contracts/playwright.config.ts'), '--list', '--reporter=json', ...extra],
          { env, encoding: 'utf8', timeout: HANG_MS },
        );
        assert.equal(r.status, 0, r.stderr);
        type Suite = { specs?: { title: string; tags: string[] }[]; suites?: Suite[] };
        const walk = (s: Suite): { title: string; tags: string[] }[] => [
          ...(s.specs ?? []),
          ...(s.suites ?? []).flatMap(walk),
        ];
        return (JSON.parse(r.stdout) as { suites: Suite[] }).suites.flatMap(walk);
      };
      const all = list();
      // Every test names its rules in its tags (the JSON reporter lists them without their @), never in its title.
      for (const t of all) {
        assert.ok(t.tags.length > 0 && t.tags.every(isRuleId), `tags of "${t.title}": ${t.tags.join(' ')}`);
        assert.ok(!t.tags.some((r) => t.title.includes(r)), `"${t.title}" repeats its rule ids`);
      }
      for (const rule of ['NFT-05', 'AUTH-07', 'RPC-04']) {
        const want = all
          .filter((t) => t.tags.includes(rule))
          .map((t) => t.title)
          .sort();
        assert.ok(want.length > 0, rule);
        assert.deepEqual(
          list('--grep', `@${rule}`)
            .map((t) => t.title)
            .sort(),
          want,
          rule,
        );
      }
    } finally {
      await ref.close();
    }
  });
});
