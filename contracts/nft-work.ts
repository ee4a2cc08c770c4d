// The NFT data API's works (NFT-01..13, and the shared resource rules RES-01, RES-02) the NFT spec's
// rule tests judge: events, collection, asset, the full rarity-list walk with cross-resource
// agreement, unknown and malformed ids.
import { randomUUID } from 'node:crypto';
import { SCHEMA } from '../src/schemas/validate.js';
import type { ResolvedNft } from '../src/target-file/types.js';
import { withQueryParam } from '../src/auth/forms.js';
import type { Exchange } from '../src/record/recorder.js';
import type { ApiClient, CallResult } from './api.js';
import { CouldNotTest, ev, type Checks } from './checks.js';
import { get, isObject } from './json.js';
import { bodyShape, mediaType } from './shape.js';
import { dataAccess, nftMissing, PATHS, type DataAccess } from './urls.js';
import { judgeRarityWalk, otherModels, RarityPages } from './rarity-walk.js';
import { judgeUnixTimes } from './unix-time.js';
import { agreementProblems, crossCheckPlan, crossCheckSlot, describeItem, type CrossCheckItem } from './agreement.js';
import { CROSS_CHECK_CONCURRENCY, settleAll, valueOf } from './in-flight.js';

import { hostOf, WorkList, type FamilyWork, type WorkEnv } from './work.js';

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
  for (const rule of rules)
    check.fail(
      rule,
      id,
      `${id}: ${what}`,
      ev(res.exchange, { expected: `2xx with {${key}: ...}`, actual: res.ok ? bodyShape(res.body) : res.status }),
    );
  return undefined;
}

function noData(
  check: Checks,
  rule: string,
  id: string,
  what: string,
  res: CallResult,
  key: string,
  isData: (r: unknown) => boolean = (r) => r !== undefined,
): void {
  const data = res.ok && isData(get(res.json, key));
  check.verdict(
    !data,
    rule,
    id,
    `${what}: no data (${res.status})`,
    `${what}: answered ${res.status} with a record`,
    ev(res.exchange, {
      expected: 'no 2xx with a record',
      actual: res.status,
      observation: {
        status: res.status,
        contentType: mediaType(res.headers) ?? 'none',
        bodyShape: bodyShape(res.body),
      },
    }),
  );
}

/**
 * The NFT works: each one's requests go one after another (a walk's pages); the works go at once
 * (contracts/shared-work.ts), or from the contract stage (contracts/stage-work.ts).
 */
