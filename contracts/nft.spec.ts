// NFT data API (NFT-01..13) and the shared resource rules (RES-01, RES-02): events, collection,
// asset, the full rarity-list walk with cross-resource agreement, unknown and malformed ids.
import { randomUUID } from 'node:crypto';
import { RULES } from '../src/rules/catalogue.js';
import { extraFields, SCHEMA, validate } from '../src/schemas/validate.js';
import type { ResolvedNft } from '../src/target-file/types.js';
import { withQueryParam } from '../src/auth/forms.js';
import type { Exchange } from '../src/record/recorder.js';
import type { ApiClient, CallResult } from './api.js';
import { CouldNotTest, ev, type Checks } from './checks.js';
import { suiteEnv } from './env.js';
import { Spec } from './fixtures.js';
import { bodyShape, mediaType } from './shape.js';
import { dataAccess, nftMissing, PATHS, type DataAccess } from './urls.js';
import { RarityWalk, type SampledItem } from './walk.js';

const spec = new Spec('nft');
const target = suiteEnv().target;
const access = dataAccess(target.api);
const nft = target.api?.nft;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const get = (v: unknown, ...path: string[]): unknown => path.reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), v);

const NO_DATA_CAUSE = 'an unknown id';
const MALFORMED_CAUSE = 'a malformed id';

function fetch(api: ApiClient, a: DataAccess, path: string, purpose: string, cause?: string): Promise<CallResult> {
  return api.call({ purpose, method: 'GET', url: a.base + path, auth: a.auth, cause });
}

/** A 2xx with the envelope the endpoint documents, or a fail naming what came instead. */
function envelope(check: Checks, rules: string[], id: string, res: CallResult, key: string): unknown {
  const record = get(res.json, key);
  if (res.ok && record !== undefined) return record;
  const what = !res.ok ? `answered ${res.status}` : `the body has no \`${key}\``;
  for (const rule of rules) check.fail(rule, id, `${id}: ${what}`, ev(res.exchange, { expected: `2xx with {${key}: ...}`, actual: res.ok ? bodyShape(res.body) : res.status }));
  return undefined;
}

/** Rarity entries whose model is not open_rarity: NFT-07's open part. */
function otherModels(rarity: unknown): string[] {
  return Array.isArray(rarity) ? rarity.map((r) => get(r, 'model')).filter((m): m is string => typeof m === 'string' && m !== 'open_rarity') : [];
}

function sameRarity(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) =>
    Array.isArray(v)
      ? v
          .map((r) => JSON.stringify([get(r, 'model'), get(r, 'score'), get(r, 'rank')]))
          .sort()
          .join('|')
      : 'none';
  return norm(a) === norm(b);
}

function noData(check: Checks, rule: string, id: string, what: string, res: CallResult, key: string, isData: (r: unknown) => boolean = (r) => r !== undefined): void {
  const data = res.ok && isData(get(res.json, key));
  check.verdict(
    !data,
    rule,
    id,
    `${what}: no data (${res.status})`,
    `${what}: answered ${res.status} with a record`,
    ev(res.exchange, { expected: 'no 2xx with a record', actual: res.status, observation: { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) } }),
  );
}

