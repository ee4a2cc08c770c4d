import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import {
  SCHEMA,
  annotationsOf,
  extraFields,
  headerRecord,
  isValid,
  exportNameOf,
  readSchemaFiles,
  schemaAjv,
  schemaNames,
  strictViewOf,
  usesPrecompiled,
  validate,
  viewId,
  type SchemaName,
  type SchemaProblem,
  type View,
} from '../../src/schemas/validate.js';
import type { ValidateFunction } from '../../src/schemas/ajv.js';
import { createRequire } from 'node:module';
import { mapSchema, isSchemaNode } from '../../src/schemas/walk.js';
import { isRuleId } from '../../src/rules/catalogue.js';
import { substituteEnv } from '../../src/target-file/load.js';

const SCHEMA_DIR = new URL('../../schemas/', import.meta.url);
const schemaFiles = readdirSync(SCHEMA_DIR)
  .filter((f) => f.endsWith('.schema.json'))
  .sort();
/** Schemas of chainprobe's own files (what it reads and writes), not of the service's resources. */
const OWN_FILES = new Set(['target.schema.json', 'waivers.schema.json', 'results.schema.json']);
const rawSchema = (file: string) =>
  JSON.parse(readFileSync(new URL(file, SCHEMA_DIR), 'utf8')) as Record<string, unknown>;

// ---- Correct records, one per resource (shapes as the description shows them).

const payment = { from: '0xf00', to: '0xba4', price: 1.25, currency: 'ETH' };
const transaction = { block_hash: '0xbbb', block_number: 17_000_000, transaction_hash: '0xttt' };
const event = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  contract_address: '0xc0ffee',
  token_id: '42',
  event_type: 'sale',
  timestamp: '1700000000',
  from: '0xaaa',
  to: '0xbbb',
  quantity: '1',
  transaction,
  payments: [payment],
};
const contract = {
  address: '0xc0ffee',
  name: 'Apes',
  symbol: 'APE',
  description: 'd',
  image_url: '/media/c.png',
  type: 'ERC721',
};
const collectionMeta = {
  discord_url: 'https://discord.example/apes',
  external_url: 'https://apes.example',
  twitter_username: 'apes',
};
const collection = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  name: 'Apes',
  description: 'A collection',
  logo: '/media/logo.png',
  banner: '/media/banner.png',
  verified: true,
  contracts: [contract],
  meta: collectionMeta,
  sub_collection: [],
};
const media = { image_url: '/media/42.png', source: 'ipfs://QmHash/42.png' };
const attribute = { trait_type: 'Eyes', value: 'Blue' };
const rarityEntry = { model: 'open_rarity', score: 3.25, rank: '1' };
const asset = {
  token_id: '42',
  token_type: 'ERC721',
  media,
  name: 'Ape #42',
  mint_date: '1650000000',
  token_uri: 'ipfs://QmHash/42.json',
  description: 'An ape',
  contract_address: '0xc0ffee',
  wallets: [],
  attributes: [attribute],
  burned: false,
  rarity: [rarityEntry],
};
const assetListItem = {
  id: '16fd2706-8baf-433b-82eb-8c7fada847da',
  token_id: '42',
  image_url: '/media/42.png',
  name: 'Ape #42',
  contract_address: '0xc0ffee',
  rarity: [rarityEntry],
};
const paging = { paging: { next_page_token: 'eyJwYWdlIjoyfQ==' } };
const rpcRequest = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
const rpcSuccess = { jsonrpc: '2.0', id: 1, result: { any: 'shape' } };
const rpcError = { code: -32601, message: 'Method not found' };
const rpcErrorResponse = { jsonrpc: '2.0', id: 1, error: rpcError };
const rpcBlockNumber = { jsonrpc: '2.0', id: 1, result: '0x10d4f' };
const rateLimit = { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '1' };
const rateLimitDenial = {
  'x-ratelimit-limit': '20',
  'x-ratelimit-remaining': '0',
  'x-ratelimit-reset': '2',
  'retry-after': '1',
};

