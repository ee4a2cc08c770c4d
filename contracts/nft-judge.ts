// The NFT family's judges (NFT-01..13, RES-01, RES-02): pure functions from what the plan got
// (contracts/nft-send.ts) to verdicts, one per rule. A rule's checks come in the plan's order of
// parts (events, collection, rarity walk, asset, unknown ids, malformed ids), each part's in the
// order it reads them. A read that could not be made is an `error` with its cause for each rule that
// needed it; a record without the envelope its endpoint documents fails the rules that read it.
import type { Exchange } from '../src/record/recorder.js';
import { RULES } from '../src/rules/catalogue.js';
import { SCHEMA, type SchemaName } from '../src/schemas/validate.js';
import type { Evidence } from '../src/verdict.js';
import { agreementProblems, describeItem } from './agreement.js';
import type { CallResult } from './api.js';
import { ev, verdict, type Judgement, type Lost } from './checks.js';
import { get, isObject } from './json.js';
import {
  NFT_IDS,
  type CrossCheckAnswers,
  type EventRead,
  type MalformedAnswers,
  type NftAnswers,
  type RarityAnswers,
  type Read,
  type UnknownAnswers,
} from './nft-send.js';
import type { Judge } from './plan.js';
import { judgeRarityWalk, otherModels } from './rarity-walk.js';
import { judgeExtras, judgeSchema } from './schema-judge.js';
import { bodyShape, mediaType } from '../src/body-shape.js';
import { judgeUnixTimes } from './unix-time.js';

/** The NFT family's rules, in catalogue order. */
export const NFT_RULES: readonly string[] = RULES.filter((r) => r.section === 'NFT' || r.section === 'RES').map(
  (r) => r.id,
);

const lostCheck = (rule: string, id: string, lost: Lost): Judgement => ({
  rule,
  id,
  verdict: 'error',
  message: lost.cause,
  evidence: ev(lost.exchanges),
});

/** How one record endpoint's answer is judged: which rules read it, in which envelope, against which schema. */
interface RecordKind {
  /** The rules a read that could not be made is an `error` of. */
  read: readonly string[];
  /** The rules a missing envelope fails. */
  envelope: readonly string[];
  /** The rules the schema judges (each on the fields that serve it). */
  schema: readonly string[];
  key: string;
  name: SchemaName;
  what: string;
}

const EVENT: RecordKind = {
  read: ['NFT-01', 'NFT-02', 'NFT-04', 'RES-01'],
  envelope: ['NFT-01', 'NFT-02', 'RES-01'],
  schema: ['NFT-01', 'NFT-04', 'RES-01'],
  key: 'data',
  name: SCHEMA.eventResponse,
  what: 'event',
};

const COLLECTION: RecordKind = {
  read: ['NFT-05', 'RES-01'],
  envelope: ['NFT-05', 'RES-01'],
  schema: ['NFT-05', 'RES-01'],
  key: 'collection',
  name: SCHEMA.collectionResponse,
  what: 'collection',
};

const ASSET: RecordKind = {
  read: ['NFT-06', 'NFT-07', 'RES-01'],
  envelope: ['NFT-06', 'NFT-07', 'RES-01'],
  schema: ['NFT-06', 'NFT-07', 'RES-01'],
  key: 'asset',
  name: SCHEMA.assetResponse,
  what: 'asset',
};

/** A record as one rule judges it: its checks so far, and the record and answer when the envelope is there. */
interface JudgedRecord {
  out: Judgement[];
  record?: unknown;
  res?: CallResult;
}

/**
 * A record endpoint's answer on `rule`: an `error` when it could not be read, a fail when the
 * envelope is missing (a 2xx with `{key: ...}`), else its schema check (RES-02: its extra fields).
 */
