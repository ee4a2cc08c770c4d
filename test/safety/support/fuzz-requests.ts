// fast-check generators of malformed requests for the reference's HTTP servers. Each request is
// built from a real route of its server with parts broken (ids, encodings, methods, credentials in
// every form, headers, query strings, bodies), so the fuzz reaches past routing and auth into the
// handlers instead of stopping at "404 no such endpoint".
import fc from 'fast-check';
import type { ReferenceTarget as TargetFile } from '../../../reference/start.js';

export type FuzzServer = 'base' | 'legacy' | 'blockRest' | 'chainB' | 'horizon';
export const FUZZ_SERVERS: readonly FuzzServer[] = ['base', 'legacy', 'blockRest', 'chainB', 'horizon'];

export interface FuzzRequest {
  server: FuzzServer;
  method: string;
  /** Path and query as sent (request-target). */
  path: string;
  headers: Record<string, string | string[]>;
  body?: string;
}

/** What the generators need to know about the running reference: real ids and credentials. */
export interface FuzzWorld {
  protocol: string;
  networks: string[];
  nftProtocol: string;
  nftNetwork: string;
  eventIds: string[];
  collectionId: string;
  universal: { protocol: string; network: string }[];
  keys: { apiKey: string; legacyApiKey: string; blockRest: string; chainB: string; horizon: string };
}

export function worldOf(target: TargetFile): FuzzWorld {
  const api = target.api!;
  const nodes = target.nodes!;
  return {
    protocol: api.native!.protocol,
    networks: [...api.native!.networks],
    nftProtocol: api.nft!.protocol,
    nftNetwork: api.nft!.network,
    eventIds: [...(api.nft!.eventIds ?? [])],
    collectionId: api.nft!.collectionId!,
    universal: [...(api.universal ?? [])],
    keys: {
      apiKey: api.apiKey!,
      legacyApiKey: api.legacyApiKey!,
      blockRest: nodes.blockRest!.token,
      chainB: nodes.chainB!.token,
      horizon: nodes.horizon!.token,
    },
  };
}

// Methods llhttp parses. An unknown token ("FOO") is refused by Node's parser before any handler
// runs; that path is covered separately (raw socket test), not here.
const METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'PURGE'] as const;
const method = fc.oneof(
  { weight: 8, arbitrary: fc.constant('GET') },
  { weight: 6, arbitrary: fc.constant('POST') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  { weight: 3, arbitrary: fc.constantFrom(...METHODS) },
);

/** Printable ASCII: what undici lets through in a header value. */
const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });
/** Percent-encodes the UTF-8 bytes of any string (lone surrogates included, unlike enc). */
export function enc(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8'))
    out += /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const anyText = fc.oneof(
  printable,
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** A path segment: sometimes the real value, mostly something wrong with it. */
function segment(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: valid.map(enc) },
    { weight: 2, arbitrary: fc.uuid().map(String) },
    {
      weight: 2,
      arbitrary: valid.chain((v) =>
        fc.integer({ min: 0, max: Math.max(0, v.length - 1) }).map((i) => enc(v.slice(0, i) + 'g' + v.slice(i + 1))),
      ),
    },
    { weight: 2, arbitrary: anyText.map(enc) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%E0%A4%A',
        '%00',
        '%2F..%2F',
        '..',
        '.',
        '-1',
        '0',
        '1e309',
        'NaN',
        '0x10',
        '99999999999999999999',
        '%C0%AF',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 2000 }).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fc.constant('') },
  );
}

function queryValue(valid: string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    ...(valid.length ? [{ weight: 3, arbitrary: fc.constantFrom(...valid).map(enc) }] : []),
    { weight: 2, arbitrary: anyText.map(enc) },
    { weight: 1, arbitrary: fc.constantFrom('', '%', '%zz', '+', '%2B', '&', '=', '==', '%00', '[]', '{}', '-1') },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 1500 }).map((n) => 'z'.repeat(n)) },
  );
}

