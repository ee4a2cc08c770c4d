// A contract test that dies (timeout, throw) becomes one `error` check per rule it declared: the
// reporter reads those rules from the test's Playwright tags, and names the check after its title.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { ENV } from '../../contracts/env.js';
import type { ChecksLine } from '../../contracts/protocol.js';

const dir = mkdtempSync(join(tmpdir(), 'chainprobe-reporter-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const checksFile = join(dir, 'checks.jsonl');
process.env[ENV.target] = JSON.stringify({
  name: 't',
  limits: { maxSeconds: 60, maxRequests: 10, timeoutMs: 1000 },
  api: { apiKey: 'k-secret-123456' },
  nodes: {},
});
process.env[ENV.only] = 'NFT-07,NFT-09,NFT-10';
process.env[ENV.checksFile] = checksFile;
// The reporter reads the environment when it is built (suiteEnv caches it).
const { default: ChainprobeReporter } = await import('../../contracts/reporter.js');

/** A test of nft.spec.ts as Playwright hands it to reporters (only what the reporter reads). */
function testCase(title: string, tags: string[]): TestCase {
  const file = {
    type: 'file',
    title: 'nft.spec.ts',
    location: { file: '/suite/contracts/nft.spec.ts', line: 0, column: 0 },
  };
  return {
    title,
    tags,
    timeout: 4000,
    annotations: [],
    parent: { type: 'describe', parent: file },
  } as unknown as TestCase;
}
const result = (status: TestResult['status']) =>
  ({
    status,
    startTime: new Date(0),
    workerIndex: 0,
    parallelIndex: 0,
    duration: 4001,
    attachments: [],
    annotations: [],
    errors: [],
    steps: [],
    stdout: [],
    stderr: [],
  }) as unknown as TestResult;

describe('the reporter on a test that did not finish', () => {
  it('gives each selected rule among its tags an error check named after its title', () => {
    const reporter = new ChainprobeReporter();
    // A tag that names no rule (an @-word in a title becomes a tag too) is not a rule.
    reporter.onTestEnd(
      testCase('rarity list walk', ['@NFT-07', '@NFT-09', '@NFT-10', '@RES-01', '@wip']),
      result('timedOut'),
    );
    const lines = readFileSync(checksFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ChecksLine);
    const checks = lines.flatMap((l) => (l.kind === 'check' ? [l.check] : []));
    assert.deepEqual(
      checks.map((c) => [c.rule, c.id, c.verdict, c.message]),
      ['NFT-07', 'NFT-09', 'NFT-10'].map((rule) => [
        rule,
        'nft.rarity-list-walk.aborted',
        'error',
        'the test did not finish: timeout: the test ran over 4000 ms',
      ]),
    );
  });
});