function judgeRecord(kind: RecordKind, id: string, read: Read, rule: string): JudgedRecord {
  if ('lost' in read) return { out: kind.read.includes(rule) ? [lostCheck(rule, id, read.lost)] : [] };
  const { res } = read;
  const record = get(res.json, kind.key);
  if (!res.ok || record === undefined) {
    if (!kind.envelope.includes(rule)) return { out: [] };
    const what = !res.ok ? `answered ${res.status}` : `the body has no \`${kind.key}\``;
    const evidence = ev(res.exchange, {
      expected: `2xx with {${kind.key}: ...}`,
      actual: res.ok ? bodyShape(res.body) : res.status,
    });
    return { out: [{ rule, id, verdict: 'fail', message: `${id}: ${what}`, evidence }] };
  }
  const out: Judgement[] = [];
  if (kind.schema.includes(rule)) out.push(...judgeSchema([rule], id, kind.name, res.json, res.exchange, kind.what));
  if (rule === 'RES-02') out.push(judgeExtras(id, kind.name, res.json, res.exchange, kind.what));
  return { out, record, res };
}

// --- events (NFT-01..04, RES-01, RES-02) ---

function judgeEvent({ eventId, read }: EventRead, rule: string, startedAt: number): Judgement[] {
  const id = NFT_IDS.event(eventId);
  const { out, record, res } = judgeRecord(EVENT, id, read, rule);
  if (!res) return out;
  if (rule === 'NFT-01')
    out.push(...judgeUnixTimes('NFT-01', id, SCHEMA.eventResponse, res.json, startedAt, res.exchange, 'event'));
  if (rule === 'NFT-02') {
    const got = get(record, 'id');
    out.push(
      verdict(
        got === eventId,
        'NFT-02',
        id,
        'event id echoed',
        `asked for event ${eventId}, got ${JSON.stringify(got)}`,
        ev(res.exchange, { expected: eventId, actual: got, path: 'data.id' }),
      ),
    );
  }
  return out;
}

const sorted = (s: Set<string>) => [...s].sort();

/** NFT-03 and NFT-04's open part: the event types seen, and which carried payments. */
function judgeEventTypes(events: readonly EventRead[], rule: 'NFT-03' | 'NFT-04'): Judgement {
  const types = new Set<string>();
  const withPayments = new Set<string>();
  const withoutPayments = new Set<string>();
  const exchanges: Exchange[] = [];
  let lastCause: string | undefined;
  for (const { read } of events) {
    if ('lost' in read) {
      lastCause = read.lost.cause;
      continue;
    }
    const { res } = read;
    exchanges.push(res.exchange);
    const event = get(res.json, 'data');
    if (!res.ok || event === undefined) continue;
    const type = get(event, 'event_type');
    if (typeof type !== 'string') continue;
    types.add(type);
    const payments = get(event, 'payments');
    (Array.isArray(payments) && payments.length > 0 ? withPayments : withoutPayments).add(type);
  }
  // Nothing read, nothing observed: the cause the event reads met, not "event types seen: none".
  if (types.size === 0)
    return {
      rule,
      id: `nft.event.${rule.toLowerCase()}`,
      verdict: 'error',
      message: lastCause ?? 'no event carried an event_type',
    };
  if (rule === 'NFT-03') {
    const others = sorted(types).filter((t) => t !== 'sale' && t !== 'transfer');
    return {
      rule,
      id: 'nft.event.types',
      verdict: 'observed',
      message: others.length
        ? `event types beyond sale and transfer: ${others.join(', ')}`
        : `event types seen: ${sorted(types).join(', ') || 'none'}`,
      observation: { eventTypes: sorted(types), beyondShown: others },
      exchanges: exchanges.slice(0, 2),
    };
  }
  return {
    rule,
    id: 'nft.event.payments-by-type',
    verdict: 'observed',
    message: `non-empty payments on: ${sorted(withPayments).join(', ') || 'no event'}; empty on: ${sorted(withoutPayments).join(', ') || 'no event'}`,
    observation: { typesWithPayments: sorted(withPayments), typesWithoutPayments: sorted(withoutPayments) },
    exchanges: exchanges.slice(0, 2),
  };
}

