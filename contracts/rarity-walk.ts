// The rarity-list walk (NFT-07..10, RES-01, RES-02), collected then judged. `RarityPages` is fed
// the answers one page at a time and keeps what the rules need (the walk's state, schema problems
// by rule, extra fields, other models, how the walk ended); `judgeRarityWalk` turns that into
// verdicts and does no I/O, so every verdict and message is pinned by table tests on synthetic
// pages. The spec only fetches the page each step asks for.
import type { Exchange } from '../src/record/recorder.js';
import { extraFields, SCHEMA, validate } from '../src/schemas/validate.js';
import type { Evidence } from '../src/verdict.js';
import { ev, type Judgement } from './checks.js';
import { get } from './json.js';
import { RarityWalk, type WalkSampling } from './walk.js';

/** The parts of one page's answer the walk reads. */
export interface RarityPage {
  ok: boolean;
  status: number;
  json: unknown;
  exchange: Exchange;
}

/** Why the walk stopped. */
export type WalkEnd = 'last-page' | 'loop' | 'empty-pages' | 'max-pages' | 'refused';

const SCHEMA_RULES = ['NFT-07', 'NFT-08', 'RES-01'] as const;
/** RES-02 lists fields by resource: the first pages show them; the rest would only repeat. */
const EXTRA_FIELD_PAGES = 3;

/** Problems of one rule across the walk: counted, the first kept with where it was. */
interface Tally {
  count: number;
  first?: { message: string; page: number; path: string; expected: string; actual: string; exchange: Exchange };
}

/** Rarity entries whose model is not open_rarity: NFT-07's open part. */
export function otherModels(rarity: unknown): string[] {
  return Array.isArray(rarity)
    ? rarity.map((r) => get(r, 'model')).filter((m): m is string => typeof m === 'string' && m !== 'open_rarity')
    : [];
}

export class RarityPages {
  readonly walk: RarityWalk;
  readonly tallies = new Map<string, Tally>(SCHEMA_RULES.map((r) => [r, { count: 0 }]));
  /** Extra fields by resource, when asked for (`extras`). */
  readonly extras: Record<string, Set<string>> | undefined;
  readonly models = new Set<string>();
  /** The first answers, the evidence of most verdicts (plus a cut-short request's exchange). */
  readonly keep: Exchange[] = [];
  ended: WalkEnd | undefined;
  /** The last answer, whatever it was. */
  last: RarityPage | undefined;
  /** Whether page 2 differs from page 1; undefined while there is no page 2. */
  advanced: boolean | undefined;
  /** A could-not-test cause that cut the walk short (budget, timeout, network). */
  cause: string | undefined;
  private token: string | undefined;
  private firstIds: string[] = [];

  constructor(
    readonly maxPages: number,
    extras: boolean,
    sampling: WalkSampling = {},
  ) {
    this.extras = extras ? {} : undefined;
    this.walk = new RarityWalk(sampling);
  }

  /**
   * Whether to ask for another page; `nextToken` is its page token (undefined: the first page).
   * Reaching maxPages with a token still in hand ends the walk as `max-pages`.
   */
  wantsMore(): boolean {
    if (!this.ended && this.walk.pages >= this.maxPages) this.ended = 'max-pages';
    return !this.ended;
  }

  get nextToken(): string | undefined {
    return this.token;
  }

  add(res: RarityPage): void {
    const walk = this.walk;
    this.last = res;
    if (this.keep.length < 2) this.keep.push(res.exchange);
    const data = get(res.json, 'data');
    if (!res.ok || !Array.isArray(data)) {
      this.ended = 'refused';
      return;
    }
    for (const p of validate(SCHEMA.rarityListResponse, res.json)) {
      for (const r of p.rules) {
        const t = this.tallies.get(r);
        if (!t) continue;
        t.count++;
        t.first ??= { ...p, page: walk.pages + 1, exchange: res.exchange };
      }
    }
    if (this.extras && walk.pages < EXTRA_FIELD_PAGES) {
      for (const x of extraFields(SCHEMA.rarityListResponse, res.json))
        (this.extras[x.resource || 'RarityListResponse'] ??= new Set()).add(x.field);
    }
    for (const item of data) for (const m of otherModels(get(item, 'rarity'))) this.models.add(m);
    const ids = data.map((item) => String(get(item, 'id')));
    if (walk.pages === 0) this.firstIds = ids;
    else if (walk.pages === 1)
      this.advanced = !(ids.length === this.firstIds.length && ids.every((x, i) => x === this.firstIds[i]));
    walk.addPage(data);
    const next = get(res.json, 'meta', 'paging', 'next_page_token');
    if (typeof next !== 'string' || next === '') this.ended = 'last-page';
    else if (!walk.acceptToken(next)) this.ended = 'loop';
    else if (walk.emptyPagesInRow >= 2) this.ended = 'empty-pages';
    else this.token = next;
  }

