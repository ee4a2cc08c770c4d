// The universal block-number endpoint is served on {base_url} and on {legacy_base_url}: UNI-01 and
// UNI-02 are judged on each base the target has with its key, the legacy checks naming their base,
// the base URL's check ids as they were. Judged as the contract stage judges them (harness.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UNIVERSAL } from '../../contracts/universal.js';
import { resolveTarget } from '../../src/target-file/load.js';
import type { CheckResult } from '../../src/verdict.js';
import { startReference } from '../../reference/start.js';
import { judgeInStage } from './harness.js';

const ONLY = 'UNI-01,UNI-02';

const ids = (checks: readonly CheckResult[], verdict?: CheckResult['verdict']) =>
  checks
    .filter((c) => verdict === undefined || c.verdict === verdict)
    .map((c) => c.id)
    .sort();

const bad = (checks: readonly CheckResult[]) =>
  checks.filter((c) => c.verdict !== 'pass').map((c) => `${c.verdict} ${c.id}: ${c.message}`);

/** The ids UNI-01 and UNI-02 give one network on one base (`tag`: the network, or `legacy <network>`). */
const idsOf = (tag: string, native: boolean) => [
  `universal.block-number[${tag}]`,
  `universal.block-number.monotonic[${tag}]`,
  ...(native ? [`universal.block-number.vs-native[${tag}]`] : []),
];

/** The reference's universal networks, and whether the target gives each a native head. */
const NETWORKS: [string, boolean][] = [
  ['chain-a/mainnet', true],
  ['chain-a/sepolia', true],
  ['chain-b/mainnet', false],
];

describe('UNI-01 and UNI-02 on every base that serves the block number', { concurrency: 3 }, () => {
  it('the clean reference passes both rules on the base URL and on the legacy base URL, base ids unchanged', async () => {
    const checks = await judgeInStage({ only: ONLY });
    assert.deepEqual(bad(checks), []);
    assert.deepEqual(
      ids(checks),
      NETWORKS.flatMap(([n, native]) => [...idsOf(n, native), ...idsOf(`legacy ${n}`, native)]).sort(),
    );
    // Each check's message names its base; the legacy answers were read with the legacy key.
    for (const c of checks) {
      const legacy = c.id.includes('[legacy ');
      assert.match(c.message, legacy ? / on the legacy base URL: / : / on the base URL: /, c.id);
      if (legacy)
        for (const x of c.evidence?.exchanges ?? [])
          if (/block_number/.test(x.url)) assert.match(x.url, /[?&]apiKey=/, `${c.id}: ${x.url}`);
    }
  });

  it('legacy-stale-block-number fails UNI-02 on the legacy base only, against the native head of the base URL', async () => {
    const checks = await judgeInStage({ only: ONLY, reference: { faults: new Set(['legacy-stale-block-number']) } });
    assert.deepEqual(
      ids(checks, 'fail'),
      NETWORKS.filter(([, native]) => native).map(([n]) => `universal.block-number.vs-native[legacy ${n}]`),
    );
    for (const c of checks.filter((c) => c.verdict === 'fail')) {
      assert.equal(c.rule, 'UNI-02');
      assert.match(
        c.message,
        /^chain-a\/\w+ on the legacy base URL: universal block numbers \d+\.\.\d+ are (39|40|41) away from the native head \d+ \(tolerance 2\)$/,
      );
      // The native head it was compared with is the one read on the base URL, once.
      const native = c.evidence?.exchanges?.filter((x) => /\/native$/.test(new URL(x.url).pathname)) ?? [];
      assert.equal(native.length, 1, c.id);
    }
    // UNI-01 holds on both bases, and the base URL's checks all pass.
    assert.deepEqual(
      checks.filter((c) => c.verdict !== 'pass' && !c.id.startsWith('universal.block-number.vs-native[legacy ')),
      [],
    );
  });

  it('a target without the legacy key is judged on the base URL alone, with nothing skipped', async () => {
    const checks = await judgeInStage({
      only: ONLY,
      reference: { faults: new Set(['legacy-stale-block-number']) },
      edit: (t) => ({ ...t, api: { ...t.api!, legacyApiKey: undefined } }),
    });
    assert.deepEqual(bad(checks), []);
    assert.deepEqual(ids(checks), NETWORKS.flatMap(([n, native]) => idsOf(n, native)).sort());
  });

  it('a target with the legacy base alone is judged there, its checks naming it', async () => {
    const checks = await judgeInStage({
      only: ONLY,
      edit: (t) => ({ ...t, api: { ...t.api!, baseUrl: undefined, apiKey: undefined } }),
    });
    assert.deepEqual(bad(checks), []);
    assert.deepEqual(ids(checks), NETWORKS.flatMap(([n, native]) => idsOf(`legacy ${n}`, native)).sort());
  });
});

it('the universal works send to both bases of the target', async () => {
  const ref = await startReference();
  try {
    const target = resolveTarget(ref.target, {});
    const host = (u: string | undefined) => new URL(u!).host;
    assert.deepEqual(
      UNIVERSAL.hosts(target).sort(),
      [host(target.api!.baseUrl), host(target.api!.legacyBaseUrl)].sort(),
    );
  } finally {
    await ref.close();
  }
});
