// One small probe per breakable rule of the API families: it returns a description of the
// violation it sees, or undefined when the reference keeps the rule. The fault tests run every
// probe against every fault, so each fault is shown to break its own rule and no other.
import { applyForm, type FormId } from '../../src/auth/forms.js';
import { NEAR_MISS_EXPECT, nearMisses } from '../../src/auth/near-miss.js';
import { datasetOf } from '../../reference/nft/dataset.js';
import { tokenIdOf } from '../../reference/nft/views.js';
import { call, rpcBody, type Answer, type CallInit, type Fixture } from './api-http.js';

export type Probe = (f: Fixture) => Promise<string | undefined>;

type Kind = 'string' | 'digits' | 'uuid' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KIND_OK: Record<Kind, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  digits: (v) => typeof v === 'string' && /^\d+$/.test(v),
  uuid: (v) => typeof v === 'string' && UUID.test(v),
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

/** Field/type problems of one record against a spec, as `where.field: want kind`. */
export function fieldErrors(rec: unknown, spec: Record<string, Kind>, where: string): string[] {
  if (!KIND_OK.object(rec)) return [`${where}: not an object`];
  const r = rec as Record<string, unknown>;
  return Object.entries(spec).flatMap(([k, kind]) =>
    KIND_OK[kind](r[k]) ? [] : [`${where}.${k}: want ${kind}, got ${JSON.stringify(r[k])}`],
  );
}

const first = (errs: string[]): string | undefined => errs[0];
/** A Unix time in seconds the NFT rules take as plausible: 2009-01-03 up to a day from now (type is RES-01's). */
const secondsProblem = (where: string, v: unknown): string[] => {
  const n = Number(v);
  return typeof v === 'string' &&
    /^\d+$/.test(v) &&
    !(n >= Date.UTC(2009, 0, 3) / 1000 && n <= Date.now() / 1000 + 86400)
    ? [`${where}: ${v} is no Unix time in seconds`]
    : [];
};
/** A JSON-RPC error's code as a number (a numeric string counts: its type is RPC-12's alone). */
const codeOf = (j: any): number | undefined =>
  j?.error?.code === undefined || j.error.code === null ? undefined : Number(j.error.code);
const is2xx = (a: Answer) => a.status >= 200 && a.status < 300;

// ---- documented record shapes (RES-01 reads them all; NFT-xx probes read their own part)

const EVENT: Record<string, Kind> = {
  id: 'uuid',
  contract_address: 'string',
  token_id: 'digits',
  event_type: 'string',
  timestamp: 'digits',
  from: 'string',
  to: 'string',
  quantity: 'digits',
  transaction: 'object',
  payments: 'array',
};
const TRANSACTION: Record<string, Kind> = { block_hash: 'string', block_number: 'integer', transaction_hash: 'string' };
const PAYMENT: Record<string, Kind> = { from: 'string', to: 'string', price: 'number', currency: 'string' };
const COLLECTION: Record<string, Kind> = {
  id: 'uuid',
  name: 'string',
  description: 'string',
  logo: 'string',
  banner: 'string',
  verified: 'boolean',
  contracts: 'array',
  meta: 'object',
  sub_collection: 'array',
};
const CONTRACT: Record<string, Kind> = {
  address: 'string',
  name: 'string',
  symbol: 'string',
  description: 'string',
  image_url: 'string',
  type: 'string',
};
const META: Record<string, Kind> = { discord_url: 'string', external_url: 'string', twitter_username: 'string' };
const ASSET: Record<string, Kind> = {
  token_id: 'string',
  token_type: 'string',
  media: 'object',
  name: 'string',
  mint_date: 'digits',
  token_uri: 'string',
  description: 'string',
  contract_address: 'string',
  wallets: 'array',
  attributes: 'array',
  burned: 'boolean',
  rarity: 'array',
};
const MEDIA: Record<string, Kind> = { image_url: 'string', source: 'string' };
const ATTRIBUTE: Record<string, Kind> = { trait_type: 'string', value: 'string' };
const ITEM: Record<string, Kind> = {
  id: 'uuid',
  token_id: 'string',
  image_url: 'string',
  name: 'string',
  contract_address: 'string',
  rarity: 'array',
};
const RARITY: Record<string, Kind> = { model: 'string', score: 'number', rank: 'digits' };

// ---- requests

