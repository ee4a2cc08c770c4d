import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TargetError, loadTargetFile, resolveTarget, secretsOf } from '../../src/target-file/load.js';

const SECRETS = {
  BAS_API_KEY: 'new-key-5f1e2d3c4b5a69788796a5b4',
  BAS_LEGACY_API_KEY: 'legacy-key-0a1b2c3d4e5f60718293',
  BAS_NODE_A_TOKEN: 'node-a-token-9f8e7d6c5b4a3928',
  BAS_NODE_B_TOKEN: 'node-b-token-1029384756abcdef',
  BAS_NODE_C_TOKEN: 'node-c-token-fedcba6574839201',
};
const EXAMPLE = new URL('../../targets/example.json', import.meta.url).pathname;

const node = (extra: object = {}) => ({
  endpoint: 'https://node.example.invalid',
  token: '${BAS_NODE_C_TOKEN}',
  ...extra,
});

/** The problems a target produces, or [] when it loads. */
function problemsOf(raw: unknown, env: Record<string, string> = SECRETS): string[] {
  try {
    resolveTarget(raw, env);
    return [];
  } catch (e) {
    assert.ok(e instanceof TargetError, `expected a TargetError, got ${String(e)}`);
    return e.problems;
  }
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'chainprobe-target-'));
}

// Each row: a bad target and the one line it must produce.
const BAD: { name: string; raw: unknown; env?: Record<string, string>; line: string }[] = [
  {
    name: 'missing variable',
    raw: { api: { baseUrl: 'https://api.example.invalid', apiKey: '${BAS_API_KEY}' } },
    env: {},
    line: 'api.apiKey: environment variable BAS_API_KEY is not set',
  },
  {
    name: 'empty variable stops the run too, and says it is empty',
    raw: { nodes: { horizon: node() } },
    env: { BAS_NODE_C_TOKEN: '' },
    line: 'nodes.horizon.token: environment variable BAS_NODE_C_TOKEN is empty',
  },
  {
    name: 'one variable in two fields is one cause',
    raw: { api: { baseUrl: 'https://api.example.invalid', apiKey: '${BAS_API_KEY}', legacyApiKey: '${BAS_API_KEY}' } },
    env: {},
    line: 'api.apiKey, api.legacyApiKey: environment variable BAS_API_KEY is not set',
  },
  {
    name: 'wrong enum',
    raw: { nodes: { horizon: node({ customer: 'premium' }) } },
    line: 'nodes.horizon.customer: must be "dedicated" or "shared"',
  },
  {
    name: 'wrong type (integer)',
    raw: { limits: { maxRequests: '1000' } },
    line: 'limits.maxRequests: must be an integer',
  },
  {
    name: 'wrong type (boolean)',
    raw: { nodes: { chainB: { ...node(), grpcTls: 'yes' } } },
    line: 'nodes.chainB.grpcTls: must be a boolean',
  },
  {
    name: 'wrong type (array)',
    raw: { api: { universal: { protocol: 'a', network: 'b' } } },
    line: 'api.universal: must be an array',
  },
  { name: 'wrong type (object)', raw: { nodes: 'all' }, line: 'nodes: must be an object' },
  { name: 'unknown section', raw: { settings: {} }, line: 'settings: unknown section (not in the target schema)' },
  { name: 'misspelt section', raw: { nodez: {} }, line: 'nodez: unknown section (did you mean nodes?)' },
  {
    name: 'unknown field',
    raw: { limits: { retries: 5 } },
    line: 'limits.retries: unknown field (not in the target schema)',
  },
  {
    name: 'misspelt field',
    raw: { limits: { maxRequest: 5 } },
    line: 'limits.maxRequest: unknown field (did you mean maxRequests?)',
  },
  {
    name: 'misspelt required field (one cause, not also "is required")',
    raw: { nodes: { blockRest: { endpont: 'https://node-a.example.invalid', token: 'x' } } },
    line: 'nodes.blockRest.endpont: unknown field (did you mean endpoint?)',
  },
  {
    name: 'gRPC address without a port',
    raw: { nodes: { chainB: node({ grpcAddress: 'node-b.example.invalid' }) } },
    line: 'nodes.chainB.grpcAddress: must be host:port',
  },
  {
    name: 'WebSocket URL with an http scheme',
    raw: { nodes: { chainB: node({ websocketUrl: 'https://node-b.example.invalid/ws' }) } },
    line: 'nodes.chainB.websocketUrl: must be an absolute ws(s) URL',
  },
  {
    name: 'required field',
    raw: { nodes: { blockRest: { token: 'x' } } },
    line: 'nodes.blockRest.endpoint: is required',
  },
  {
    name: 'not a URL',
    raw: { api: { baseUrl: 'api.example.invalid' } },
    line: 'api.baseUrl: must be an absolute http(s) URL',
  },
  {
    name: 'URL that passes the pattern but does not parse',
    raw: { nodes: { chainB: node({ endpoint: 'https://node-b.example.invalid:99999' }) } },
    line: 'nodes.chainB.endpoint: must be an absolute http(s) URL',
  },
  {
    name: 'empty id',
    raw: { api: { nft: { protocol: 'a', network: 'b', eventIds: ['01HZX3V7K8Q9R2S4T6V8W0Y2Z4', ''] } } },
    line: 'api.nft.eventIds[1]: must not be empty',
  },
  {
    name: 'below minimum',
    raw: { nodes: { horizon: node({ hourlyLimit: 0 }) } },
    line: 'nodes.horizon.hourlyLimit: must be >= 1',
  },
  { name: 'not an object at all', raw: [], line: '(root): must be an object' },
];