/** A query string: the route's own parameters with odd values, repeats, stray separators. */
function query(names: string[], valid: Record<string, string[]> = {}): fc.Arbitrary<string> {
  const pair = fc.oneof(
    fc
      .tuple(fc.constantFrom(...names, 'apiKey', 'auth', 'x'), fc.constant(null))
      .chain(([n]) => queryValue(valid[n]).map((v) => `${n}=${v}`)),
    anyText.map((s) => enc(s)),
    fc.constantFrom('=', '&', '&&', '=&=', '?', 'apiKey', 'auth=', 'apiKey=&apiKey=x'),
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 5, arbitrary: fc.array(pair, { maxLength: 5 }).map((ps) => (ps.length ? `?${ps.join('&')}` : '?')) },
  );
}

function pathFor(server: FuzzServer, w: FuzzWorld): fc.Arbitrary<string> {
  const unknown = fc.array(anyText.map(enc), { minLength: 0, maxLength: 4 }).map((ss) => `/${ss.join('/')}`);
  const with_ = (p: fc.Arbitrary<string>, q: fc.Arbitrary<string>) => fc.tuple(p, q).map(([a, b]) => a + b);
  if (server === 'base' || server === 'legacy') {
    const proto = segment(fc.constantFrom(w.protocol, w.nftProtocol, ...w.universal.map((u) => u.protocol)));
    const net = segment(fc.constantFrom(...w.networks, w.nftNetwork, ...w.universal.map((u) => u.network)));
    const nft = fc
      .tuple(segment(fc.constant(w.nftProtocol)), segment(fc.constant(w.nftNetwork)))
      .map(([p, n]) => `/nft/v1/${p}/${n}`);
    return fc.oneof(
      with_(
        fc.tuple(proto, net).map(([p, n]) => `/universal/v1/${p}/${n}/sync/block_number`),
        query(['apiKey']),
      ),
      with_(
        fc.tuple(proto, net).map(([p, n]) => `/${p}/${n}/native`),
        query([]),
      ),
      with_(
        fc.tuple(nft, segment(fc.constantFrom(...w.eventIds))).map(([b, id]) => `${b}/event/${id}`),
        query([]),
      ),
      with_(
        fc.tuple(nft, segment(fc.constant(w.collectionId))).map(([b, id]) => `${b}/collection/${id}`),
        query([]),
      ),
      with_(
        nft.map((b) => `${b}/asset`),
        query(['contract_address', 'token_id'], {
          token_id: ['1', '2', '0'],
          contract_address: [`0x${'a'.repeat(40)}`],
        }),
      ),
      with_(
        fc.tuple(nft, segment(fc.constant(w.collectionId))).map(([b, id]) => `${b}/assets/rarity/${id}`),
        query(['sort_by', 'page_token', 'limit'], {
          sort_by: ['rarity_rank', 'RARITY_RANK'],
          limit: ['1', '0', '-5', '100000'],
          page_token: ['eyJ4IjoxfQ==', 'AAAA', '!!!!'],
        }),
      ),
      with_(unknown, query([])),
    );
  }
  if (server === 'blockRest') {
    const height = segment(fc.constantFrom('1', '0', '2', '18446744073709551616'));
    return fc.oneof(
      {
        weight: 4,
        arbitrary: with_(
          height.map((h) => `/v1/blocks/by_height/${h}`),
          query(['with_transactions']),
        ),
      },
      { weight: 1, arbitrary: with_(unknown, query([])) },
    );
  }
  if (server === 'chainB') {
    return fc.oneof(
      with_(
        segment(fc.constantFrom('node_info', 'syncing', 'blocks/latest', 'blocks/1')).map(
          (p) => `/app_rest/${p.replace(/%2F/g, '/')}`,
        ),
        query([]),
      ),
      with_(fc.constantFrom('/consensus_rpc', '/consensus_rpc/'), query([])),
      with_(
        segment(fc.constantFrom('status', 'block', 'health', 'blockchain', 'validators')).map(
          (p) => `/consensus_rest/${p}`,
        ),
        query(['height', 'minHeight', 'maxHeight'], { height: ['1', '0', '-1', '"1"', 'abc'] }),
      ),
      with_(unknown, query([])),
    );
  }
  return fc.oneof(
    {
      weight: 4,
      arbitrary: with_(fc.constantFrom('/fee_stats', '/fee_stats/', '/FEE_STATS', '/fee_stats%00'), query([])),
    },
    { weight: 1, arbitrary: with_(unknown, query([])) },
  );
}

