// The exported documents: accepted by independent validators (@readme/openapi-parser for OpenAPI
// 3.1, @open-rpc/schema-utils-js for OpenRPC), the same as the copies under docs/, and faithful to
// their sources: every endpoint of the table, the documented credential forms per server, bodies
// the description does not show left open, every rule id a catalogue id.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { parseOpenRPCDocument, validateOpenRPCDocument } from '@open-rpc/schema-utils-js';
import { documentText, EXPORTS, type ExportKind } from '../../src/export/documents.js';
import { rulesIn } from '../../src/export/rules.js';
import { ENDPOINTS } from '../../src/service/endpoints.js';
import { isRuleId } from '../../src/rules/catalogue.js';

type Json = Record<string, any>;
const doc = (kind: ExportKind): Json => JSON.parse(documentText(kind)) as Json;

test('@readme/openapi-parser accepts the OpenAPI document as OpenAPI 3.1 without warnings', async () => {
  const result = await validateOpenApi(doc('openapi') as never);
  assert.deepEqual(result, { valid: true, warnings: [], specification: 'OpenAPI' });
  assert.equal(doc('openapi').openapi, '3.1.0');
});

test('the OpenAPI validator is not a rubber stamp: a broken document is refused', async () => {
  const broken = doc('openapi');
  broken.paths['/fee_stats'].get.responses['2XX'].content['application/json'].schema = {
    $ref: '#/components/schemas/Nope',
  };
  const result = await validateOpenApi(broken as never);
  assert.equal(result.valid, false);
});

test('@open-rpc/schema-utils-js accepts the OpenRPC document, and refuses a broken one', async () => {
  assert.equal(validateOpenRPCDocument(doc('openrpc') as never), true);
  const parsed = await parseOpenRPCDocument(doc('openrpc') as never);
  assert.equal(parsed.methods.length, 1);
  const broken = doc('openrpc');
  delete broken.methods[0].params;
  assert.notEqual(validateOpenRPCDocument(broken as never), true);
});

test('the copies under docs/ are the documents npm run export writes', () => {
  for (const kind of Object.keys(EXPORTS) as ExportKind[]) {
    const file = new URL(`../../docs/${EXPORTS[kind].docsFile}`, import.meta.url);
    assert.equal(
      readFileSync(file, 'utf8'),
      documentText(kind),
      `docs/${EXPORTS[kind].docsFile}: run npm run generate`,
    );
  }
});

test('every endpoint of the table is there with its methods, and every rule id is a catalogue id', () => {
  const oa = doc('openapi');
  for (const e of Object.values(ENDPOINTS))
    for (const m of e.methods) assert.ok(oa.paths[e.path]?.[m.toLowerCase()], `${m} ${e.path} missing`);
  for (const kind of Object.keys(EXPORTS) as ExportKind[]) {
    const ids = [...rulesIn(doc(kind))];
    assert.ok(ids.length > 10);
    assert.deepEqual(
      ids.filter((id) => !isRuleId(id)),
      [],
    );
    assert.deepEqual(Object.keys(doc(kind)['x-rule-catalogue']).sort(), ids.sort());
  }
});

test('security: the forms the description gives per server; open forms listed apart, never required', () => {
  const oa = doc('openapi');
  const names = (s: Json[]) => s.flatMap((r) => Object.keys(r)).sort();
  const schemes = oa.components.securitySchemes;
  assert.deepEqual(Object.keys(schemes).sort(), [
    'baseBearer',
    'baseXApiKey',
    'legacyApikeyQuery',
    'legacyBearer',
    'nodeAuthQuery',
    'nodeBearer',
    'nodeXAuthToken',
  ]);
  assert.deepEqual(schemes.baseXApiKey, { ...schemes.baseXApiKey, type: 'apiKey', in: 'header', name: 'X-API-Key' });
  assert.deepEqual(schemes.legacyApikeyQuery, { ...schemes.legacyApikeyQuery, in: 'query', name: 'apiKey' });
  assert.deepEqual(schemes.nodeAuthQuery, { ...schemes.nodeAuthQuery, in: 'query', name: 'auth' });
  assert.equal(schemes.baseBearer.scheme, 'bearer');
  const event = oa.paths[ENDPOINTS.event.path].get;
  assert.deepEqual(names(event.security), ['baseBearer', 'baseXApiKey', 'legacyApikeyQuery', 'legacyBearer']);
  // AUTH-09: the apiKey query on {base_url} is open (the tutorials say it works, the key type list does not).
  assert.ok(
    event['x-open-security'].some((f: Json) => f.server === 'base' && f.name === 'apiKey' && f.rule === 'AUTH-09'),
  );
  assert.deepEqual(names(oa.paths[ENDPOINTS.blockByHeight.path].get.security), [
    'nodeAuthQuery',
    'nodeBearer',
    'nodeXAuthToken',
  ]);
  // Shown with the auth query only; the header forms there are observed (NAUTH-04).
  const node = oa.paths[ENDPOINTS.appRestNodeInfo.path].get;
  assert.deepEqual(names(node.security), ['nodeAuthQuery']);
  assert.deepEqual(node['x-open-security'].map((f: Json) => f.name).sort(), ['Authorization', 'X-Auth-Token']);
  assert.deepEqual(
    oa.servers.map((s: Json) => [s.url, s['x-security']]),
    [
      ['{base_url}', ['baseBearer', 'baseXApiKey']],
      ['{legacy_base_url}', ['legacyApikeyQuery', 'legacyBearer']],
      ['https://{node_endpoint}', ['nodeBearer', 'nodeXAuthToken', 'nodeAuthQuery']],
    ],
  );
});