function judgeEvents(events: readonly EventRead[] | undefined, rule: string, startedAt: number): Judgement[] {
  if (!events) return [];
  const out = events.flatMap((e) => judgeEvent(e, rule, startedAt));
  if (rule === 'NFT-03' || rule === 'NFT-04') out.push(judgeEventTypes(events, rule));
  return out;
}

// --- collection (NFT-05, RES-01, RES-02) ---

function judgeCollection(c: NftAnswers['collection'], rule: string): Judgement[] {
  if (!c) return [];
  const id = NFT_IDS.collection(c.collectionId);
  const { out, record, res } = judgeRecord(COLLECTION, id, c.read, rule);
  if (res && rule === 'NFT-05') {
    const got = get(record, 'id');
    out.push(
      verdict(
        got === c.collectionId,
        'NFT-05',
        `${id}.id`,
        'collection id echoed',
        `asked for collection ${c.collectionId}, got ${JSON.stringify(got)}`,
        ev(res.exchange, { expected: c.collectionId, actual: got, path: 'collection.id' }),
      ),
    );
  }
  return out;
}

// --- rarity walk (NFT-07..11, RES-01, RES-02) ---

/** NFT-11: each listed item against its asset and the collection's contracts. */
function judgeCrossCheck(collectionId: string, x: CrossCheckAnswers): Judgement[] {
  const cid = NFT_IDS.agree(collectionId);
  const error = (id: string, message: string, evidence?: Evidence): Judgement => ({
    rule: 'NFT-11',
    id,
    verdict: 'error',
    message,
    evidence,
  });
  if (x.items.length === 0 || !x.collection)
    return [error(cid, 'the walk met no item with contract_address and token_id to compare')];
  const out: Judgement[] = [];
  let contracts: string[] | undefined;
  if ('lost' in x.collection) out.push(lostCheck('NFT-11', `${cid}.collection`, x.collection.lost));
  else {
    const { res } = x.collection;
    const list = get(res.json, 'collection', 'contracts');
    if (!res.ok || !Array.isArray(list))
      out.push(
        error(
          `${cid}.collection`,
          `the collection answered ${res.status} without contracts to compare with`,
          ev(res.exchange),
        ),
      );
    else contracts = list.map((c) => String(get(c, 'address')));
  }
  for (const [i, compared] of x.items.entries()) {
    const { item, why } = compared;
    const id = NFT_IDS.agreeItem(collectionId, compared);
    const what = describeItem(item, why);
    const read = x.assets[i]!;
    if ('lost' in read) {
      out.push(lostCheck('NFT-11', id, read.lost));
      continue;
    }
    const { res } = read;
    const asset = get(res.json, 'asset');
    const listed = { id: item.id, contract_address: item.contract_address, token_id: item.token_id };
    if (!res.ok || !isObject(asset)) {
      out.push({
        rule: 'NFT-11',
        id,
        verdict: 'fail',
        message: `${what}: listed, but the asset endpoint answered ${res.status} without {asset}`,
        evidence: ev(res.exchange, { item: listed, expected: '2xx with {asset}', actual: res.status }),
      });
      continue;
    }
    const problems = agreementProblems(item, asset, contracts);
    const answered = { contract_address: asset.contract_address, token_id: asset.token_id, rarity: asset.rarity };
    out.push(
      verdict(
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
      ),
    );
  }
  return out;
}

function judgeRarity(r: RarityAnswers | undefined, rule: string): Judgement[] {
  if (!r) return [];
  const walk = judgeRarityWalk(r.pages, { id: NFT_IDS.rarity(r.collectionId), pageTokenParam: r.pageTokenParam });
  const out = walk.filter((j) => j.rule === rule);
  if (rule === 'NFT-11' && r.crossCheck) out.push(...judgeCrossCheck(r.collectionId, r.crossCheck));
  return out;
}

// --- asset (NFT-06, NFT-07, RES-01, RES-02) ---