/** Credentials in every form the description lists, valid and broken, plus none at all. */
function credentials(
  server: FuzzServer,
  w: FuzzWorld,
): fc.Arbitrary<{ headers: Record<string, string | string[]>; query?: string }> {
  const own = {
    base: w.keys.apiKey,
    legacy: w.keys.legacyApiKey,
    blockRest: w.keys.blockRest,
    chainB: w.keys.chainB,
    horizon: w.keys.horizon,
  }[server];
  const other = server === 'base' ? w.keys.legacyApiKey : w.keys.apiKey;
  const value = fc.oneof(
    { weight: 10, arbitrary: fc.constant(own) },
    { weight: 1, arbitrary: fc.constant(other) },
    { weight: 1, arbitrary: fc.constant(own.toUpperCase()) },
    { weight: 1, arbitrary: fc.constant(`${own} `) },
    { weight: 1, arbitrary: fc.constant(own.slice(0, -1)) },
    { weight: 2, arbitrary: printable },
    { weight: 1, arbitrary: fc.integer({ min: 500, max: 3000 }).map((n) => 'k'.repeat(n)) },
  );
  const header = (name: string, prefix = '') => value.map((v) => ({ headers: { [name]: `${prefix}${v}` } }));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ headers: {} }) },
    { weight: 5, arbitrary: header('Authorization', 'Bearer ') },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('Bearer', 'Bearer ', 'bearer\t', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearer a b', ' ', '')
        .map((v) => ({ headers: { Authorization: v } })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('X-API-Key', 'x-api-key', 'X-API-KEY', 'X-Api-Key', 'x-API-key')
        .chain((n) => header(n)),
    },
    { weight: 2, arbitrary: header('X-Auth-Token') },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('apiKey', 'auth', 'APIKEY', 'Auth'), value)
        .map(([n, v]) => ({ headers: {}, query: `${n}=${enc(v)}` })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(value, value)
        .map(([a, b]) => ({ headers: { authorization: [`Bearer ${a}`, `Bearer ${b}`] } })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(value, value).map(([a, b]) => ({
        headers: { 'x-auth-token': a, authorization: `Bearer ${b}` },
        query: `auth=${enc(a)}&apiKey=${enc(b)}`,
      })),
    },
  );
}

const oddHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'content-type': fc.constantFrom(
        'application/json',
        'application/json; charset=utf-16',
        'text/plain',
        'multipart/form-data; boundary=x',
        '*/*',
        'application/x-www-form-urlencoded',
        ';;;',
        '',
      ),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml;q=0', ''),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
      'x-forwarded-for': printable,
      'x-request-id': printable,
      range: fc.constantFrom('bytes=0-1', 'bytes=-5', 'bytes=abc'),
      'if-none-match': printable,
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'br'),
      [`x-${'h'.repeat(20)}`]: fc.integer({ min: 1000, max: 2000 }).map((n) => 'v'.repeat(n)),
    },
    { requiredKeys: [] },
  )
  .map((h) => Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined)));

const rpcId = fc.oneof(
  fc.integer(),
  fc.constant(null),
  printable,
  fc.double(),
  fc.constant(2 ** 53 + 1),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constantFrom({}, { id: 1 }, { toString: 1 }),
);
const rpcObject = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.constant(2), fc.constant(null)),
    id: rpcId,
    method: fc.oneof(
      fc.constantFrom(
        'eth_blockNumber',
        'status',
        'block',
        'eth_getBalance',
        'rpc.discover',
        '__proto__',
        'constructor',
        'toString',
      ),
      printable,
      fc.integer(),
    ),
    params: fc.oneof(
      fc.array(fc.oneof(fc.integer(), printable, fc.boolean(), fc.constant(null)), { maxLength: 3 }),
      fc.dictionary(printable, fc.oneof(fc.integer(), printable), { maxKeys: 3 }),
      fc.constant(null),
      printable,
    ),
  },
  { requiredKeys: [] },
);