const RECORDS: Partial<Record<SchemaName, unknown>> = {
  [SCHEMA.event]: event,
  [SCHEMA.transaction]: transaction,
  [SCHEMA.payment]: payment,
  [SCHEMA.collection]: collection,
  [SCHEMA.contract]: contract,
  [SCHEMA.collectionMeta]: collectionMeta,
  [SCHEMA.asset]: asset,
  [SCHEMA.media]: media,
  [SCHEMA.attribute]: attribute,
  [SCHEMA.rarityEntry]: rarityEntry,
  [SCHEMA.assetListItem]: assetListItem,
  [SCHEMA.paging]: paging,
  [SCHEMA.eventResponse]: { data: event },
  [SCHEMA.collectionResponse]: { collection },
  [SCHEMA.assetResponse]: { asset },
  [SCHEMA.rarityListResponse]: { data: [assetListItem], meta: paging },
  [SCHEMA.rpcRequest]: rpcRequest,
  [SCHEMA.nodeRpcRequest]: { method: 'status', params: [], id: 1 },
  [SCHEMA.rpcSuccess]: rpcSuccess,
  [SCHEMA.rpcError]: rpcError,
  [SCHEMA.rpcErrorResponse]: rpcErrorResponse,
  [SCHEMA.rpcBlockNumberResponse]: rpcBlockNumber,
  [SCHEMA.rateLimitHeaders]: rateLimit,
  [SCHEMA.rateLimitDenialHeaders]: rateLimitDenial,
};

// ---- The field rules, as kinds: what each accepts and what breaks it.

interface Kind {
  expected: string;
  good: unknown[];
  bad: unknown[];
}

const KIND = {
  uuid: {
    expected: 'uuid',
    good: ['00000000-0000-4000-8000-000000000000'],
    bad: ['not-a-uuid', '0f8fad5b-d9cb-469f-a165-70867728950', 'urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e', 42, ''],
  },
  digits: {
    expected: 'string of decimal digits',
    good: ['0', '1', '123456789012345678901234567890'],
    bad: ['12a', '-1', '1.5', ' 1', '', 12, '0x1'],
  },
  text: { expected: 'string', good: ['x', ''], bad: [5, null, true] },
  maybeEmpty: { expected: 'string', good: ['', 'x'], bad: [5, null, false] },
  integer: { expected: 'integer', good: [0, 17_000_000], bad: ['12', 1.5, null] },
  number: { expected: 'number', good: [0, 1.5, 1000], bad: ['1.5', null, true] },
  boolean: { expected: 'boolean', good: [true, false], bad: ['true', 0, null] },
  array: { expected: 'array', good: [[]], bad: [{}, 'x', null] },
  object: { expected: 'object', good: [], bad: ['x', [], null, 5] },
  hex: {
    expected: 'hex quantity (0x, lower-case hex digits, no leading zeros)',
    good: ['0x0', '0x1', '0xabc', '0x10d4f'],
    bad: ['0x00', '0x01', '0X1', '0xA', '12', '0x', '', '0xg', 16],
  },
  headerInt: { expected: 'non-negative integer', good: ['0', '3600'], bad: ['-1', '1.5', '', ' 1', 'abc', 1] },
  seconds: { expected: 'non-negative number of seconds', good: ['0', '1', '2.5'], bad: ['-1', 'soon', '', 1] },
  rpcId: { expected: 'number, string or null', good: [0, 1, 2 ** 53 - 1, 'abc', null], bad: [{}, [], true] },
  requestId: { expected: 'number or string', good: [0, 'abc'], bad: [null, {}, true] },
  jsonrpc: { expected: '"2.0"', good: ['2.0'], bad: ['1.0', 2, null] },
  absent: { expected: '', good: [], bad: [] },
} satisfies Record<string, Kind>;

interface Row {
  schema: SchemaName;
  /** Dotted path of the field inside the schema's record. */
  field: string;
  kind: KindName;
  /** A rule id the problem must name. */
  rule: string;
  /** False when the field may be absent (next_page_token, retry-after outside a 429). */
  required?: boolean;
  /** For `absent` fields: values that must be refused with this expected text. */
  refuse?: { value: unknown; expected: string };
}