for (const row of BAD) {
  test(`bad target, ${row.name}: one line naming the path`, () => {
    assert.deepEqual(problemsOf(row.raw, row.env), [row.line]);
  });
}

test('every problem is reported, one line each, in one error', () => {
  const problems = problemsOf(
    { apis: {}, limits: { maxRequests: 'x' }, nodes: { horizon: node({ customer: 'x' }) } },
    {},
  );
  assert.deepEqual(problems.sort(), [
    'apis: unknown section (did you mean api?)',
    'limits.maxRequests: must be an integer',
    'nodes.horizon.customer: must be "dedicated" or "shared"',
    'nodes.horizon.token: environment variable BAS_NODE_C_TOKEN is not set',
  ]);
  for (const p of problems) assert.ok(!p.includes('\n'));
});

test('no message ever contains a secret value', () => {
  const secretValues = Object.values(SECRETS);
  const messages: string[] = [];
  // secrets substituted into every kind of bad field
  const raws = [
    { api: { baseUrl: '${BAS_API_KEY}', apiKey: '${BAS_API_KEY}', legacyApiKey: 5 } },
    {
      nodes: {
        horizon: { endpoint: '${BAS_NODE_C_TOKEN}', token: '${BAS_NODE_C_TOKEN}', customer: '${BAS_NODE_C_TOKEN}' },
      },
    },
    {
      nodes: {
        chainB: { endpoint: 'https://x.invalid', token: '${BAS_NODE_B_TOKEN}', grpcAddress: '${BAS_NODE_B_TOKEN}' },
      },
    },
    { api: { nft: { protocol: '${BAS_LEGACY_API_KEY}', network: 'n', eventIds: ['${BAS_LEGACY_API_KEY}'] } } },
    { limits: { maxRequests: '${BAS_NODE_A_TOKEN}' }, '${BAS_NODE_A_TOKEN}': 1 },
  ];
  for (const raw of raws) messages.push(...problemsOf(raw));
  assert.ok(messages.length >= 6, messages.join('\n'));
  const dir = tempDir();
  try {
    // a file with a literal secret and a syntax error right after it
    const badJson = join(dir, 'bad.json');
    writeFileSync(badJson, `{"api": {"apiKey": "${SECRETS.BAS_API_KEY}" "baseUrl": 1}}`);
    const starts = join(dir, 'starts.json');
    writeFileSync(starts, `${SECRETS.BAS_NODE_A_TOKEN}`);
    for (const file of [badJson, starts]) {
      assert.throws(
        () => loadTargetFile(file, SECRETS),
        (e: unknown) => {
          assert.ok(e instanceof TargetError);
          messages.push(...e.problems);
          return true;
        },
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // not even a piece: no 8 consecutive characters of any secret
  const pieces = secretValues.flatMap((s) => Array.from({ length: s.length - 7 }, (_, i) => s.slice(i, i + 8)));
  for (const m of messages)
    for (const piece of pieces) assert.ok(!m.includes(piece), `"${m}" shows a piece of a secret`);
});

test('an unreadable file and bad JSON each give one line naming the file', () => {
  const dir = tempDir();
  try {
    const missing = join(dir, 'missing.json');
    assert.throws(
      () => loadTargetFile(missing, SECRETS),
      (e: unknown) => {
        assert.ok(e instanceof TargetError);
        assert.deepEqual(e.problems, [`${missing}: cannot read the target file (no such file)`]);
        return true;
      },
    );
    assert.throws(
      () => loadTargetFile(dir, SECRETS),
      (e: unknown) =>
        e instanceof TargetError &&
        e.problems.length === 1 &&
        e.problems[0]!.startsWith(`${dir}: cannot read the target file (it is a folder)`),
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"name": "x",\n  "limits": }');
    assert.throws(
      () => loadTargetFile(bad, SECRETS),
      (e: unknown) => {
        assert.ok(e instanceof TargetError);
        assert.equal(e.problems.length, 1);
        assert.match(e.problems[0]!, new RegExp(`^${bad}: not valid JSON \\(.+\\)$`));
        assert.ok(!e.message.includes('\n'));
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('targets/example.json loads with every variable set and keeps the values it states', () => {
  const t = loadTargetFile(EXAMPLE, SECRETS);
  assert.equal(t.name, 'staging');
  assert.equal(t.api?.apiKey, SECRETS.BAS_API_KEY);
  assert.equal(t.api?.native?.networks.length, 3);
  assert.equal(t.nodes.horizon?.hourlyLimit, 3600);
  assert.deepEqual(secretsOf(t).sort(), Object.values(SECRETS).sort());
  assert.deepEqual(t.limits, { maxRequests: 1000, maxSeconds: 300, timeoutMs: 10000, wsGraceMs: 2000 });
});

test('defaults are filled as interfaces.md states', () => {
  const t = resolveTarget(
    {
      api: {
        baseUrl: 'https://api.example.invalid/',
        native: { protocol: 'p', networks: ['mainnet'] },
        nft: { protocol: 'p', network: 'mainnet' },
      },
      nodes: {
        blockRest: node(),
        chainB: node({ endpoint: 'https://node-b.example.invalid/' }),
        horizon: node(),
      },
    },
    SECRETS,
    'my-target',
  );
  assert.equal(t.name, 'my-target');
  assert.equal(t.api?.baseUrl, 'https://api.example.invalid');
  assert.deepEqual(t.api?.universal, []);
  assert.deepEqual(t.api?.native, {
    protocol: 'p',
    networks: ['mainnet'],
    optionalNetworks: [],
    blockNumberMethod: 'eth_blockNumber',
    blockNumberTolerance: 2,
  });
  assert.deepEqual(t.api?.nft, {
    protocol: 'p',
    network: 'mainnet',
    eventIds: [],
    collectionId: undefined,
    pageTokenParam: 'page_token',
    maxPages: 500,
    crossCheck: 12,
  });
  assert.equal(t.nodes.blockRest?.height, 1);
  assert.deepEqual(t.nodes.chainB, {
    endpoint: 'https://node-b.example.invalid',
    token: SECRETS.BAS_NODE_C_TOKEN,
    websocketUrl: 'wss://node-b.example.invalid:8443/websocket',
    grpcAddress: 'node-b.example.invalid:443',
    grpcTls: true,
    consensusRpcMethod: 'status',
  });
  assert.deepEqual(t.nodes.horizon, {
    endpoint: 'https://node.example.invalid',
    token: SECRETS.BAS_NODE_C_TOKEN,
    customer: 'dedicated',
    hourlyLimit: 3600,
    perSecondCap: 20,
    planAssumed: true,
  });
  assert.deepEqual(t.limits, { maxRequests: 1000, maxSeconds: 300, timeoutMs: 10000, wsGraceMs: 2000 });
});

test('a horizon node without customer or hourlyLimit has an assumed plan (RL-09 then names the plan it sees)', () => {
  const horizon = (extra: object) => resolveTarget({ nodes: { horizon: node(extra) } }, SECRETS).nodes.horizon!;
  assert.equal(horizon({}).planAssumed, true);
  assert.equal(horizon({ customer: 'dedicated' }).planAssumed, undefined);
  assert.equal(horizon({ hourlyLimit: 5000 }).planAssumed, undefined);
});

test('hourlyLimit defaults by customer kind; a stated value wins', () => {
  const limitOf = (horizon: object) =>
    resolveTarget({ nodes: { horizon: node(horizon) } }, SECRETS).nodes.horizon?.hourlyLimit;
  assert.equal(limitOf({}), 3600);
  assert.equal(limitOf({ customer: 'dedicated' }), 3600);
  assert.equal(limitOf({ customer: 'shared' }), 2000);
  assert.equal(limitOf({ customer: 'dedicated', hourlyLimit: 7200 }), 7200);
});

test('an empty target is valid: every section is optional', () => {
  const t = resolveTarget({}, {}, 'empty');
  assert.deepEqual(t, {
    name: 'empty',
    nodes: {},
    limits: { maxRequests: 1000, maxSeconds: 300, timeoutMs: 10000, wsGraceMs: 2000 },
  });
  assert.deepEqual(secretsOf(t), []);
});

test('${NAME} is substituted anywhere in a string, and the file name is the fallback name', () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'lab-7.json');
    writeFileSync(file, JSON.stringify({ api: { baseUrl: 'https://${HOST}/v', apiKey: '${BAS_API_KEY}' } }));
    const t = loadTargetFile(file, { ...SECRETS, HOST: 'api.lab.invalid' });
    assert.equal(t.name, 'lab-7');
    assert.equal(t.api?.baseUrl, 'https://api.lab.invalid/v');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