const nftPath = (f: Fixture, rest: string) => `/nft/v1/${f.s.nft.protocol}/${f.s.nft.network}${rest}`;
const rarityPath = (f: Fixture, collectionId: string, query = 'sort_by=rarity_rank') =>
  nftPath(f, `/assets/rarity/${collectionId}?${query}`);

/** One request per family (and per NFT endpoint), without credentials. */
export async function familyRequests(f: Fixture): Promise<{ name: string; path: string; init: CallInit }[]> {
  const first = rankOne(f);
  const u = f.s.universal[0]!;
  return [
    { name: 'universal', path: `/universal/v1/${u.protocol}/${u.network}/sync/block_number`, init: {} },
    {
      name: 'native',
      path: `/${f.s.native.protocol}/mainnet/native`,
      init: { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: rpcBody('eth_blockNumber') },
    },
    { name: 'event', path: nftPath(f, `/event/${f.s.nft.eventIds[0]}`), init: {} },
    { name: 'collection', path: nftPath(f, `/collection/${f.s.nft.collectionId}`), init: {} },
    {
      name: 'asset',
      path: nftPath(f, `/asset?contract_address=${first.contract_address}&token_id=${first.token_id}`),
      init: {},
    },
    { name: 'rarity', path: rarityPath(f, f.s.nft.collectionId), init: {} },
  ];
}

/** Sends every family request with a key in a form; returns `family: status` for those not answering as `want`. */
async function formOnFamilies(
  f: Fixture,
  root: 'base' | 'legacy',
  form: FormId | undefined,
  key: string,
  want: '2xx' | 'refused',
  only?: (name: string) => boolean,
): Promise<string | undefined> {
  const reqs = (await familyRequests(f)).filter((r) => !only || only(r.name));
  const rootUrl = root === 'base' ? f.s.baseUrl : f.s.legacyBaseUrl;
  const bad = await Promise.all(
    reqs.map(async (r) => {
      const a = form
        ? applyForm(form, key, rootUrl + r.path, r.init.headers ?? {})
        : { url: rootUrl + r.path, headers: r.init.headers ?? {} };
      const ans = await call(a.url, { ...r.init, headers: a.headers });
      return is2xx(ans) === (want === '2xx')
        ? undefined
        : `${root} ${form ?? 'no credentials'} on ${r.name}: ${ans.status}`;
    }),
  );
  return bad.find(Boolean);
}

interface Walk {
  items: any[];
  pages: number;
  ended: boolean;
  problem?: string;
}