type KindName = keyof typeof KIND;

/** One row per field of a schema: field -> kind, or [kind, row options]. */
const fields = (schema: SchemaName, rule: string, kinds: Record<string, KindName | [KindName, Partial<Row>]>): Row[] =>
  Object.entries(kinds).map(([field, k]) =>
    Array.isArray(k) ? { schema, field, rule, kind: k[0], ...k[1] } : { schema, field, rule, kind: k },
  );

const TABLE: Row[] = [
  // NFT event (NFT-01), its transaction and payments (NFT-04)
  ...fields(SCHEMA.event, 'NFT-01', {
    id: 'uuid',
    contract_address: 'text',
    token_id: 'digits',
    event_type: 'text',
    timestamp: 'digits',
    from: 'text',
    to: 'text',
    quantity: 'digits',
    transaction: 'object',
    payments: 'array',
  }),
  ...fields(SCHEMA.transaction, 'NFT-01', { block_hash: 'text', block_number: 'integer', transaction_hash: 'text' }),
  ...fields(SCHEMA.payment, 'NFT-04', { from: 'text', to: 'text', price: 'number', currency: 'text' }),
  // Collection (NFT-05), its contracts and meta
  ...fields(SCHEMA.collection, 'NFT-05', {
    id: 'uuid',
    name: 'text',
    description: 'maybeEmpty',
    logo: 'text',
    banner: 'maybeEmpty',
    verified: 'boolean',
    contracts: 'array',
    meta: 'object',
    sub_collection: 'array',
  }),
  ...fields(SCHEMA.contract, 'NFT-05', {
    address: 'text',
    name: 'text',
    symbol: 'text',
    description: 'maybeEmpty',
    image_url: 'maybeEmpty',
    type: 'text',
  }),
  ...fields(SCHEMA.collectionMeta, 'NFT-05', { discord_url: 'text', external_url: 'text', twitter_username: 'text' }),
  // Asset (NFT-06), media, attributes, rarity entries (NFT-07)
  ...fields(SCHEMA.asset, 'NFT-06', {
    token_id: 'digits',
    token_type: 'text',
    media: 'object',
    name: 'text',
    mint_date: 'digits',
    token_uri: 'text',
    description: 'maybeEmpty',
    contract_address: 'text',
    wallets: 'array',
    attributes: 'array',
    burned: 'boolean',
    rarity: 'array',
  }),
  ...fields(SCHEMA.media, 'NFT-06', { image_url: 'text', source: 'text' }),
  ...fields(SCHEMA.attribute, 'NFT-06', { trait_type: 'text', value: 'text' }),
  ...fields(SCHEMA.rarityEntry, 'NFT-07', { model: 'text', score: 'number', rank: 'digits' }),
  // Asset list item and paging (NFT-08)
  ...fields(SCHEMA.assetListItem, 'NFT-08', {
    id: 'uuid',
    token_id: 'digits',
    image_url: 'text',
    name: 'text',
    contract_address: 'text',
    rarity: 'array',
  }),
  ...fields(SCHEMA.paging, 'NFT-08', {
    paging: 'object',
    'paging.next_page_token': ['maybeEmpty', { required: false }],
  }),
  // Envelopes
  ...fields(SCHEMA.eventResponse, 'NFT-01', { data: 'object' }),
  ...fields(SCHEMA.collectionResponse, 'NFT-05', { collection: 'object' }),
  ...fields(SCHEMA.assetResponse, 'NFT-06', { asset: 'object' }),
  ...fields(SCHEMA.rarityListResponse, 'NFT-08', { data: 'array', meta: 'object' }),
  // JSON-RPC 2.0
  ...fields(SCHEMA.rpcRequest, 'RPC-01', {
    jsonrpc: 'jsonrpc',
    id: ['requestId', { rule: 'RPC-04' }],
    method: 'text',
    params: 'array',
  }),
  ...fields(SCHEMA.nodeRpcRequest, 'NODE-04', { method: 'text', params: 'array', id: 'number' }),
  ...fields(SCHEMA.rpcSuccess, 'RPC-01', {
    jsonrpc: 'jsonrpc',
    id: ['rpcId', { rule: 'RPC-04' }],
    result: 'absent',
    error: [
      'absent',
      { required: false, refuse: { value: rpcError, expected: 'no error member in a success response' } },
    ],
  }),
  ...fields(SCHEMA.rpcBlockNumberResponse, 'RPC-02', { result: 'hex' }),
  ...fields(SCHEMA.rpcError, 'RPC-05', {
    code: 'integer',
    message: 'maybeEmpty',
    data: ['absent', { required: false }],
  }),
  ...fields(SCHEMA.rpcErrorResponse, 'RPC-05', {
    jsonrpc: 'jsonrpc',
    id: ['rpcId', { rule: 'RPC-06' }],
    error: 'object',
    result: [
      'absent',
      { required: false, refuse: { value: '0x1', expected: 'no result member in an error response' } },
    ],
  }),
  // Rate-limit headers (RL-01; retry-after RL-06)
  ...fields(SCHEMA.rateLimitHeaders, 'RL-01', {
    'x-ratelimit-limit': 'headerInt',
    'x-ratelimit-remaining': 'headerInt',
    'x-ratelimit-reset': 'headerInt',
    'retry-after': ['seconds', { required: false, rule: 'RL-06' }],
  }),
  ...fields(SCHEMA.rateLimitDenialHeaders, 'RL-06', { 'retry-after': 'seconds' }),
];