if (nft && typeof access !== 'string') {
  const a = access;
  const n: ResolvedNft = nft;

  if (n.eventIds.length) {
    spec.contract(
      'events',
      ['NFT-01', 'NFT-02', 'NFT-03', 'NFT-04', 'RES-01', 'RES-02'],
      async ({ api, check }) => {
        const types = new Set<string>();
        const withPayments = new Set<string>();
        const withoutPayments = new Set<string>();
        const exchanges: Exchange[] = [];
        for (const eventId of n.eventIds) {
          const id = `nft.event[${eventId}]`;
          await check.guard(['NFT-01', 'NFT-02', 'NFT-04', 'RES-01'], id, async () => {
            const res = await fetch(api, a, PATHS.event(n, eventId), id);
            exchanges.push(res.exchange);
            const event = envelope(check, ['NFT-01', 'NFT-02', 'RES-01'], id, res, 'data');
            if (event === undefined) return;
            check.schema(['NFT-01', 'NFT-04', 'RES-01'], id, SCHEMA.eventResponse, res.json, res.exchange, 'event');
            check.extras(id, SCHEMA.eventResponse, res.json, res.exchange, 'event');
            const got = get(event, 'id');
            check.verdict(got === eventId, 'NFT-02', id, 'event id echoed', `asked for event ${eventId}, got ${JSON.stringify(got)}`, ev(res.exchange, { expected: eventId, actual: got, path: 'data.id' }));
            const type = get(event, 'event_type');
            if (typeof type === 'string') {
              types.add(type);
              const payments = get(event, 'payments');
              (Array.isArray(payments) && payments.length > 0 ? withPayments : withoutPayments).add(type);
            }
          });
        }
        const sorted = (s: Set<string>) => [...s].sort();
        const others = sorted(types).filter((t) => t !== 'sale' && t !== 'transfer');
        // Nothing read, nothing observed: the cause the event reads met, not "event types seen: none".
        if (types.size === 0) {
          const why = check.results.findLast((c) => c.verdict === 'error')?.evidence?.cause;
          for (const rule of ['NFT-03', 'NFT-04']) check.error(rule, `nft.event.${rule.toLowerCase()}`, typeof why === 'string' ? why : 'no event carried an event_type');
          return;
        }
        check.observe('NFT-03', 'nft.event.types', others.length ? `event types beyond sale and transfer: ${others.join(', ')}` : `event types seen: ${sorted(types).join(', ') || 'none'}`, { eventTypes: sorted(types), beyondShown: others }, exchanges.slice(0, 2));
        check.observe(
          'NFT-04',
          'nft.event.payments-by-type',
          `non-empty payments on: ${sorted(withPayments).join(', ') || 'no event'}; empty on: ${sorted(withoutPayments).join(', ') || 'no event'}`,
          { typesWithPayments: sorted(withPayments), typesWithoutPayments: sorted(withoutPayments) },
          exchanges.slice(0, 2),
        );
      },
      { requests: n.eventIds.length + 1 },
    );
  }

  if (n.collectionId) {
    const collectionId = n.collectionId;
    spec.contract('collection', ['NFT-05', 'RES-01', 'RES-02'], async ({ api, check }) => {
      const id = `nft.collection[${collectionId}]`;
      await check.guard(['NFT-05', 'RES-01'], id, async () => {
        const res = await fetch(api, a, PATHS.collection(n, collectionId), id);
        const collection = envelope(check, ['NFT-05', 'RES-01'], id, res, 'collection');
        if (collection === undefined) return;
        check.schema(['NFT-05', 'RES-01'], id, SCHEMA.collectionResponse, res.json, res.exchange, 'collection');
        check.extras(id, SCHEMA.collectionResponse, res.json, res.exchange, 'collection');
        const got = get(collection, 'id');
        check.verdict(got === collectionId, 'NFT-05', `${id}.id`, 'collection id echoed', `asked for collection ${collectionId}, got ${JSON.stringify(got)}`, ev(res.exchange, { expected: collectionId, actual: got, path: 'collection.id' }));
      });
    });

    spec.contract(
      'rarity list walk',
      ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'NFT-11', 'RES-01', 'RES-02'],
      async ({ api, check }) => {
        await walkRarity(api, check, a, n, collectionId);
      },
      // The walk is bounded by maxPages; its own per-request timeouts do the rest.
      { requests: n.maxPages + 2 + 3 },
    );
  }

  if (n.collectionId || n.eventIds.length) {
    spec.contract('asset', ['NFT-06', 'NFT-07', 'RES-01', 'RES-02'], async ({ api, check, samples }) => {
      const id = 'nft.asset';
      await check.guard(['NFT-06', 'NFT-07', 'RES-01'], id, async () => {
        const ref = await samples.asset(api);
        const res = await fetch(api, a, PATHS.asset(n, ref.contract_address, ref.token_id), id);
        const asset = envelope(check, ['NFT-06', 'NFT-07', 'RES-01'], id, res, 'asset');
        if (asset === undefined) return;
        check.schema(['NFT-06', 'NFT-07', 'RES-01'], id, SCHEMA.assetResponse, res.json, res.exchange, 'asset');
        check.extras(id, SCHEMA.assetResponse, res.json, res.exchange, 'asset');
        const got = { contract_address: get(asset, 'contract_address'), token_id: get(asset, 'token_id') };
        check.verdict(
          got.contract_address === ref.contract_address && got.token_id === ref.token_id,
          'NFT-06',
          `${id}.echo`,
          'the asset answered is the one asked for',
          `asked for ${ref.contract_address}/${ref.token_id}, got ${String(got.contract_address)}/${String(got.token_id)}`,
          ev(res.exchange, { expected: ref, actual: got, path: 'asset.token_id' }),
        );
        const models = otherModels(get(asset, 'rarity'));
        check.observe('NFT-07', `${id}.models`, models.length ? `rarity models beyond open_rarity: ${models.join(', ')}` : 'rarity models: open_rarity only', { otherModels: [...new Set(models)].sort() }, res.exchange);
      });
    });

    spec.contract(
      'unknown ids',
      ['NFT-12'],
      async ({ api, check, samples }) => {
        const eventId = randomUUID();
        await check.guard('NFT-12', 'nft.unknown.event', async () => {
          noData(check, 'NFT-12', 'nft.unknown.event', 'an unknown event id', await fetch(api, a, PATHS.event(n, eventId), 'nft.unknown.event', NO_DATA_CAUSE), 'data');
        });
        await check.guard('NFT-12', 'nft.unknown.collection', async () => {
          noData(check, 'NFT-12', 'nft.unknown.collection', 'an unknown collection id', await fetch(api, a, PATHS.collection(n, randomUUID()), 'nft.unknown.collection', NO_DATA_CAUSE), 'collection');
        });
        await check.guard('NFT-12', 'nft.unknown.token', async () => {
          const ref = await samples.asset(api);
          // Far above any token id a collection mints, and different on every run.
          const tokenId = `9${String(Date.now())}${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
          noData(check, 'NFT-12', 'nft.unknown.token', 'an unknown token', await fetch(api, a, PATHS.asset(n, ref.contract_address, tokenId), 'nft.unknown.token', NO_DATA_CAUSE), 'asset');
        });
      },
      { requests: 5 },
    );
  }

  spec.contract('malformed ids', ['NFT-13'], async ({ api, check }) => {
    const malformed = 'not-a-uuid';
    for (const [what, path, key] of [
      ['event', PATHS.event(n, malformed), 'data'],
      ['collection', PATHS.collection(n, malformed), 'collection'],
    ] as const) {
      const id = `nft.malformed.${what}`;
      await check.guard('NFT-13', id, async () => {
        const res = await fetch(api, a, path, id, MALFORMED_CAUSE);
        check.observe('NFT-13', id, `a malformed ${what} id: ${res.status}${res.ok && get(res.json, key) !== undefined ? ' with a record' : ''}`, { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) }, res.exchange);
      });
    }
  });
}

/** Problems of one rule across the walk: counted, the first kept with where it was. */
class Tally {
  count = 0;
  first?: { message: string; page: number; path: string; expected: string; actual: string; exchange: Exchange };
  add(p: { message: string; path: string; expected: string; actual: string }, page: number, exchange: Exchange): void {
    this.count++;
    this.first ??= { ...p, page, exchange };
  }
}

async function walkRarity(api: ApiClient, check: Checks, a: DataAccess, n: ResolvedNft, collectionId: string): Promise<void> {
  const walk = new RarityWalk();
  const schemaRules = ['NFT-07', 'NFT-08', 'RES-01'] as const;
  const tallies = new Map<string, Tally>(schemaRules.map((r) => [r, new Tally()]));
  const extras: Record<string, Set<string>> = {};
  const base = a.base + PATHS.rarity(n, collectionId);
  const keep: Exchange[] = [];
  const id = `nft.rarity[${collectionId}]`;
  let token: string | undefined;
  let ended: 'last-page' | 'loop' | 'empty-pages' | 'max-pages' | 'refused' | undefined;
  let lastRes: CallResult | undefined;
  let firstIds: string[] = [];
  let advanced: boolean | undefined;
  const models = new Set<string>();

  const cut = await (async () => {
    try {
      while (!ended) {
        if (walk.pages >= n.maxPages) {
          ended = 'max-pages';
          break;
        }
        const url = token === undefined ? base : withQueryParam(base, n.pageTokenParam, token);
        const res = await fetch(api, a, url.slice(a.base.length), `${id}#page${walk.pages + 1}`);
        lastRes = res;
        if (keep.length < 2) keep.push(res.exchange);
        const data = get(res.json, 'data');
        if (!res.ok || !Array.isArray(data)) {
          ended = 'refused';
          break;
        }
        for (const p of validate(SCHEMA.rarityListResponse, res.json)) for (const r of p.rules) tallies.get(r)?.add(p, walk.pages + 1, res.exchange);
        // RES-02 lists fields by resource: the first pages show them; the rest would only repeat.
        if (check.wants('RES-02') && walk.pages < 3) {
          for (const x of extraFields(SCHEMA.rarityListResponse, res.json)) (extras[x.resource || 'RarityListResponse'] ??= new Set()).add(x.field);
        }
        for (const item of data) for (const m of otherModels(get(item, 'rarity'))) models.add(m);
        const ids = data.map((item) => String(get(item, 'id')));
        if (walk.pages === 0) firstIds = ids;
        else if (walk.pages === 1) advanced = !(ids.length === firstIds.length && ids.every((x, i) => x === firstIds[i]));
        walk.addPage(data);
        const next = get(res.json, 'meta', 'paging', 'next_page_token');
        if (typeof next !== 'string' || next === '') ended = 'last-page';
        else if (!walk.acceptToken(next)) ended = 'loop';
        else if (walk.emptyPagesInRow >= 2) ended = 'empty-pages';
        else token = next;
      }
      return undefined;
    } catch (e) {
      return e;
    }
  })();
  if (cut !== undefined && !(cut instanceof CouldNotTest)) throw cut;
  const cause = cut instanceof CouldNotTest ? cut.message : undefined;
  if (cut instanceof CouldNotTest) keep.push(...cut.exchanges.slice(0, 1));
  const evidenceOf = (x?: Exchange) => ev([...keep, ...(x && !keep.includes(x) ? [x] : [])]);

  if (walk.pages === 0) {
    const why = cause ?? `the first page answered ${lastRes?.status ?? 'nothing'} without a data array`;
    for (const r of ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'NFT-11', 'RES-01']) {
      if (cause) check.error(r, id, why, evidenceOf());
      else if (r === 'NFT-08' || r === 'RES-01') check.fail(r, id, `rarity list: ${why}`, ev(lastRes?.exchange, { expected: '2xx with {data: [...], meta: {paging}}', actual: lastRes?.status }));
      else check.error(r, id, `no page to check: ${why}`, evidenceOf());
    }
    return;
  }
  const summary = `${walk.pages} page(s), ${walk.items} item(s)`;

  // NFT-07, NFT-08, RES-01: every page and item against the schema.
  for (const rule of schemaRules) {
    const t = tallies.get(rule)!;
    if (t.first) check.fail(rule, `${id}.schema`, `rarity list page ${t.first.page}: ${t.first.message}${t.count > 1 ? ` (+${t.count - 1} more over the walk)` : ''}`, ev(t.first.exchange, { path: t.first.path, expected: t.first.expected, actual: t.first.actual }));
    else check.pass(rule, `${id}.schema`, `rarity list: ${summary}, every documented field present with its type`, evidenceOf());
  }
  check.observe('NFT-07', `${id}.models`, models.size ? `rarity models beyond open_rarity: ${[...models].sort().join(', ')}` : 'rarity models: open_rarity only', { otherModels: [...models].sort() });
  if (check.wants('RES-02')) {
    const byResource = Object.fromEntries(Object.entries(extras).map(([k, v]) => [k, [...v].sort()]));
    const names = Object.entries(byResource).flatMap(([r, fs]) => fs.map((f) => `${r}.${f}`));
    check.observe('RES-02', `${id}.extras`, names.length ? `rarity list: fields beyond the documented ones: ${names.join(', ')}` : 'rarity list: no fields beyond the documented ones', { extraFields: byResource }, keep[0]);
  }

  // NFT-09: ranks never decrease across pages.
  if (walk.firstOrderViolation) {
    const v = walk.firstOrderViolation;
    check.fail('NFT-09', `${id}.order`, `rank ${v.rank} comes after rank ${v.previous} (page ${v.page}, item ${v.index}); ${walk.orderViolations} step(s) down over ${summary}`, ev(keep, { expected: 'ranks never decrease', actual: { previous: v.previous, rank: v.rank }, path: `data[${v.index}].rarity[].rank` }));
  } else if (walk.items - walk.unranked < 2) {
    check.error('NFT-09', `${id}.order`, `fewer than two ranked items over ${summary}`, evidenceOf());
  } else {
    check.pass('NFT-09', `${id}.order`, `ranks never decrease over ${summary}${cause ? ` (walk cut short: ${cause})` : ''}`, evidenceOf());
  }

  // NFT-10: the walk ends and meets each asset exactly once.
  const observation = { pageTokenParam: n.pageTokenParam, advanced: advanced ?? 'single page' };
  const missing = walk.missingRanks();
  const problems: string[] = [];
  if (ended === 'loop') problems.push(`the walk does not end: page ${walk.pages} hands back a page token already followed`);
  if (ended === 'empty-pages') problems.push(`the walk does not end: ${walk.emptyPagesInRow} empty pages in a row still carry a page token`);
  if (ended === 'refused') problems.push(`page ${walk.pages + 1} answered ${lastRes?.status ?? 'nothing'} (following ${n.pageTokenParam})`);
  if (walk.duplicates) problems.push(`${walk.duplicates} item(s) met twice (first: ${walk.firstDuplicate!.id} on page ${walk.firstDuplicate!.page})`);
  if (advanced === false) problems.push(`page 2 repeats page 1: is api.nft.pageTokenParam ("${n.pageTokenParam}") the parameter the service reads?`);
  if (missing && missing.count) problems.push(`${missing.count} rank(s) missing with no tie to explain them (first: rank ${missing.first}): assets the walk never met`);
  const nft10 = `${id}.walk`;
  if (problems.length) check.fail('NFT-10', nft10, `${problems.join('; ')} (${summary})`, ev([...keep, ...(lastRes && !keep.includes(lastRes.exchange) ? [lastRes.exchange] : [])], { observation }));
  else if (cause) check.error('NFT-10', nft10, `walk cut short after ${summary}: ${cause}`, ev(keep, { observation }));
  else if (ended === 'max-pages') check.error('NFT-10', nft10, `walk stopped at maxPages (${n.maxPages}) while the service still gave a page token; raise api.nft.maxPages`, ev(keep, { observation }));
  else check.pass('NFT-10', nft10, `walk ended after ${summary}, ${walk.distinctIds} distinct assets, each once, ranks without gaps`, ev(keep, { observation }));

  // NFT-11: sampled items agree with the asset endpoint and the collection's contracts.
  if (!check.wants('NFT-11')) return;
  await crossCheck(api, check, a, n, collectionId, walk.sample);
}

