// Unix times in seconds (NFT-01 timestamp, NFT-06 mint_date): one row per value, with what the
// suite says about it for a run that started at RUN_START; then the fields the schemas mark.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EARLIEST_UNIX_SECONDS, judgeUnixTimes, unixSecondsProblem } from '../../contracts/unix-time.js';
import { annotatedValues, SCHEMA, type SchemaName } from '../../src/schemas/validate.js';

const RUN_START = Date.UTC(2025, 10, 24, 12, 0, 0);
const RUN_START_S = RUN_START / 1000;

describe('unixSecondsProblem', () => {
  const PLAUSIBLE: [string, string][] = [
    ['the first second allowed (2009-01-03T00:00:00Z)', String(EARLIEST_UNIX_SECONDS)],
    ['a time in 2023', '1700000000'],
    ['the run start itself', String(RUN_START_S)],
    ['a day after the run start (clock skew)', String(RUN_START_S + 86_400)],
    ['leading zeros', '0001700000000'],
  ];
  for (const [what, value] of PLAUSIBLE)
    it(`plausible: ${what}`, () => assert.equal(unixSecondsProblem('timestamp', value, RUN_START), undefined));

  const IMPLAUSIBLE: [string, string][] = [
    [
      '1700000000000',
      'timestamp 1700000000000 is 2023-11-14T22:13:20Z if read as milliseconds; as seconds it is year 55840',
    ],
    [
      '1700000000123',
      'timestamp 1700000000123 is 2023-11-14T22:13:20Z if read as milliseconds; as seconds it is year 55840',
    ],
    [
      '1700000000000000',
      'timestamp 1700000000000000 is 2023-11-14T22:13:20Z if read as microseconds; as seconds it is beyond year 275760',
    ],
    [
      '1700000000000000000',
      'timestamp 1700000000000000000 is 2023-11-14T22:13:20Z if read as nanoseconds; as seconds it is beyond year 275760',
    ],
    ['0', 'timestamp 0 as seconds is 1970-01-01T00:00:00Z, before 2009-01-03'],
    ['1230940799', 'timestamp 1230940799 as seconds is 2009-01-02T23:59:59Z, before 2009-01-03'],
    [
      String(RUN_START_S + 86_401),
      "timestamp 1764072001 as seconds is 2025-11-25T12:00:01Z, after the run's start plus one day (2025-11-25T12:00:00Z)",
    ],
    [
      '4102444800',
      "timestamp 4102444800 as seconds is 2100-01-01T00:00:00Z, after the run's start plus one day (2025-11-25T12:00:00Z)",
    ],
    [
      '9'.repeat(40),
      "timestamp 999999999999999999999… (40 digits) as seconds is beyond year 275760, after the run's start plus one day (2025-11-25T12:00:00Z)",
    ],
  ];
  for (const [value, message] of IMPLAUSIBLE)
    it(message, () => assert.equal(unixSecondsProblem('timestamp', value, RUN_START), message));

  it('leaves values that are not strings of digits to the schema', () => {
    for (const v of [1700000000, '17e8', '', '-1', ' 1700000000', null, undefined])
      assert.equal(unixSecondsProblem('timestamp', v, RUN_START), undefined, String(v));
  });
});

describe('the fields the schemas mark x-unix-seconds', () => {
  it('are the event timestamp and the asset mint_date, found in the answers that carry them', () => {
    const event = { data: { id: 'x', timestamp: '1700000000', transaction: { block_number: 1 }, payments: [] } };
    assert.deepEqual(annotatedValues(SCHEMA.eventResponse, 'x-unix-seconds', event), [
      { path: 'data.timestamp', value: '1700000000' },
    ]);
    const asset = { asset: { mint_date: '1600000000', rarity: [{ rank: '1' }], media: { source: 'x' } } };
    assert.deepEqual(annotatedValues(SCHEMA.assetResponse, 'x-unix-seconds', asset), [
      { path: 'asset.mint_date', value: '1600000000' },
    ]);
    assert.deepEqual(annotatedValues(SCHEMA.rarityListResponse, 'x-unix-seconds', { data: [{ id: 'x' }] }), []);
    assert.deepEqual(annotatedValues(SCHEMA.eventResponse, 'x-unix-seconds', { data: {} }), []);
  });

  const judge = (rule: string, id: string, name: SchemaName, value: unknown, what: string) =>
    judgeUnixTimes(rule, id, name, value, RUN_START, undefined, what);

  it('judged as one check on the rule asked for: a fail names the value and its date, a pass the dates read', () => {
    const ms = judge('NFT-06', 'nft.asset', SCHEMA.assetResponse, { asset: { mint_date: '1700000000000' } }, 'asset');
    assert.deepEqual(
      ms.map((j) => [j.verdict, j.rule, j.id, j.message]),
      [
        [
          'fail',
          'NFT-06',
          'nft.asset.unix-time',
          'asset: mint_date 1700000000000 is 2023-11-14T22:13:20Z if read as milliseconds; as seconds it is year 55840',
        ],
      ],
    );
    assert.deepEqual(ms[0]!.verdict === 'fail' && ms[0]!.evidence, {
      path: 'asset.mint_date',
      expected: 'Unix time in seconds, 2009-01-03T00:00:00Z .. 2025-11-25T12:00:00Z',
      actual: '1700000000000',
    });
    const ok = judge('NFT-01', 'nft.event[e]', SCHEMA.eventResponse, { data: { timestamp: '1700000000' } }, 'event');
    assert.deepEqual(
      ok.map((j) => [j.verdict, j.message]),
      [['pass', 'event: timestamp 1700000000 is 2023-11-14T22:13:20Z, a plausible Unix time in seconds']],
    );
    assert.deepEqual(judge('NFT-01', 'e', SCHEMA.eventResponse, { data: { timestamp: 17 } }, 'event'), []);
  });
});