const segmentsOf = (field: string) => field.split('.');

function withField(record: unknown, field: string, value: unknown, remove = false): unknown {
  const copy = structuredClone(record) as Record<string, unknown>;
  const segs = segmentsOf(field);
  let at = copy;
  for (const seg of segs.slice(0, -1)) at = at[seg] as Record<string, unknown>;
  if (remove) delete at[segs.at(-1)!];
  else at[segs.at(-1)!] = value;
  return copy;
}

const show = (problems: SchemaProblem[]) => problems.map((p) => p.message).join(' | ') || '(no problems)';

test('every correct record is accepted', () => {
  for (const [name, record] of Object.entries(RECORDS))
    assert.deepEqual(validate(name as SchemaName, record), [], name);
});

for (const r of TABLE) {
  const kind: Kind = KIND[r.kind];
  const record = RECORDS[r.schema];
  test(`${r.schema}.${r.field}: ${r.kind === 'absent' ? 'presence' : kind.expected} (${r.rule})`, () => {
    assert.ok(record, `no correct record for ${r.schema}`);
    for (const good of kind.good)
      assert.deepEqual(
        validate(r.schema, withField(record, r.field, good)),
        [],
        `${JSON.stringify(good)} should be accepted`,
      );
    const refusals = [
      ...kind.bad.map((value) => ({ value, expected: kind.expected })),
      ...(r.refuse ? [r.refuse] : []),
    ];
    for (const { value, expected } of refusals) {
      const problems = validate(r.schema, withField(record, r.field, value));
      assert.equal(problems.length, 1, `${JSON.stringify(value)}: ${show(problems)}`);
      const [p] = problems as [SchemaProblem];
      assert.equal(p.path, r.field);
      assert.equal(p.expected, expected);
      assert.ok(p.rules.includes(r.rule), `${p.message} should name ${r.rule}, names ${p.rules.join(',')}`);
      assert.equal(p.message, `${r.field}: expected ${expected}, got ${p.actual}`);
      assert.ok(!p.message.includes('\n'));
    }
    const without = validate(r.schema, withField(record, r.field, undefined, true));
    if (r.required === false) assert.deepEqual(without, [], 'an optional field may be absent');
    else {
      assert.deepEqual(
        without.map((p) => [p.path, p.expected, p.actual]),
        [[r.field, 'required field', 'missing']],
      );
      assert.ok(without[0]!.rules.includes(r.rule));
    }
  });
}