// Big strings are built once and shared: generating megabytes per request would dominate the run.
const DEEP_ARRAYS = [1_000, 10_000, 60_000].map((d) => `${'['.repeat(d)}${']'.repeat(d)}`);
const DEEP_OBJECTS = [5_000, 50_000].map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`);
const PADDED = [20_000, 200_000].map((n) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'status', params: [], pad: 'x'.repeat(n) }),
);
/** Over the reference's 1 MB body cap: it must stop reading and answer, not hang or buffer it all. */
const OVER_CAP = 'y'.repeat(1_500_000);

/** Bodies: broken JSON, JSON of the wrong shape, deep nesting, big batches, binary, over the cap. */
const body: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 30, arbitrary: fc.constant(undefined) },
  { weight: 25, arbitrary: rpcObject.map((o) => JSON.stringify(o)) },
  { weight: 6, arbitrary: fc.array(rpcObject, { minLength: 0, maxLength: 120 }).map((a) => JSON.stringify(a)) },
  {
    weight: 15,
    arbitrary: rpcObject.chain((o) => {
      const s = JSON.stringify(o);
      return fc.integer({ min: 0, max: Math.max(0, s.length - 1) }).map((i) => s.slice(0, i));
    }),
  },
  { weight: 8, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 8, arbitrary: anyText },
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]',
      '\u0000\u0001\u0002',
      '\ufeff{}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
      'null',
      '[]',
      '[{}]',
      '"str"',
      '1e999',
      '{"id":1e999}',
      '{"id":1,"id":2}',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...DEEP_ARRAYS, ...DEEP_OBJECTS) },
  { weight: 1, arbitrary: fc.constantFrom(...PADDED) },
  { weight: 1, arbitrary: fc.constant(OVER_CAP) },
);

export function fuzzRequest(w: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  // One arbitrary per server, built once (a `chain` per value would rebuild them 10,000 times).
  const perServer = FUZZ_SERVERS.map((server) =>
    fc
      .record({ method, path: pathFor(server, w), cred: credentials(server, w), odd: oddHeaders, body })
      .map(({ method, path, cred, odd, body }): FuzzRequest => {
        const withCred = cred.query
          ? `${path}${path.includes('?') ? (path.endsWith('?') ? '' : '&') : '?'}${cred.query}`
          : path;
        return {
          server,
          method,
          path: withCred.startsWith('/') ? withCred : `/${withCred}`,
          headers: { ...odd, ...cred.headers },
          body: method === 'HEAD' ? undefined : body,
        };
      })
      // Node refuses a header section over 16 KiB itself (431, before any handler): stay under it.
      .filter((r) => headerBytes(r) < MAX_HEADER_BYTES),
  );
  return fc.oneof(...perServer);
}

export const MAX_HEADER_BYTES = 15_000;

function headerBytes(r: FuzzRequest): number {
  let n = r.method.length + r.path.length + 16;
  for (const [k, v] of Object.entries(r.headers))
    for (const x of Array.isArray(v) ? v : [v]) n += k.length + Buffer.byteLength(x) + 4;
  return n;
}

/** One line describing a request for a failure message (long parts cut). */
export function describeRequest(r: FuzzRequest): string {
  const cut = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const hs = Object.entries(r.headers).map(([k, v]) => `${k}: ${cut(Array.isArray(v) ? v.join(' | ') : v, 60)}`);
  return `${r.server} ${r.method} ${cut(r.path)} [${hs.join('; ')}]${r.body === undefined ? '' : ` body ${cut(JSON.stringify(r.body), 80)}`}`;
}