async function crossCheck(api: ApiClient, check: Checks, a: DataAccess, n: ResolvedNft, collectionId: string, sample: readonly SampledItem[]): Promise<void> {
  const cid = `nft.agree[${collectionId}]`;
  if (sample.length === 0) return check.error('NFT-11', cid, 'the walk met no item with contract_address and token_id to compare');
  let contracts: string[] | undefined;
  await check.guard('NFT-11', `${cid}.collection`, async () => {
    const res = await fetch(api, a, PATHS.collection(n, collectionId), `${cid}.collection`);
    const list = get(res.json, 'collection', 'contracts');
    if (!res.ok || !Array.isArray(list)) return check.error('NFT-11', `${cid}.collection`, `the collection answered ${res.status} without contracts to compare with`, ev(res.exchange));
    contracts = list.map((c) => String(get(c, 'address')).toLowerCase());
  });
  for (const item of sample) {
    const id = `${cid}[${item.contract_address}/${item.token_id}]`;
    await check.guard('NFT-11', id, async () => {
      const res = await fetch(api, a, PATHS.asset(n, item.contract_address, item.token_id), id);
      const asset = get(res.json, 'asset');
      if (!res.ok || !isObject(asset)) return check.fail('NFT-11', id, `the listed asset ${item.contract_address}/${item.token_id} is not served by the asset endpoint (${res.status})`, ev(res.exchange, { expected: '2xx with {asset}', actual: res.status }));
      const problems: string[] = [];
      if (!sameRarity(item.rarity, asset.rarity)) problems.push(`rarity differs: list ${JSON.stringify(item.rarity)}, asset ${JSON.stringify(asset.rarity)}`);
      if (contracts && !contracts.includes(item.contract_address.toLowerCase())) problems.push(`contract ${item.contract_address} is not among the collection's contracts`);
      check.verdict(!problems.length, 'NFT-11', id, 'list item, asset and collection agree', problems.join('; '), ev(res.exchange, { expected: { rarity: item.rarity }, actual: { rarity: asset.rarity }, path: 'asset.rarity' }));
    });
  }
}

spec.coverRest(
  RULES.filter((r) => r.section === 'NFT' || r.section === 'RES').map((r) => r.id),
  (rule, t) => {
    const missing = nftMissing(t);
    if (missing) return missing;
    if (['NFT-01', 'NFT-02', 'NFT-03', 'NFT-04'].includes(rule)) return 'target has no api.nft.eventIds';
    return 'target has neither api.nft.collectionId nor api.nft.eventIds';
  },
);