test('the table has a row for every documented field of every resource schema', () => {
  const covered = new Set(TABLE.map((r) => `${r.schema}:${r.field}`));
  const missing: string[] = [];
  const visit = (name: string, node: Record<string, unknown>, prefix: string) => {
    const props = isSchemaNode(node.properties) ? node.properties : {};
    for (const [key, sub] of Object.entries(props)) {
      const field = prefix ? `${prefix}.${key}` : key;
      if (!covered.has(`${name}:${field}`)) missing.push(`${name}:${field}`);
      if (isSchemaNode(sub) && isSchemaNode(sub.properties)) visit(name, sub, field);
    }
  };
  for (const file of schemaFiles) {
    const name = file.replace('.schema.json', '');
    if (name === 'common' || OWN_FILES.has(file)) continue;
    visit(name, rawSchema(file), '');
  }
  assert.deepEqual(missing, []);
});

test('"may be empty" fields and payments accept empty values; extra fields are allowed', () => {
  assert.deepEqual(validate(SCHEMA.event, { ...event, payments: [] }), []);
  assert.deepEqual(
    validate(SCHEMA.collection, { ...collection, description: '', banner: '', sub_collection: [{ anything: 1 }] }),
    [],
  );
  assert.deepEqual(validate(SCHEMA.contract, { ...contract, description: '', image_url: '' }), []);
  assert.deepEqual(
    validate(SCHEMA.asset, { ...asset, description: '', wallets: [{ address: '0x1' }], attributes: [], rarity: [] }),
    [],
  );
  assert.deepEqual(
    validate(SCHEMA.eventResponse, {
      data: { ...event, extra: 1, transaction: { ...transaction, gas: 1 } },
      more: true,
    }),
    [],
  );
});

test('event types and rarity models beyond those shown are accepted (observed by NFT-03 and NFT-07)', () => {
  assert.deepEqual(validate(SCHEMA.event, { ...event, event_type: 'mint' }), []);
  assert.deepEqual(validate(SCHEMA.rarityEntry, { ...rarityEntry, model: 'other_model' }), []);
});

test('the last page of the rarity list may carry no token or an empty one (NFT-08)', () => {
  for (const meta of [{ paging: {} }, { paging: { next_page_token: '' } }, paging]) {
    assert.deepEqual(validate(SCHEMA.rarityListResponse, { data: [], meta }), [], JSON.stringify(meta));
  }
  assert.deepEqual(
    validate(SCHEMA.rarityListResponse, { data: [assetListItem], meta: { paging: { next_page_token: 7 } } }).map(
      (p) => p.path,
    ),
    ['meta.paging.next_page_token'],
  );
});

test('problems inside envelopes carry the full dotted path, one line each, and the rules of every level', () => {
  const body = {
    data: {
      ...event,
      transaction: { ...transaction, block_number: '12' },
      payments: [payment, { ...payment, price: '9.5' }],
    },
  };
  const problems = validate(SCHEMA.eventResponse, body);
  assert.deepEqual(
    problems.map((p) => p.message),
    [
      'data.transaction.block_number: expected integer, got string "12"',
      'data.payments[1].price: expected number, got string "9.5"',
    ],
  );
  assert.deepEqual(problems[1]!.rules.sort(), ['NFT-01', 'NFT-04', 'RES-01']);
  assert.equal(problems[1]!.source, 'Resources and their fields / NFT event / Payment object');

  const rarity = validate(SCHEMA.rarityListResponse, {
    data: [assetListItem, { ...assetListItem, rarity: [{ ...rarityEntry, rank: 'first' }] }],
    meta: paging,
  });
  assert.deepEqual(
    rarity.map((p) => [p.path, p.expected, p.actual]),
    [['data[1].rarity[0].rank', 'string of decimal digits', 'string "first"']],
  );
  assert.ok(rarity[0]!.rules.includes('NFT-07') && rarity[0]!.rules.includes('NFT-08'));

  const asset2 = validate(SCHEMA.assetResponse, { asset: { ...asset, media: { image_url: '/m.png' } } });
  assert.deepEqual(
    asset2.map((p) => p.message),
    ['asset.media.source: required field is missing'],
  );

  assert.deepEqual(
    validate(SCHEMA.eventResponse, []).map((p) => p.message),
    ['(root): expected object, got array of 0 items'],
  );
  assert.deepEqual(
    validate(SCHEMA.collectionResponse, {}).map((p) => p.message),
    ['collection: required field is missing'],
  );
});