test('bodies: documented ones are the schemas of schemas/, "not shown" ones are left open', () => {
  const oa = doc('openapi');
  const ok = (path: string, method = 'get') => oa.paths[path][method].responses['2XX'];
  assert.deepEqual(ok(ENDPOINTS.event.path).content, {
    'application/json': { schema: { $ref: '#/components/schemas/EventResponse' } },
  });
  assert.deepEqual(ok(ENDPOINTS.rarity.path).content['application/json'].schema, {
    $ref: '#/components/schemas/RarityListResponse',
  });
  assert.deepEqual(oa.components.schemas.RarityListResponse.properties.meta, {
    ...oa.components.schemas.RarityListResponse.properties.meta,
    $ref: '#/components/schemas/PagingEnvelope',
  });
  // Not shown: the block-number body, node bodies (their JSON media type is a rule's), error bodies.
  assert.deepEqual(ok(ENDPOINTS.blockNumber.path).content, { '*/*': { schema: {} } });
  assert.match(ok(ENDPOINTS.blockNumber.path).description, /not shown/);
  assert.deepEqual(ok(ENDPOINTS.blockByHeight.path).content, { 'application/json': { schema: {} } });
  assert.deepEqual(oa.paths[ENDPOINTS.event.path].get.responses.default.content, { '*/*': { schema: {} } });
  assert.equal(oa.paths['/fee_stats'].head.responses['2XX'].content, undefined);
  // Native JSON-RPC: the request and response bodies, with the standard's alternatives.
  const native = oa.paths[ENDPOINTS.native.path].post;
  assert.deepEqual(native.requestBody.content['application/json'].schema, {
    $ref: '#/components/schemas/JsonRpcRequest',
  });
  assert.equal(native.responses['2XX'].content['application/json'].schema.anyOf.length, 3);
  // NFT parameters: ids are UUIDs, the asset's two query parameters are required together.
  const assetParams = oa.paths[ENDPOINTS.asset.path].parameters.map((p: Json) => [p.name, p.in, p.required]);
  assert.deepEqual(assetParams.slice(2), [
    ['contract_address', 'query', true],
    ['token_id', 'query', true],
  ]);
  assert.deepEqual(oa.paths[ENDPOINTS.event.path].parameters[2].schema, { $ref: '#/components/schemas/Uuid' });
});

test('fee statistics: GET and HEAD carry the rate-limit headers; the 429 requires retry-after', () => {
  const fee = doc('openapi').paths['/fee_stats'];
  for (const m of ['get', 'head']) {
    const h = fee[m].responses['2XX'].headers;
    assert.deepEqual(
      Object.entries(h)
        .filter(([, v]) => (v as Json).required)
        .map(([k]) => k),
      ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
    );
    const denial = fee[m].responses['429'].headers;
    assert.equal(denial['retry-after'].required, true);
    assert.deepEqual(denial['retry-after'].schema, { $ref: '#/components/schemas/SecondsHeader' });
    assert.ok(denial['retry-after']['x-rules'].includes('RL-06'));
  }
  assert.deepEqual([fee.get.operationId, fee.head.operationId], ['nodeFeeStats', 'nodeFeeStatsHead']);
});

test('OpenRPC: the block-number method with its hex-quantity result on the native endpoint', () => {
  const rpc = doc('openrpc');
  const [m] = rpc.methods;
  assert.equal(m.name, 'eth_blockNumber');
  assert.deepEqual(m.params, []);
  assert.deepEqual(m.result.schema, { $ref: '#/components/schemas/HexQuantity' });
  assert.equal(rpc.components.schemas.HexQuantity.pattern, '^0x(0|[1-9a-f][0-9a-f]*)$');
  assert.ok(m['x-rules'].includes('RPC-02'));
  assert.match(rpc.servers[0].url, /\/\{protocol\}\/\{network\}\/native$/);
});