export function nftWorks(env: WorkEnv): FamilyWork[] {
  const access = dataAccess(env.target.api);
  const nft = env.target.api?.nft;
  const { startedAt, seed } = env;
  const works = new WorkList(typeof access === 'string' ? [] : [hostOf(access.base)]);
  if (nft && typeof access !== 'string') {
    const a = access;
    const n: ResolvedNft = nft;

    if (n.eventIds.length) {
      works.contract(
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
              check.apply(
                judgeUnixTimes('NFT-01', id, SCHEMA.eventResponse, res.json, startedAt, res.exchange, 'event'),
              );
              check.extras(id, SCHEMA.eventResponse, res.json, res.exchange, 'event');
              const got = get(event, 'id');
              check.verdict(
                got === eventId,
                'NFT-02',
                id,
                'event id echoed',
                `asked for event ${eventId}, got ${JSON.stringify(got)}`,
                ev(res.exchange, { expected: eventId, actual: got, path: 'data.id' }),
              );
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
            for (const rule of ['NFT-03', 'NFT-04'])
              check.error(
                rule,
                `nft.event.${rule.toLowerCase()}`,
                typeof why === 'string' ? why : 'no event carried an event_type',
              );
            return;
          }
          check.observe(
            'NFT-03',
            'nft.event.types',
            others.length
              ? `event types beyond sale and transfer: ${others.join(', ')}`
              : `event types seen: ${sorted(types).join(', ') || 'none'}`,
            { eventTypes: sorted(types), beyondShown: others },
            exchanges.slice(0, 2),
          );
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
      works.contract('collection', ['NFT-05', 'RES-01', 'RES-02'], async ({ api, check }) => {
        const id = `nft.collection[${collectionId}]`;
        await check.guard(['NFT-05', 'RES-01'], id, async () => {
          const res = await fetch(api, a, PATHS.collection(n, collectionId), id);
          const collection = envelope(check, ['NFT-05', 'RES-01'], id, res, 'collection');
          if (collection === undefined) return;
          check.schema(['NFT-05', 'RES-01'], id, SCHEMA.collectionResponse, res.json, res.exchange, 'collection');
          check.extras(id, SCHEMA.collectionResponse, res.json, res.exchange, 'collection');
          const got = get(collection, 'id');
          check.verdict(
            got === collectionId,
            'NFT-05',
            `${id}.id`,
            'collection id echoed',
            `asked for collection ${collectionId}, got ${JSON.stringify(got)}`,
            ev(res.exchange, { expected: collectionId, actual: got, path: 'collection.id' }),
          );
        });
      });

      works.contract(
        'rarity list walk',
        ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'NFT-11', 'RES-01', 'RES-02'],
        async ({ api, check }) => {
          await walkRarity(api, check, a, n, collectionId, seed);
        },
        // The walk is bounded by maxPages; its own per-request timeouts do the rest. The cross-check
        // (NFT-11) reads the collection, two page edges per page and the sample, a few at a time.
        { requests: n.maxPages + 2 + Math.ceil((2 * n.maxPages + n.crossCheck) / CROSS_CHECK_CONCURRENCY) },
      );
    }

    if (n.collectionId || n.eventIds.length) {
      works.contract('asset', ['NFT-06', 'NFT-07', 'RES-01', 'RES-02'], async ({ api, check, samples }) => {
        const id = 'nft.asset';
        await check.guard(['NFT-06', 'NFT-07', 'RES-01'], id, async () => {
          const ref = await samples.asset(api);
          const res = await fetch(api, a, PATHS.asset(n, ref.contract_address, ref.token_id), id);
          const asset = envelope(check, ['NFT-06', 'NFT-07', 'RES-01'], id, res, 'asset');
          if (asset === undefined) return;
          check.schema(['NFT-06', 'NFT-07', 'RES-01'], id, SCHEMA.assetResponse, res.json, res.exchange, 'asset');
          check.apply(judgeUnixTimes('NFT-06', id, SCHEMA.assetResponse, res.json, startedAt, res.exchange, 'asset'));
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
          check.observe(
            'NFT-07',
            `${id}.models`,
            models.length
              ? `rarity models beyond open_rarity: ${models.join(', ')}`
              : 'rarity models: open_rarity only',
            { otherModels: [...new Set(models)].sort() },
            res.exchange,
          );
        });
      });

      works.contract(
        'unknown ids',
        ['NFT-12'],
        async ({ api, check, samples }) => {
          const eventId = randomUUID();
          await check.guard('NFT-12', 'nft.unknown.event', async () => {
            noData(
              check,
              'NFT-12',
              'nft.unknown.event',
              'an unknown event id',
              await fetch(api, a, PATHS.event(n, eventId), 'nft.unknown.event', NO_DATA_CAUSE),
              'data',
            );
          });
          await check.guard('NFT-12', 'nft.unknown.collection', async () => {
            noData(
              check,
              'NFT-12',
              'nft.unknown.collection',
              'an unknown collection id',
              await fetch(api, a, PATHS.collection(n, randomUUID()), 'nft.unknown.collection', NO_DATA_CAUSE),
              'collection',
            );
          });
          await check.guard('NFT-12', 'nft.unknown.token', async () => {
            const ref = await samples.asset(api);
            // Far above any token id a collection mints, and different on every run.
            const tokenId = `9${String(Date.now())}${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
            noData(
              check,
              'NFT-12',
              'nft.unknown.token',
              'an unknown token',
              await fetch(api, a, PATHS.asset(n, ref.contract_address, tokenId), 'nft.unknown.token', NO_DATA_CAUSE),
              'asset',
            );
          });
        },
        { requests: 5 },
      );
    }

    works.contract('malformed ids', ['NFT-13'], async ({ api, check }) => {
      const malformed = 'not-a-uuid';
      for (const [what, path, key] of [
        ['event', PATHS.event(n, malformed), 'data'],
        ['collection', PATHS.collection(n, malformed), 'collection'],
      ] as const) {
        const id = `nft.malformed.${what}`;
        await check.guard('NFT-13', id, async () => {
          const res = await fetch(api, a, path, id, MALFORMED_CAUSE);
          check.observe(
            'NFT-13',
            id,
            `a malformed ${what} id: ${res.status}${res.ok && get(res.json, key) !== undefined ? ' with a record' : ''}`,
            { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) },
            res.exchange,
          );
        });
      }
    });
  }
  return works.list;
}

async function walkRarity(
  api: ApiClient,
  check: Checks,
  a: DataAccess,
  n: ResolvedNft,
  collectionId: string,
  seed: number,
): Promise<void> {
  const base = a.base + PATHS.rarity(n, collectionId);
  const id = `nft.rarity[${collectionId}]`;
  const pages = new RarityPages(n.maxPages, check.wants('RES-02'), {
    sample: n.crossCheck,
    seed,
    edges: check.wants('NFT-11'),
  });
  try {
    while (pages.wantsMore()) {
      const token = pages.nextToken;
      const url = token === undefined ? base : withQueryParam(base, n.pageTokenParam, token);
      pages.add(await fetch(api, a, url.slice(a.base.length), `${id}#page${pages.walk.pages + 1}`));
    }
  } catch (e) {
    if (!(e instanceof CouldNotTest)) throw e;
    pages.cutShort(e.message, e.exchanges);
  }
  check.apply(judgeRarityWalk(pages, { id, pageTokenParam: n.pageTokenParam }));
  // NFT-11: the page edges and the seeded sample agree with the asset endpoint and the collection's contracts.
  if (pages.walk.pages === 0 || !check.wants('NFT-11')) return;
  await crossCheck(api, check, a, n, collectionId, crossCheckPlan(pages.walk.edges, pages.walk.sampleInWalkOrder()));
}

async function crossCheck(
  api: ApiClient,
  check: Checks,
  a: DataAccess,
  n: ResolvedNft,
  collectionId: string,
  items: readonly CrossCheckItem[],
): Promise<void> {
  const cid = `nft.agree[${collectionId}]`;
  if (items.length === 0)
    return check.error('NFT-11', cid, 'the walk met no item with contract_address and token_id to compare');
  let contracts: string[] | undefined;
  // The collection's contracts and the assets are independent reads: one round trip less in a row.
  const collection = check.guard('NFT-11', `${cid}.collection`, async () => {
    const res = await fetch(api, a, PATHS.collection(n, collectionId), `${cid}.collection`);
    const list = get(res.json, 'collection', 'contracts');
    if (!res.ok || !Array.isArray(list))
      return check.error(
        'NFT-11',
        `${cid}.collection`,
        `the collection answered ${res.status} without contracts to compare with`,
        ev(res.exchange),
      );
    contracts = list.map((c) => String(get(c, 'address')));
  });
  const idOf = (x: (typeof items)[number]) => `${cid}[${crossCheckSlot(x.item, x.why)}]`;
  // Independent reads, a few in flight at once; each one is counted by the run's budget.
  const [, answers] = await Promise.all([
    collection,
    settleAll(
      items.map((x) => () => fetch(api, a, PATHS.asset(n, x.item.contract_address, x.item.token_id), idOf(x))),
      CROSS_CHECK_CONCURRENCY,
    ),
  ]);
  for (const [i, x] of items.entries()) {
    const { item } = x;
    const id = idOf(x);
    const what = describeItem(item, x.why);
    await check.guard('NFT-11', id, async () => {
      const res = valueOf(answers[i]!);
      const asset = get(res.json, 'asset');
      const listed = { id: item.id, contract_address: item.contract_address, token_id: item.token_id };
      if (!res.ok || !isObject(asset))
        return check.fail(
          'NFT-11',
          id,
          `${what}: listed, but the asset endpoint answered ${res.status} without {asset}`,
          ev(res.exchange, { item: listed, expected: '2xx with {asset}', actual: res.status }),
        );
      const problems = agreementProblems(item, asset, contracts);
      const answered = { contract_address: asset.contract_address, token_id: asset.token_id, rarity: asset.rarity };
      check.verdict(
        !problems.length,
        'NFT-11',
        id,
        `${what}: list item, asset and collection agree`,
        `${what}: ${problems.join('; ')}`,
        ev(res.exchange, {
          item: listed,
          expected: { ...listed, rarity: item.rarity },
          actual: answered,
          path: 'asset.rarity',
        }),
      );
    });
  }
}