export async function walkRarity(f: Fixture, collectionId: string, limit: number, maxPages: number): Promise<Walk> {
  const items: any[] = [];
  let token = '';
  for (let pages = 1; pages <= maxPages; pages++) {
    const q = `sort_by=rarity_rank&limit=${limit}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
    const a = await f.base(rarityPath(f, collectionId, q));
    if (a.status !== 200 || !Array.isArray(a.json?.data))
      return { items, pages, ended: false, problem: `page ${pages}: ${a.status}` };
    items.push(...a.json.data);
    token = a.json.meta?.paging?.next_page_token ?? '';
    if (!token) return { items, pages, ended: true };
  }
  return { items, pages: maxPages, ended: false };
}

/** The rank-1 asset of the main collection, read from the dataset (setup must not depend on the API under test). */
function rankOne(f: Fixture): { contract_address: string; token_id: string } {
  const c = datasetOf(f.opts.seed, f.opts.bigCollectionSize).main;
  return { contract_address: c.contract.address, token_id: tokenIdOf(c, c.rarity().byRank[0]!) };
}

const firstItems = async (f: Fixture, n: number): Promise<any[]> =>
  (await f.nft(`/assets/rarity/${f.s.nft.collectionId}?sort_by=rarity_rank&limit=${n}`)).json.data;
const assetOf = (f: Fixture, item: { contract_address: string; token_id: string }) =>
  f.nft(`/asset?contract_address=${item.contract_address}&token_id=${item.token_id}`);
const events = (f: Fixture) => Promise.all(f.s.nft.eventIds.map((id) => f.nft(`/event/${id}`)));
const collection = (f: Fixture) => f.nft(`/collection/${f.s.nft.collectionId}`);

const HEX_QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
const UNI_TOLERANCE = 2;
const MAIN_PAGE = 50;

async function universalHead(
  f: Fixture,
  network: string,
  root: 'base' | 'legacy' = 'base',
): Promise<number | undefined> {
  const a = await f[root](`/universal/v1/${f.s.native.protocol}/${network}/sync/block_number`);
  const n = a.json?.block_number;
  return a.status === 200 && Number.isInteger(n) && n >= 0 ? n : undefined;
}

async function nativeHead(f: Fixture, network: string): Promise<number | undefined> {
  const r = (await f.rpc(network, rpcBody('eth_blockNumber'))).json?.result;
  return typeof r === 'string' && /^0x[0-9a-f]+$/i.test(r) ? parseInt(r, 16) : undefined;
}

/** Every form each base reads a key from (apiKey on base: the NFT tutorials' form). */
const EVERY_FORM = [
  ['base', 'bearer'],
  ['base', 'x-api-key'],
  ['base', 'apikey-query'],
  ['legacy', 'apikey-query'],
  ['legacy', 'bearer'],
] as const;

export const RULE_PROBES: Record<string, Probe> = {
  'AUTH-01': (f) => formOnFamilies(f, 'base', 'bearer', f.opts.credentials.apiKey, '2xx'),
  'AUTH-02': (f) => formOnFamilies(f, 'base', 'x-api-key', f.opts.credentials.apiKey, '2xx'),
  // Judged where the canonical X-API-Key works; a refusal of every spelling is AUTH-02's.
  'AUTH-03': async (f) => {
    const key = f.opts.credentials.apiKey;
    const families = (await familyRequests(f)).map((r) => r.name);
    for (const name of families) {
      if (await formOnFamilies(f, 'base', 'x-api-key', key, '2xx', (n) => n === name)) continue;
      for (const form of ['x-api-key:lower', 'x-api-key:upper', 'x-api-key:mixed'] as const) {
        const bad = await formOnFamilies(f, 'base', form, key, '2xx', (n) => n === name);
        if (bad) return bad;
      }
    }
    return undefined;
  },
  // AUTH-12 owns the block-number route's query key and AUTH-06 the `&` join, so AUTH-04 judges
  // the routes whose URL has no query string of its own.
  'AUTH-04': (f) =>
    formOnFamilies(
      f,
      'legacy',
      'apikey-query',
      f.opts.credentials.legacyApiKey,
      '2xx',
      (n) => !['universal', 'asset', 'rarity'].includes(n),
    ),
  'AUTH-05': (f) => formOnFamilies(f, 'legacy', 'bearer', f.opts.credentials.legacyApiKey, '2xx'),
  // `&apiKey=` must give what `?apiKey=` first gives (and Bearer, when it works): same status,
  // same body. Where the query form is refused outright, that is AUTH-04's finding.
  'AUTH-06': async (f) => {
    const item = rankOne(f);
    const key = f.opts.credentials.legacyApiKey;
    const paths = [
      nftPath(f, `/asset?contract_address=${item.contract_address}&token_id=${item.token_id}`),
      rarityPath(f, f.s.nft.collectionId, 'sort_by=rarity_rank&limit=3'),
    ];
    for (const path of paths) {
      const keyFirst = await call(f.s.legacyBaseUrl + path.replace('?', `?apiKey=${key}&`));
      if (!is2xx(keyFirst)) continue;
      const joined = await call(f.s.legacyBaseUrl + path + `&apiKey=${key}`);
      if (joined.status !== keyFirst.status || joined.text !== keyFirst.text)
        return `${path.split('?')[0]} with &apiKey: ${joined.status}`;
      const bearer = await call(f.s.legacyBaseUrl + path, { headers: { Authorization: `Bearer ${key}` } });
      if (is2xx(bearer) && bearer.text !== joined.text)
        return `${path.split('?')[0]}: &apiKey answer differs from the Bearer answer`;
    }
    return undefined;
  },
  // No credentials, and an empty value in each form of each base (it counts as none).
  'AUTH-07': async (f) => {
    for (const [root, form] of [['base', undefined], ['legacy', undefined], ...EVERY_FORM] as const) {
      const bad = await formOnFamilies(f, root, form, '', 'refused');
      if (bad) return bad;
    }
    return undefined;
  },
  // An unknown key, and near misses of the real one, in each form of each base (apiKey on base included).
  'AUTH-08': async (f) => {
    const c = f.opts.credentials;
    for (const [root, form] of EVERY_FORM) {
      const real = root === 'base' ? c.apiKey : c.legacyApiKey;
      const wrong = [
        'unknown-key-0123456789abcdef',
        ...nearMisses(real, 1)
          .filter((m) => NEAR_MISS_EXPECT[m.kind] === 'refuse')
          .map((m) => m.value),
      ];
      for (const key of wrong) {
        const bad = await formOnFamilies(f, root, form, key, 'refused');
        if (bad) return bad;
      }
    }
    return undefined;
  },
  'AUTH-12': (f) =>
    formOnFamilies(f, 'legacy', 'apikey-query', f.opts.credentials.legacyApiKey, '2xx', (n) => n === 'universal'),
  'UNI-01': async (f) => {
    const a = await f.base(
      `/universal/v1/${f.s.universal[0]!.protocol}/${f.s.universal[0]!.network}/sync/block_number`,
    );
    const n = a.json?.block_number;
    return a.status === 200 && Number.isInteger(n) && n >= 0 ? undefined : `block number ${a.status} ${a.text}`;
  },
  // Judged only on values UNI-01 accepts, as the suite must.
  'UNI-02': async (f) => {
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      const n = await universalHead(f, 'mainnet');
      if (n !== undefined) seen.push(n);
    }
    for (let i = 1; i < seen.length; i++)
      if (seen[i]! < seen[i - 1]! - UNI_TOLERANCE) return `went back from ${seen[i - 1]} to ${seen[i]}`;
    const [u, n] = [await universalHead(f, 'mainnet'), await nativeHead(f, 'mainnet')];
    if (u !== undefined && n !== undefined && Math.abs(u - n) > UNI_TOLERANCE) return `universal ${u} vs native ${n}`;
    // The legacy base serves the endpoint too: its block number agrees with the same native head.
    const l = await universalHead(f, 'mainnet', 'legacy');
    return l !== undefined && n !== undefined && Math.abs(l - n) > UNI_TOLERANCE
      ? `legacy universal ${l} vs native ${n}`
      : undefined;
  },
  'RPC-01': async (f) => {
    const a = await f.rpc('mainnet', rpcBody('eth_blockNumber', 1));
    return a.status === 200 && a.json?.jsonrpc === '2.0' && a.json.id === 1 && 'result' in a.json
      ? undefined
      : `${a.status} ${a.text}`;
  },
  'RPC-02': async (f) => {
    const r = (await f.rpc('mainnet', rpcBody('eth_blockNumber'))).json?.result;
    return typeof r === 'string' && HEX_QUANTITY.test(r) ? undefined : `result ${JSON.stringify(r)}`;
  },
  // Every network answers with a result; the envelope's details are RPC-01's.
  'RPC-03': async (f) => {
    for (const net of f.s.native.networks) {
      const a = await f.rpc(net, rpcBody('eth_blockNumber', 3));
      if (a.status !== 200 || a.json?.id !== 3 || !('result' in a.json)) return `${net}: ${a.status}`;
    }
    return undefined;
  },
  'RPC-04': async (f) => {
    for (const id of [0, 1, Number.MAX_SAFE_INTEGER, 'req-7f']) {
      const got = (await f.rpc('mainnet', rpcBody('eth_chainId', id))).json?.id;
      if (got !== id) return `id ${JSON.stringify(id)} echoed as ${JSON.stringify(got)}`;
    }
    return undefined;
  },
  'RPC-05': async (f) => {
    const j = (await f.rpc('mainnet', rpcBody('no_suchMethod', 5))).json;
    return codeOf(j) === -32601 && !('result' in j) ? undefined : JSON.stringify(j);
  },
  'RPC-06': async (f) => {
    const j = (await f.rpc('mainnet', '{"jsonrpc": "2.0", "id": 6, "method": ')).json;
    return codeOf(j) === -32700 && 'id' in j && j.id === null ? undefined : JSON.stringify(j);
  },
  'RPC-07': async (f) => {
    const j = (await f.rpc('mainnet', JSON.stringify({ jsonrpc: '2.0', id: 7, params: [] }))).json;
    return codeOf(j) === -32600 ? undefined : JSON.stringify(j);
  },
  // A notification alone, beside a request in a batch, and a batch of only notifications.
  'RPC-09': async (f) => {
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] });
    const a = await f.rpc('mainnet', note);
    if (a.text !== '') return `notification answered ${a.status} ${a.text}`;
    const mixed = (await f.rpc('mainnet', `[${rpcBody('eth_blockNumber', 9)},${note}]`)).json;
    if (!Array.isArray(mixed) || mixed.length !== 1 || mixed[0]?.id !== 9)
      return `[request, notification] answered ${JSON.stringify(mixed)}`;
    const only = await f.rpc('mainnet', `[${note},${note}]`);
    return only.text === '' ? undefined : `batch of notifications answered ${only.status} ${only.text}`;
  },
  'RPC-10': async (f) => {
    const j = (await f.rpc('mainnet', '[]')).json;
    return !Array.isArray(j) && codeOf(j) === -32600 && 'id' in j && j.id === null ? undefined : JSON.stringify(j);
  },
  'RPC-11': async (f) => {
    const j = (await f.rpc('mainnet', '[1,2]')).json;
    const ok = Array.isArray(j) && j.length === 2 && j.every((r) => codeOf(r) === -32600 && 'id' in r && r.id === null);
    return ok ? undefined : JSON.stringify(j);
  },
  // Every Response object of a few answers, successes, errors and batch elements alike.
  'RPC-12': async (f) => {
    for (const body of [
      rpcBody('eth_blockNumber', 12),
      rpcBody('no_suchMethod', 12),
      '{',
      '[]',
      '[1,2]',
      `[${rpcBody('eth_chainId', 12)}]`,
    ]) {
      const j = (await f.rpc('mainnet', body)).json;
      for (const r of Array.isArray(j) ? j : [j]) {
        const oneOf = 'result' in r !== 'error' in r;
        const errorOk = !('error' in r) || (Number.isInteger(r.error?.code) && typeof r.error?.message === 'string');
        if (r?.jsonrpc !== '2.0' || !('id' in r) || !oneOf || !errorOk) return `${body} -> ${JSON.stringify(r)}`;
      }
    }
    return undefined;
  },
  'NFT-01': async (f) => {
    for (const a of await events(f)) {
      if (a.status !== 200) return `event ${a.status}`;
      const e = a.json.data;
      const bad = first([
        ...fieldErrors(e, EVENT, 'event'),
        ...fieldErrors(e.transaction, { block_number: 'integer' }, 'transaction'),
        ...secondsProblem('event.timestamp', e.timestamp),
      ]);
      if (bad) return bad;
    }
    return undefined;
  },
  'NFT-02': async (f) => {
    const got = await events(f);
    const i = got.findIndex((a, k) => a.json?.data?.id !== f.s.nft.eventIds[k]);
    return i < 0 ? undefined : `asked ${f.s.nft.eventIds[i]}, got ${got[i]!.json?.data?.id}`;
  },
  'NFT-04': async (f) =>
    first(
      (await events(f)).flatMap((a) =>
        (a.json.data.payments as unknown[]).flatMap((p) => fieldErrors(p, PAYMENT, 'payment')),
      ),
    ),
  'NFT-05': async (f) => {
    const c = (await collection(f)).json?.collection;
    const errs = [
      ...fieldErrors(
        c,
        { verified: 'boolean', contracts: 'array', meta: 'object', sub_collection: 'array' },
        'collection',
      ),
      ...(Array.isArray(c?.contracts)
        ? c.contracts.flatMap((k: unknown) => fieldErrors(k, { type: 'string' }, 'contract'))
        : []),
      ...fieldErrors(c?.meta, META, 'meta'),
    ];
    if (c?.id !== f.s.nft.collectionId) errs.push(`id ${c?.id}`);
    return first(errs);
  },
  'NFT-06': async (f) => {
    for (const item of await firstItems(f, 3)) {
      const a = (await assetOf(f, item)).json?.asset;
      const bad = first([...fieldErrors(a, ASSET, 'asset'), ...secondsProblem('asset.mint_date', a?.mint_date)]);
      if (bad) return bad;
      if (a.token_id !== item.token_id || a.contract_address !== item.contract_address)
        return `asked ${item.token_id}, got ${a.token_id}`;
    }
    return undefined;
  },
  'NFT-07': async (f) => {
    const items = await firstItems(f, 3);
    const assets = await Promise.all(items.map(async (i) => (await assetOf(f, i)).json?.asset));
    return first(
      [...items, ...assets].flatMap((r) => (r?.rarity ?? []).flatMap((e: unknown) => fieldErrors(e, RARITY, 'rarity'))),
    );
  },
  'NFT-08': async (f) => {
    const a = await f.nft(`/assets/rarity/${f.s.nft.collectionId}?sort_by=rarity_rank`);
    const t = a.json?.meta?.paging?.next_page_token;
    if (a.status !== 200 || !Array.isArray(a.json?.data) || !(t === undefined || typeof t === 'string'))
      return `envelope ${a.status}`;
    return first(a.json.data.flatMap((i: unknown) => fieldErrors(i, ITEM, 'item')));
  },
  // Judged on first sightings: a repeated item is NFT-10's finding, not a change of order.
  'NFT-09': async (f) => {
    const w = await walkRarity(f, f.s.nft.collectionId, MAIN_PAGE, 20);
    const seen = new Set<string>();
    const ranks = w.items.filter((i) => !seen.has(i.id) && seen.add(i.id)).map((i) => Number(i.rarity?.[0]?.rank));
    const k = ranks.findIndex((r, i) => i > 0 && r < ranks[i - 1]!);
    return k < 0 ? undefined : `rank ${ranks[k]} after ${ranks[k - 1]}`;
  },
  // Ranks in the reference are 1..N without ties, so a skipped asset shows as a gap.
  'NFT-10': async (f) => {
    const w = await walkRarity(f, f.s.nft.collectionId, MAIN_PAGE, 20);
    if (!w.ended) return `walk did not end after ${w.pages} pages`;
    const ids = new Set(w.items.map((i) => i.id));
    if (ids.size !== w.items.length) return `${w.items.length - ids.size} duplicates`;
    const ranks = w.items.map((i) => Number(i.rarity[0].rank)).sort((a, b) => a - b);
    const gap = ranks.findIndex((r, i) => r !== i + 1);
    return gap < 0 ? undefined : `rank ${gap + 1} missing`;
  },
  // Every item of the main collection: a fault may touch only some (a lookup keyed by token id alone).
  'NFT-11': async (f) => {
    const c = (await collection(f)).json.collection;
    const items = (await walkRarity(f, f.s.nft.collectionId, MAIN_PAGE, 20)).items;
    const assets = await Promise.all(items.map(async (item) => (await assetOf(f, item)).json?.asset));
    for (const [i, item] of items.entries()) {
      const a = assets[i];
      if (JSON.stringify(a?.rarity) !== JSON.stringify(item.rarity))
        return `rarity ${JSON.stringify(item.rarity)} vs ${JSON.stringify(a?.rarity)}`;
      if (!c.contracts.some((k: { address: string }) => k.address === item.contract_address))
        return `contract ${item.contract_address} not in collection`;
    }
    return undefined;
  },
  'NFT-12': async (f) => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const item = rankOne(f);
    const answers = await Promise.all([
      f.nft(`/event/${unknown}`),
      f.nft(`/collection/${unknown}`),
      f.nft(`/asset?contract_address=${item.contract_address}&token_id=999999`),
    ]);
    const served = answers.find(is2xx);
    return served ? `unknown id served: ${served.text.slice(0, 80)}` : undefined;
  },
  'RES-01': async (f) => {
    const errs: string[] = [];
    for (const a of await events(f)) {
      const e = a.json?.data;
      errs.push(...fieldErrors(e, EVENT, 'event'), ...fieldErrors(e?.transaction, TRANSACTION, 'transaction'));
      for (const p of e?.payments ?? []) errs.push(...fieldErrors(p, PAYMENT, 'payment'));
    }
    const c = (await collection(f)).json?.collection;
    errs.push(...fieldErrors(c, COLLECTION, 'collection'), ...fieldErrors(c?.meta, META, 'meta'));
    for (const k of c?.contracts ?? []) errs.push(...fieldErrors(k, CONTRACT, 'contract'));
    for (const item of await firstItems(f, 3)) {
      errs.push(...fieldErrors(item, ITEM, 'item'));
      const a = (await assetOf(f, item)).json?.asset;
      errs.push(...fieldErrors(a, ASSET, 'asset'), ...fieldErrors(a?.media, MEDIA, 'media'));
      for (const at of a?.attributes ?? []) errs.push(...fieldErrors(at, ATTRIBUTE, 'attribute'));
      for (const r of [...(a?.rarity ?? []), ...(item.rarity ?? [])]) errs.push(...fieldErrors(r, RARITY, 'rarity'));
    }
    return first(errs);
  },
};
