// The universal judges (UNI-01, UNI-02) as pure functions of what the plan got: a table of hand-made
// answers, no network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UNIVERSAL, type BaseSamples, type NetworkAnswers } from '../../contracts/universal.js';
import type { CallResult } from '../../contracts/api.js';
import type { PlanEnv } from '../../contracts/plan.js';

let seq = 0;
function answer(status: number, body: unknown): CallResult {
  const text = JSON.stringify(body);
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: text,
    bytes: text.length,
    json: body,
    ok: status >= 200 && status < 300,
    exchange: {
      seq: ++seq,
      method: 'GET',
      url: 'http://b/x',
      requestHeaders: {},
      responseHeaders: {},
      sentAt: 0,
      status,
    },
  };
}

const base = (kind: 'base' | 'legacy'): BaseSamples['at'] => ({
  kind,
  name: kind === 'base' ? 'base URL' : 'legacy base URL',
  base: `http://${kind}`,
  auth: { form: 'bearer', secret: 'k' },
  label: kind,
});

function run(kind: 'base' | 'legacy', heads: (number | string)[], status = 200): BaseSamples {
  const where = 'chain-a/mainnet';
  return {
    at: base(kind),
    where,
    tag: kind === 'base' ? where : `legacy ${where}`,
    say: `${where} on the ${base(kind).name}`,
    samples: heads.map((h) => {
      const res = answer(status, { block_number: h });
      return { res, found: typeof h === 'number' ? { value: h, path: 'block_number', encoding: 'number' } : undefined };
    }),
  };
}

const network = (runs: BaseSamples[], native?: number): NetworkAnswers => ({
  where: 'chain-a/mainnet',
  tolerance: 2,
  nativeHere: native !== undefined,
  ...(native !== undefined && {
    nativeAt: { value: native, res: answer(200, { result: `0x${native.toString(16)}` }) },
  }),
  runs,
});

const env = {} as PlanEnv;
const verdicts = (rule: string, n: NetworkAnswers) =>
  UNIVERSAL.judges[rule]!([n], env).map((j) => `${j.verdict} ${j.id}`);

describe('UNI-01 and UNI-02 judges', () => {
  const six = [100, 100, 101, 101, 102, 102];
  const rows: { name: string; n: NetworkAnswers; rule: string; want: string[] }[] = [
    {
      name: 'six good answers',
      n: network([run('base', six)]),
      rule: 'UNI-01',
      want: ['pass universal.block-number[chain-a/mainnet]'],
    },
    {
      name: 'a 500 among them',
      n: network([run('base', six, 500)]),
      rule: 'UNI-01',
      want: ['fail universal.block-number[chain-a/mainnet]'],
    },
    {
      name: 'no number in a body',
      n: network([run('base', [100, 100, 'x', 101, 101, 102])]),
      rule: 'UNI-01',
      want: ['fail universal.block-number[chain-a/mainnet]'],
    },
    {
      name: 'steady, and within the native head',
      n: network([run('base', six)], 101),
      rule: 'UNI-02',
      want: [
        'pass universal.block-number.monotonic[chain-a/mainnet]',
        'pass universal.block-number.vs-native[chain-a/mainnet]',
      ],
    },
    {
      name: 'a step back past the tolerance',
      n: network([run('base', [100, 100, 96, 101, 101, 102])]),
      rule: 'UNI-02',
      want: ['fail universal.block-number.monotonic[chain-a/mainnet]'],
    },
    {
      name: 'a legacy base 40 behind the native head',
      n: network(
        [
          run('base', six),
          run(
            'legacy',
            six.map((h) => h - 40),
          ),
        ],
        101,
      ),
      rule: 'UNI-02',
      want: [
        'pass universal.block-number.monotonic[chain-a/mainnet]',
        'pass universal.block-number.vs-native[chain-a/mainnet]',
        'pass universal.block-number.monotonic[legacy chain-a/mainnet]',
        'fail universal.block-number.vs-native[legacy chain-a/mainnet]',
      ],
    },
    {
      name: 'a base that could not be read',
      n: network([
        { ...run('legacy', [100]), lost: { cause: 'budget: the run reached limits.maxRequests (1)', exchanges: [] } },
      ]),
      rule: 'UNI-01',
      want: ['error universal.block-number[legacy chain-a/mainnet]'],
    },
  ];
  for (const r of rows) it(`${r.rule}: ${r.name}`, () => assert.deepEqual(verdicts(r.rule, r.n), r.want));
});
