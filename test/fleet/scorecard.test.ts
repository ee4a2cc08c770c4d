// The scorecard: rows for deployments and nodes, a column per rule family with the rolled-up
// verdict linked to the rule that decided it, and the horizon nodes' estimates side by side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeResults } from '../../src/fleet/merge.js';
import { scorecardSection } from '../../reports/scorecard.js';
import { renderHtml } from '../../reports/html.js';
import { production, staging } from './fixture.js';

const merged = () =>
  mergeResults([
    { source: 'a', results: staging() },
    { source: 'b', results: production() },
  ]).results;

const rowOf = (html: string, key: string) => {
  const m = new RegExp(`<tr class="(?:target|node)" data-row="${key.replace(/[/.]/g, '\\$&')}">(.*?)</tr>`).exec(html);
  assert.ok(m, `row ${key}`);
  return m[1]!;
};
const cellOf = (row: string, section: string) =>
  new RegExp(`data-section="${section}"( data-verdict="(\\w+)")?>(?:<a href="#rule-([A-Z]+-\\d+)")?`).exec(row);

test("rows for deployments and nodes, each family cell the row's roll-up, linked to its rule", () => {
  const html = scorecardSection(merged());
  const prod = rowOf(html, 'production');
  assert.equal(cellOf(prod, 'AUTH')?.[2], 'fail');
  assert.equal(cellOf(prod, 'AUTH')?.[3], 'AUTH-01');
  assert.equal(cellOf(prod, 'RL')?.[2], 'error', 'error beats pass across the nodes');
  const eu = rowOf(html, 'production/horizon/eu');
  assert.equal(cellOf(eu, 'RL')?.[2], 'pass');
  assert.equal(cellOf(eu, 'AUTH')?.[2], undefined, 'a node has no API checks: no verdict');
  assert.equal(cellOf(rowOf(html, 'production/horizon/us'), 'RL')?.[3], 'RL-02');
  assert.equal(cellOf(rowOf(html, 'staging'), 'NFT')?.[2], 'observed');
});

test("the horizon nodes' estimates side by side: Limit, T, the hourly rate T implies, cap, spend", () => {
  const html = scorecardSection(merged());
  const eu = /<tr data-node="production\/eu">(.*?)<\/tr>/.exec(html)?.[1] ?? '';
  assert.match(eu, /data-field="limit">101</);
  assert.match(eu, /data-field="T">1000\.0 ms</);
  assert.match(eu, /data-field="hourly">3600\/h/);
  assert.match(eu, /data-field="cap">20\/s; cap rejections do not use quota</);
  assert.match(eu, /data-field="spent">130 \(contracts 4, probes 126\)</);
  assert.match(html, /<tr data-node="production\/us">.*probes did not run/);
});

test('no scorecard for one deployment with one node; the full report carries it for a fleet', () => {
  assert.equal(scorecardSection(staging()), '');
  assert.equal(scorecardSection(mergeResults([{ source: 'a', results: staging() }]).results), '');
  const page = renderHtml({
    results: merged(),
    timeline: [],
    files: { results: 'results.json', junit: 'junit.xml', timeline: 'timeline.json' },
  });
  assert.ok(page.indexOf('id="scorecard"') > 0 && page.indexOf('id="scorecard"') < page.indexOf('id="rule-matrix"'));
  assert.match(page, /id="rule-AUTH-01"/, "the cells' links land on rule rows");
});