test('the excerpt of a long value is clipped', () => {
  const [p] = validate(SCHEMA.event, { ...event, token_id: `x${'9'.repeat(200)}` });
  assert.ok(p && p.actual.length < 60, p?.actual);
  assert.ok(p.actual.endsWith('…"'));
});

test('JSON-RPC: request, success, error response and the block-number result', () => {
  assert.deepEqual(validate(SCHEMA.rpcRequest, { ...rpcRequest, id: 'req-1' }), []);
  assert.deepEqual(validate(SCHEMA.rpcSuccess, { jsonrpc: '2.0', id: null, result: null }), []);
  assert.deepEqual(
    validate(SCHEMA.rpcErrorResponse, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error', data: { at: 3 } },
    }),
    [],
  );
  assert.deepEqual(validate(SCHEMA.rpcBlockNumberResponse, { jsonrpc: '2.0', id: 'x', result: '0x0' }), []);
  // the block-number response is a success response too
  assert.deepEqual(
    validate(SCHEMA.rpcBlockNumberResponse, { jsonrpc: '2.0', result: '0x1' }).map((p) => p.path),
    ['id'],
  );
  assert.deepEqual(
    validate(SCHEMA.rpcBlockNumberResponse, { ...rpcBlockNumber, error: rpcError }).map((p) => p.path),
    ['error'],
  );
  const [code] = validate(SCHEMA.rpcErrorResponse, { ...rpcErrorResponse, error: { code: '-32601', message: 'x' } });
  assert.equal(code?.message, 'error.code: expected integer, got string "-32601"');
  assert.deepEqual(validate(SCHEMA.hexQuantity, '0x1b4'), []);
  assert.equal(validate(SCHEMA.hexQuantity, '0x01b4')[0]?.path, '(root)');
});

test('rate-limit headers: names are read case-insensitively through headerRecord', () => {
  const fromNode = headerRecord({
    'X-RateLimit-Limit': '3600',
    'X-Ratelimit-Remaining': ['3599'],
    'x-ratelimit-reset': '1',
    'Content-Type': 'application/json',
    skipped: undefined,
  });
  assert.deepEqual(fromNode, {
    'x-ratelimit-limit': '3600',
    'x-ratelimit-remaining': '3599',
    'x-ratelimit-reset': '1',
    'content-type': 'application/json',
  });
  assert.deepEqual(validate(SCHEMA.rateLimitHeaders, fromNode), []);
  assert.deepEqual(
    validate(SCHEMA.rateLimitDenialHeaders, fromNode).map((p) => p.message),
    ['retry-after: required field is missing'],
  );
  assert.deepEqual(
    validate(SCHEMA.rateLimitHeaders, {}).map((p) => p.path),
    ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
  );
});