function judgeAsset(a: NftAnswers['asset'], rule: string, startedAt: number): Judgement[] {
  if (!a) return [];
  const id = NFT_IDS.asset;
  if ('lost' in a) return ASSET.read.includes(rule) ? [lostCheck(rule, id, a.lost)] : [];
  const { ref } = a;
  const { out, record, res } = judgeRecord(ASSET, id, { res: a.res }, rule);
  if (!res) return out;
  if (rule === 'NFT-06') {
    out.push(...judgeUnixTimes('NFT-06', id, SCHEMA.assetResponse, res.json, startedAt, res.exchange, 'asset'));
    const got = { contract_address: get(record, 'contract_address'), token_id: get(record, 'token_id') };
    out.push(
      verdict(
        got.contract_address === ref.contract_address && got.token_id === ref.token_id,
        'NFT-06',
        `${id}.echo`,
        'the asset answered is the one asked for',
        `asked for ${ref.contract_address}/${ref.token_id}, got ${String(got.contract_address)}/${String(got.token_id)}`,
        ev(res.exchange, { expected: ref, actual: got, path: 'asset.token_id' }),
      ),
    );
  }
  if (rule === 'NFT-07') {
    const models = otherModels(get(record, 'rarity'));
    out.push({
      rule: 'NFT-07',
      id: `${id}.models`,
      verdict: 'observed',
      message: models.length
        ? `rarity models beyond open_rarity: ${models.join(', ')}`
        : 'rarity models: open_rarity only',
      observation: { otherModels: [...new Set(models)].sort() },
      exchanges: res.exchange,
    });
  }
  return out;
}

// --- unknown ids (NFT-12), malformed ids (NFT-13) ---

/** What NFT-12 asks for, in the order its checks come: what it is, and the key a record would be under. */
const UNKNOWN = [
  { kind: 'event', what: 'an unknown event id', key: 'data' },
  { kind: 'collection', what: 'an unknown collection id', key: 'collection' },
  { kind: 'token', what: 'an unknown token', key: 'asset' },
] as const;

function judgeUnknown(u: UnknownAnswers | undefined): Judgement[] {
  if (!u) return [];
  return UNKNOWN.map(({ kind, what, key }): Judgement => {
    const id = NFT_IDS.unknown[kind];
    const read = u[kind];
    if ('lost' in read) return lostCheck('NFT-12', id, read.lost);
    const { res } = read;
    const data = res.ok && get(res.json, key) !== undefined;
    return verdict(
      !data,
      'NFT-12',
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
  });
}

const MALFORMED = [
  { kind: 'event', key: 'data' },
  { kind: 'collection', key: 'collection' },
] as const;

function judgeMalformed(m: MalformedAnswers | undefined): Judgement[] {
  if (!m) return [];
  return MALFORMED.map(({ kind, key }): Judgement => {
    const id = NFT_IDS.malformed[kind];
    const read = m[kind];
    if ('lost' in read) return lostCheck('NFT-13', id, read.lost);
    const { res } = read;
    return {
      rule: 'NFT-13',
      id,
      verdict: 'observed',
      message: `a malformed ${kind} id: ${res.status}${res.ok && get(res.json, key) !== undefined ? ' with a record' : ''}`,
      observation: {
        status: res.status,
        contentType: mediaType(res.headers) ?? 'none',
        bodyShape: bodyShape(res.body),
      },
      exchanges: res.exchange,
    };
  });
}

/** One rule's checks over every part of the plan, in the plan's order of parts. */
function judgeNft(rule: string, a: NftAnswers, startedAt: number): Judgement[] {
  return [
    ...judgeEvents(a.events, rule, startedAt),
    ...judgeCollection(a.collection, rule),
    ...judgeRarity(a.rarity, rule),
    ...judgeAsset(a.asset, rule, startedAt),
    ...(rule === 'NFT-12' ? judgeUnknown(a.unknown) : []),
    ...(rule === 'NFT-13' ? judgeMalformed(a.malformed) : []),
  ];
}

/** Each NFT rule's judge. */
export const NFT_JUDGES: Readonly<Record<string, Judge<NftAnswers>>> = Object.fromEntries(
  NFT_RULES.map((rule): [string, Judge<NftAnswers>] => [rule, (a, env) => judgeNft(rule, a, env.startedAt)]),
);
