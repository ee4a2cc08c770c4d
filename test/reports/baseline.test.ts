import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffBaseline, summarizeBaseline } from '../../reports/baseline.js';
import type { ResultsFile } from '../../src/results.js';
import { buildResults } from '../../src/results.js';
import type { CheckResult } from '../../src/verdict.js';
import { syntheticChecks, syntheticResults } from './fixture.js';

function rebuilt(r: ResultsFile, edit: (checks: CheckResult[]) => CheckResult[]): ResultsFile {
  return buildResults({
    target: r.target,
    startedAt: new Date('2026-01-02T00:00:00.000Z'),
    finishedAt: new Date('2026-01-02T00:01:00.000Z'),
    checks: edit(structuredClone(r.checks)),
    limiter: r.limiter,
  });
}
const byId = (checks: CheckResult[], id: string) => checks.find((c) => c.id === id)!;

test('identical runs, or the same observations in another key or member order, show no drift', () => {
  const prev = syntheticResults();
  assert.deepEqual(diffBaseline(prev, prev).items, []);
  const reordered = rebuilt(prev, (cs) => {
    const a = byId(cs, 'auth.none[nft.event]');
    a.evidence.observation = { body: a.evidence.observation!.body, contentType: 'application/json', status: 401 };
    byId(cs, 'res.extra[event]').evidence.observation = { extraFields: ['marketplace', 'royalty'], resource: 'event' };
    return cs.reverse();
  });
  const diff = diffBaseline(prev, reordered);
  assert.deepEqual(diff.items, []);
  assert.deepEqual(summarizeBaseline(diff), [
    'no drift against the baseline of 2026-01-01T00:00:00.000Z (synthetic <staging>)',
  ]);
});

test('a changed status for missing credentials is reported as a changed observation', () => {
  const prev = syntheticResults();
  const cur = rebuilt(prev, (cs) => {
    byId(cs, 'auth.none[nft.event]').evidence.observation!.status = 403;
    return cs;
  });
  const diff = diffBaseline(prev, cur);
  assert.deepEqual(
    diff.items.map(({ kind, rule, check, key, before, after }) => ({ kind, rule, check, key, before, after })),
    [
      {
        kind: 'observation-changed',
        rule: 'AUTH-07',
        check: 'auth.none[nft.event]',
        key: 'status',
        before: 401,
        after: 403,
      },
    ],
  );
  assert.equal(diff.items[0]!.text, 'AUTH-07 auth.none[nft.event]: status 401 -> 403');
  assert.equal(diff.counts['observation-changed'], 1);
  const lines = summarizeBaseline(diff);
  assert.equal(
    lines[0],
    '1 change against the baseline of 2026-01-01T00:00:00.000Z (synthetic <staging>): 1 observation changed',
  );
  assert.equal(lines[1], 'AUTH-07 auth.none[nft.event]: status 401 -> 403');
});

test('new and vanished fields, nested keys, new and vanished checks and verdict changes, in a stable order', () => {
  const prev = syntheticResults();
  const cur = rebuilt(prev, (cs) => {
    byId(cs, 'res.extra[event]').evidence.observation = { resource: 'event', extraFields: ['royalty', 'chain'] };
    const none = byId(cs, 'auth.none[nft.event]');
    (none.evidence.observation!.body as Record<string, unknown>).error = { code: 'string' };
    none.evidence.observation!.wwwAuthenticate = 'Bearer';
    byId(cs, 'rpc.unknown-method').verdict = 'pass';
    return [
      ...cs.filter((c) => c.id !== 'nft.event.types'),
      {
        id: 'nft.event.types[2]',
        rule: 'NFT-03',
        verdict: 'observed',
        message: 'x',
        evidence: { observation: { eventTypes: ['sale'] } },
      },
    ];
  });
  const diff = diffBaseline(prev, cur);
  assert.deepEqual(
    diff.items.map((i) => i.text),
    [
      // Catalogue order (RPC before NFT); within a check: changed, new, vanished.
      'AUTH-07 auth.none[nft.event]: new wwwAuthenticate = "Bearer"',
      'AUTH-07 auth.none[nft.event]: body.error.message vanished (was "string")',
      'RPC-05: fail -> pass',
      'RPC-05 rpc.unknown-method: fail -> pass',
      'NFT-03 nft.event.types: check vanished (was observed)',
      'NFT-03 nft.event.types[2]: new check (observed)',
      'RES-02 res.extra[event]: extraFields + "chain"',
      'RES-02 res.extra[event]: extraFields - "marketplace"',
    ],
  );
  const vanished = diff.items.find((i) => i.member === 'marketplace')!;
  assert.equal(vanished.kind, 'observation-vanished');
  assert.equal(vanished.key, 'extraFields');
  // Stable: the same inputs in another order give the same diff.
  const shuffled = { ...cur, checks: [...cur.checks].reverse() };
  assert.deepEqual(diffBaseline(prev, shuffled), diff);
});

test('rules one run did not run are not compared; skipped or errored checks compare verdicts only', () => {
  const prev = syntheticResults();
  const cur = rebuilt(prev, (cs) => {
    const kept = cs.filter((c) => !c.rule.startsWith('RL-'));
    const none = byId(kept, 'auth.none[nft.event]');
    none.verdict = 'error';
    none.evidence = { cause: 'timeout' };
    return kept;
  });
  const diff = diffBaseline(prev, cur);
  assert.deepEqual(diff.notCompared, ['RL-01', 'RL-10', 'RL-13']);
  assert.deepEqual(
    diff.items.map((i) => i.text),
    ['AUTH-07: pass -> error', 'AUTH-07 auth.none[nft.event]: pass -> error'],
  );
  assert.match(
    summarizeBaseline(diff).at(-1)!,
    /^not compared \(run in only one of the two runs\): RL-01, RL-10, RL-13$/,
  );
});

test('terminal lines are short, bounded and free of control characters', () => {
  const prev = syntheticResults({ checks: syntheticChecks() });
  const cur = rebuilt(prev, (cs) => {
    byId(cs, 'res.extra[event]').evidence.observation = {
      resource: 'event',
      extraFields: Array.from({ length: 30 }, (_, i) => `f${i}\u001b[2J`),
    };
    return cs;
  });
  const lines = summarizeBaseline(diffBaseline(prev, cur));
  assert.equal(lines.length, 12);
  assert.match(lines.at(-1)!, /^… and 22 more \(see index\.html\)$/);
  for (const l of lines) {
    assert.doesNotMatch(l, /[\u0000-\u001f]/);
    assert.ok(l.length <= 300);
  }
});