test('the strict view lists extra fields, nested ones too, and nothing on a documented record', () => {
  for (const [name, record] of Object.entries(RECORDS))
    assert.deepEqual(extraFields(name as SchemaName, record), [], name);
  const body = {
    data: {
      ...event,
      chain: 'a',
      transaction: { ...transaction, gas_used: 1 },
      payments: [payment, { ...payment, fee: 0 }],
    },
    request_id: 'r',
  };
  assert.deepEqual(
    extraFields(SCHEMA.eventResponse, body)
      .map((x) => `${x.resource}:${x.path}:${x.field}`)
      .sort(),
    [
      'EventResponse:request_id:request_id',
      'NftEvent:data.chain:chain',
      'Payment:data.payments[1].fee:fee',
      'Transaction:data.transaction.gas_used:gas_used',
    ],
  );

  const col = {
    collection: {
      ...collection,
      meta: { ...collectionMeta, instagram: 'x' },
      contracts: [{ ...contract, deployed_at: 1 }],
      sub_collection: [{ shape: 'not shown' }],
    },
  };
  assert.deepEqual(
    extraFields(SCHEMA.collectionResponse, col)
      .map((x) => `${x.resource}:${x.path}`)
      .sort(),
    ['CollectionMeta:collection.meta.instagram', 'Contract:collection.contracts[0].deployed_at'],
  );
  const list = {
    data: [{ ...assetListItem, rarity: [{ ...rarityEntry, percentile: 1 }] }],
    meta: { paging: { next_page_token: '', total: 3 }, took: 1 },
  };
  assert.deepEqual(
    extraFields(SCHEMA.rarityListResponse, list)
      .map((x) => `${x.resource}:${x.path}`)
      .sort(),
    ['Paging:meta.paging.total', 'PagingEnvelope:meta.took', 'RarityEntry:data[0].rarity[0].percentile'],
  );
  assert.deepEqual(
    extraFields(SCHEMA.rpcBlockNumberResponse, { ...rpcBlockNumber, extra: 1 }).map((x) => x.path),
    ['extra'],
  );
  // the strict view judges fields, not types: a badly typed documented field is not "extra"
  assert.deepEqual(extraFields(SCHEMA.transaction, { ...transaction, block_number: '1' }), []);
});

test('the strict view is generated from the schemas, not a copy of them', () => {
  for (const file of schemaFiles) {
    const schema = rawSchema(file);
    const strict = strictViewOf(schema) as Record<string, unknown>;
    assert.equal(strict.$id, String(schema.$id).replace('/schemas/', '/schemas/strict/'));
    // the lax files allow extras; only chainprobe's own files (the target file, waivers) may be closed
    mapSchema(schema, (node) => {
      if (!OWN_FILES.has(file))
        assert.ok(node.additionalProperties !== false && node.unevaluatedProperties === undefined, file);
      return node;
    });
    // every object schema outside allOf/anyOf/oneOf is closed in the strict view
    mapSchema(strict, (node, { branch }) => {
      if (!branch && isSchemaNode(node.properties))
        assert.equal(node.unevaluatedProperties, false, `${file}: ${Object.keys(node.properties).join(',')}`);
      return node;
    });
    assert.deepEqual(schema, rawSchema(file), 'strictViewOf must not change its input');
  }
});