  /** The walk was cut short by a could-not-test failure; its first exchange joins the evidence. */
  cutShort(cause: string, exchanges: readonly Exchange[]): void {
    this.cause = cause;
    this.keep.push(...exchanges.slice(0, 1));
  }
}

export interface WalkContext {
  /** The check id prefix, `nft.rarity[<collection>]`. */
  id: string;
  pageTokenParam: string;
}

type Stated = 'pass' | 'fail' | 'error';
const judged = (verdict: Stated, rule: string, id: string, message: string, evidence?: Evidence): Judgement => ({
  verdict,
  rule,
  id,
  message,
  evidence,
});

/** The verdicts of a walk, in the order they are stated. */
export function judgeRarityWalk(pages: RarityPages, ctx: WalkContext): Judgement[] {
  if (pages.walk.pages === 0) return noPage(pages, ctx);
  const end = walkEnd(pages, ctx);
  // The walk's counts ride on NFT-10's evidence (not its observation: a baseline compares those):
  // a comparison of two deployments reads them (src/compare, CMP-13).
  const counts = walkCounts(pages);
  return [...schemaAndFields(pages, ctx), order(pages, ctx), { ...end, evidence: { ...end.evidence, walk: counts } }];
}

/** What the walk met: pages, items, and how its ranks held up. */
function walkCounts({ walk }: RarityPages): Record<string, number> {
  return {
    pages: walk.pages,
    items: walk.items,
    distinctItems: walk.distinctIds,
    duplicates: walk.duplicates,
    unranked: walk.unranked,
    rankStepsDown: walk.orderViolations,
    ...(walk.missingRanks() && { missingRanks: walk.missingRanks()!.count }),
  };
}

/** Every answer the walk's evidence rests on: the first two, a cut-short request's, and `x`. */
function evidenceOf(pages: RarityPages, extra: Evidence = {}, x?: Exchange): Evidence {
  return ev([...pages.keep, ...(x && !pages.keep.includes(x) ? [x] : [])], extra);
}

const summaryOf = ({ walk }: RarityPages) => `${walk.pages} page(s), ${walk.items} item(s)`;

/** Not one page to judge: a refused first page fails the list's shape; the other rules could not be checked. */
function noPage(pages: RarityPages, { id }: WalkContext): Judgement[] {
  const { cause, last } = pages;
  const why = cause ?? `the first page answered ${last?.status ?? 'nothing'} without a data array`;
  const refusal = ev(last?.exchange, { expected: '2xx with {data: [...], meta: {paging}}', actual: last?.status });
  return ['NFT-07', 'NFT-08', 'NFT-09', 'NFT-10', 'NFT-11', 'RES-01'].map((rule) => {
    if (cause) return judged('error', rule, id, why, evidenceOf(pages));
    if (rule === 'NFT-08' || rule === 'RES-01') return judged('fail', rule, id, `rarity list: ${why}`, refusal);
    return judged('error', rule, id, `no page to check: ${why}`, evidenceOf(pages));
  });
}

/** NFT-07, NFT-08, RES-01: every page and item against the schema; other models (NFT-07) and extra fields (RES-02) observed. */
function schemaAndFields(pages: RarityPages, { id }: WalkContext): Judgement[] {
  const out: Judgement[] = [];
  for (const rule of SCHEMA_RULES) {
    const { first, count } = pages.tallies.get(rule)!;
    if (first) {
      const more = count > 1 ? ` (+${count - 1} more over the walk)` : '';
      const evidence = ev(first.exchange, { path: first.path, expected: first.expected, actual: first.actual });
      out.push(
        judged('fail', rule, `${id}.schema`, `rarity list page ${first.page}: ${first.message}${more}`, evidence),
      );
    } else {
      out.push(
        judged(
          'pass',
          rule,
          `${id}.schema`,
          `rarity list: ${summaryOf(pages)}, every documented field present with its type`,
          evidenceOf(pages),
        ),
      );
    }
  }
  const models = [...pages.models].sort();
  const modelsSeen = models.length
    ? `rarity models beyond open_rarity: ${models.join(', ')}`
    : 'rarity models: open_rarity only';
  out.push({
    verdict: 'observed',
    rule: 'NFT-07',
    id: `${id}.models`,
    message: modelsSeen,
    observation: { otherModels: models },
  });
  if (pages.extras) {
    const byResource = Object.fromEntries(Object.entries(pages.extras).map(([k, v]) => [k, [...v].sort()]));
    const names = Object.entries(byResource).flatMap(([r, fs]) => fs.map((f) => `${r}.${f}`));
    const message = names.length
      ? `rarity list: fields beyond the documented ones: ${names.join(', ')}`
      : 'rarity list: no fields beyond the documented ones';
    out.push({
      verdict: 'observed',
      rule: 'RES-02',
      id: `${id}.extras`,
      message,
      observation: { extraFields: byResource },
      exchanges: pages.keep[0],
    });
  }
  return out;
}

