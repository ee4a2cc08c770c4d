import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveTarget, secretsOf, TargetError } from '../../src/target-file/load.js';
import { nodesOf } from '../../src/target-file/types.js';

const horizon = (name: string | undefined, token: string) => ({
  ...(name && { name }),
  endpoint: `http://127.0.0.1:1/${name ?? 'h'}`,
  token,
});
const problemsOf = (raw: unknown): string[] => {
  try {
    resolveTarget(raw, {});
  } catch (e) {
    assert.ok(e instanceof TargetError);
    return e.problems;
  }
  return [];
};

test('a kind listed as an array is a fleet: every node named and resolved with its defaults', () => {
  const t = resolveTarget(
    {
      nodes: {
        horizon: [horizon('eu-1', 'tok-eu-1'), { ...horizon('us-1', 'tok-us-1'), customer: 'shared' }],
        blockRest: horizon(undefined, 'tok-b'),
      },
    },
    {},
  );
  assert.deepEqual(
    nodesOf(t, 'horizon').map((n) => [n.name, n.customer, n.hourlyLimit, n.perSecondCap]),
    [
      ['eu-1', 'dedicated', 3600, 20],
      ['us-1', 'shared', 2000, 20],
    ],
  );
  // The single blockRest object is named after its kind; nodes.* keep each kind's first node.
  assert.deepEqual(
    nodesOf(t, 'blockRest').map((n) => [n.name, n.height]),
    [['blockRest', 1]],
  );
  assert.equal(t.nodes.horizon?.name, 'eu-1');
  assert.deepEqual(nodesOf(t, 'chainB'), []);
  assert.deepEqual(secretsOf(t).sort(), ['tok-b', 'tok-eu-1', 'tok-us-1']);
});

test('a file without arrays resolves exactly as before (no fleet section)', () => {
  const t = resolveTarget({ nodes: { horizon: horizon(undefined, 'tok') } }, {});
  assert.equal(t.fleet, undefined);
  assert.deepEqual(t.nodes.horizon, {
    endpoint: 'http://127.0.0.1:1/h',
    token: 'tok',
    customer: 'dedicated',
    hourlyLimit: 3600,
    perSecondCap: 20,
    planAssumed: true,
  });
  assert.deepEqual(
    nodesOf(t, 'horizon').map((n) => n.name),
    ['horizon'],
  );
});

const BAD: [string, unknown, string][] = [
  [
    'a fleet node without a name',
    { nodes: { horizon: [horizon(undefined, 't')] } },
    'nodes.horizon[0].name: is required',
  ],
  [
    'two nodes of a kind with one name',
    { nodes: { horizon: [horizon('a', 't1'), horizon('b', 't2'), horizon('a', 't3')] } },
    'nodes.horizon[2].name: the same name as nodes.horizon[0] (names must be unique within nodes.horizon)',
  ],
  ['an empty array', { nodes: { chainB: [] } }, 'nodes.chainB: must not be empty'],
  [
    'neither an object nor an array',
    { nodes: { blockRest: 'node-a' } },
    'nodes.blockRest: must be a node object or an array of node objects',
  ],
  [
    'a bad field inside a fleet node',
    { nodes: { horizon: [{ ...horizon('a', 't'), customer: 'premium' }] } },
    'nodes.horizon[0].customer: must be "dedicated" or "shared"',
  ],
  [
    'an unparsable URL inside a fleet node',
    { nodes: { horizon: [horizon('a', 't'), { ...horizon('b', 't2'), endpoint: 'http://x.invalid:99999' }] } },
    'nodes.horizon[1].endpoint: must be an absolute http(s) URL',
  ],
  [
    'a single object with a bad field (branch errors not shown)',
    { nodes: { horizon: { endpoint: 'node', token: 't' } } },
    'nodes.horizon.endpoint: must be an absolute http(s) URL',
  ],
];
for (const [name, raw, line] of BAD) {
  test(`bad fleet target, ${name}: one line naming the path`, () => {
    assert.deepEqual(problemsOf(raw), [line]);
  });
}

test('a fleet node token from an unset variable is named once, at its array path', () => {
  assert.deepEqual(problemsOf({ nodes: { horizon: [horizon('a', 't'), horizon('b', '${FLEET_B_TOKEN}')] } }), [
    'nodes.horizon[1].token: environment variable FLEET_B_TOKEN is not set',
  ]);
});