test('every schema and every field names its source section and real rule ids', () => {
  const problems: string[] = [];
  const check = (file: string, where: string, node: Record<string, unknown>) => {
    if (typeof node['x-source'] !== 'string' || !node['x-source']) problems.push(`${file} ${where}: no x-source`);
    const rules = node['x-rules'];
    if (!Array.isArray(rules)) problems.push(`${file} ${where}: no x-rules`);
    else
      for (const id of rules) if (!isRuleId(String(id))) problems.push(`${file} ${where}: unknown rule ${String(id)}`);
  };
  for (const file of schemaFiles) {
    const schema = rawSchema(file);
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema', file);
    assert.equal(schema.$id, `https://chainprobe.dev/schemas/${file}`, file);
    check(file, '(root)', schema);
    if (OWN_FILES.has(file)) continue; // the target file is annotated per section; the others serve no rule
    mapSchema(schema, (node, { via }) => {
      if (via === 'properties' || via === '$defs') check(file, Object.keys(node).join(','), node);
      return node;
    });
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(annotationsOf(SCHEMA.eventResponse, 'data.payments[0].price'), {
    source: 'Resources and their fields / NFT event / Payment object',
    rules: ['NFT-04', 'RES-01'],
    description: 'Decimal amount.',
  });
  assert.equal(annotationsOf(SCHEMA.asset).title, 'Asset');
  assert.deepEqual(annotationsOf(SCHEMA.asset).rules, ['NFT-06', 'RES-01']);
  // a field beyond the documented ones gets its record's annotations
  assert.deepEqual(annotationsOf(SCHEMA.asset, 'media.unknown').rules, ['NFT-06', 'RES-01']);
});

test('schema names: every constant resolves and every file has a name', () => {
  const names = new Set(schemaNames());
  for (const name of Object.values(SCHEMA)) assert.ok(names.has(name), name);
  for (const file of schemaFiles) assert.ok(names.has(file.replace('.schema.json', '')), file);
  assert.throws(() => validate('no-such-schema' as SchemaName, {}), /unknown schema name "no-such-schema"/);
});

test('targets/example.json validates against the target schema with its variables set', () => {
  const raw = JSON.parse(readFileSync(new URL('../../targets/example.json', import.meta.url), 'utf8')) as unknown;
  const problems: string[] = [];
  const names = [...JSON.stringify(raw).matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]!);
  assert.ok(names.length >= 5, 'every secret is a ${...} variable');
  const env = Object.fromEntries(names.map((n) => [n, `dummy-${n.toLowerCase()}`]));
  const resolved = substituteEnv(raw, env, '', problems);
  assert.deepEqual(problems, []);
  assert.deepEqual(validate(SCHEMA.target, resolved), []);
  for (const section of ['api', 'nodes', 'limits']) assert.ok(section in (raw as object), section);
  // .env.example names exactly the variables the example uses
  const envExample = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
  const declared = [...envExample.matchAll(/^([A-Z0-9_]+)=$/gm)].map((m) => m[1]);
  assert.deepEqual(declared.sort(), [...new Set(names)].sort());
});

test('type generation is deterministic, matches the files on disk, and declares each type once', async () => {
  const { generate } = await import('../../tools/generate-types.js');
  const [first, second] = [await generate(), await generate()];
  assert.deepEqual([...first], [...second]);
  const dir = new URL('../../src/types/generated/', import.meta.url);
  for (const [file, text] of first)
    assert.equal(readFileSync(new URL(file, dir), 'utf8'), text, `${file} is out of date: run npm run generate`);
  const declared = [...first.values()].flatMap((text) =>
    [...text.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!),
  );
  assert.deepEqual(
    declared.filter((name, i) => declared.indexOf(name) !== i),
    [],
    'a type declared twice',
  );
  assert.deepEqual(
    declared.filter((name) => /\d$/.test(name)),
    [],
    'json2ts numbered a duplicate',
  );
  assert.ok(first.get('target.ts')?.includes('export interface TargetFile'));
});

test('the precompiled validators match schemas/ and judge as ajv compiling the schemas does, errors included', () => {
  assert.ok(usesPrecompiled(), 'src/schemas/generated/validators.cjs is out of date: run npm run generate');
  const { byId } = readSchemaFiles();
  const ajv = schemaAjv(byId);
  const pre = createRequire(import.meta.url)('../../src/schemas/generated/validators.cjs') as Record<
    string,
    ValidateFunction
  >;
  // Each correct record, the same with its first field removed and with it of the wrong type, and plain odd values.
  const values = Object.values(RECORDS).flatMap((r) => {
    const [first] = Object.keys(r as object);
    const without = { ...(r as Record<string, unknown>) };
    if (first) delete without[first];
    return [
      r,
      without,
      { ...(r as object), ...(first && { [first]: [{ wrong: true }] }) },
      { ...(r as object), extra: 1 },
    ];
  });
  for (const name of schemaNames())
    for (const view of ['lax', 'strict'] as View[]) {
      const compiled = ajv.getSchema(viewId(view, name))!;
      const made = pre[exportNameOf(view, name)]!;
      for (const value of [...values, {}, null, 1, 'x', []]) {
        const a = made(value);
        const b = compiled(value);
        assert.equal(a, b, `${view} ${name}: ${JSON.stringify(value)}`);
        assert.deepEqual(
          made.errors ?? null,
          compiled.errors ?? null,
          `${view} ${name} errors: ${JSON.stringify(value)}`,
        );
      }
    }
});