/** NFT-09: ranks never decrease across pages. */
function order(pages: RarityPages, { id }: WalkContext): Judgement {
  const { walk, cause } = pages;
  const summary = summaryOf(pages);
  const v = walk.firstOrderViolation;
  if (v) {
    const message = `rank ${v.rank} comes after rank ${v.previous} (page ${v.page}, item ${v.index}); ${walk.orderViolations} step(s) down over ${summary}`;
    const step = {
      expected: 'ranks never decrease',
      actual: { previous: v.previous, rank: v.rank },
      path: `data[${v.index}].rarity[].rank`,
    };
    const evidence = ev(pages.keep, step);
    return judged('fail', 'NFT-09', `${id}.order`, message, evidence);
  }
  if (walk.items - walk.unranked < 2)
    return judged('error', 'NFT-09', `${id}.order`, `fewer than two ranked items over ${summary}`, evidenceOf(pages));
  const cutShort = cause ? ` (walk cut short: ${cause})` : '';
  return judged('pass', 'NFT-09', `${id}.order`, `ranks never decrease over ${summary}${cutShort}`, evidenceOf(pages));
}

/** What keeps the walk from ending, or from meeting each asset exactly once (NFT-10). */
function walkProblems(pages: RarityPages, { pageTokenParam }: WalkContext): string[] {
  const { walk, ended, last } = pages;
  const missing = walk.missingRanks();
  const problems: string[] = [];
  if (ended === 'loop')
    problems.push(`the walk does not end: page ${walk.pages} hands back a page token already followed`);
  if (ended === 'empty-pages')
    problems.push(`the walk does not end: ${walk.emptyPagesInRow} empty pages in a row still carry a page token`);
  if (ended === 'refused')
    problems.push(`page ${walk.pages + 1} answered ${last?.status ?? 'nothing'} (following ${pageTokenParam})`);
  if (walk.firstDuplicate)
    problems.push(
      `${walk.duplicates} item(s) met twice (first: ${walk.firstDuplicate.id} on page ${walk.firstDuplicate.page})`,
    );
  if (pages.advanced === false)
    problems.push(
      `page 2 repeats page 1: is api.nft.pageTokenParam ("${pageTokenParam}") the parameter the service reads?`,
    );
  if (missing?.count)
    problems.push(
      `${missing.count} rank(s) missing with no tie to explain them (first: rank ${missing.first}): assets the walk never met`,
    );
  return problems;
}

/** NFT-10: the walk ends and meets each asset exactly once. */
function walkEnd(pages: RarityPages, ctx: WalkContext): Judgement {
  const { walk, cause, keep } = pages;
  const summary = summaryOf(pages);
  const id = `${ctx.id}.walk`;
  const observation = { pageTokenParam: ctx.pageTokenParam, advanced: pages.advanced ?? 'single page' };
  const problems = walkProblems(pages, ctx);
  const withLast = evidenceOf(pages, { observation }, pages.last?.exchange);
  if (problems.length) return judged('fail', 'NFT-10', id, `${problems.join('; ')} (${summary})`, withLast);
  if (cause)
    return judged('error', 'NFT-10', id, `walk cut short after ${summary}: ${cause}`, ev(keep, { observation }));
  if (pages.ended === 'max-pages') {
    const message = `walk stopped at maxPages (${pages.maxPages}) while the service still gave a page token; raise api.nft.maxPages`;
    return judged('error', 'NFT-10', id, message, ev(keep, { observation }));
  }
  const message = `walk ended after ${summary}, ${walk.distinctIds} distinct assets, each once, ranks without gaps`;
  return judged('pass', 'NFT-10', id, message, ev(keep, { observation }));
}
