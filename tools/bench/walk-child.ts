// Bench child: the rarity-list walk over one collection, measured in its own process so its
// peak RSS is the walker's alone (the reference serving the pages runs in another process).
//   walk-child.ts '<json WalkInput>' -> {type:'result', ...WalkResult}
import { SCHEMA, validate } from '../../src/schemas/validate.js';
import { withQueryParam } from '../../src/auth/forms.js';
import { RarityWalk } from '../../contracts/walk.js';
import { toParent } from './child.js';

export interface WalkInput {
  baseUrl: string;
  apiKey: string;
  protocol: string;
  network: string;
  collectionId: string;
  pageTokenParam: string;
  maxPages: number;
}

export interface WalkResult {
  items: number;
  pages: number;
  /** Schema problems over all pages (0 on a conformant reference). */
  invalid: number;
  /** What the contract suite's walk state found: all 0 on a conformant reference. */
  duplicates: number;
  orderViolations: number;
  missingRanks: number;
  ms: number;
  /** Peak resident set size of this process, bytes. */
  maxRssBytes: number;
  /** RSS when the walk started (after start-up and schema compilation), bytes. */
  startRssBytes: number;
}

/**
 * The contract suite's walk (contracts/nft.spec.ts) in miniature: its RarityWalk state fed one page
 * at a time, each page validated against the rarity-list schema and then dropped.
 */
async function walk(w: WalkInput): Promise<Omit<WalkResult, 'maxRssBytes' | 'startRssBytes'>> {
  const base = `${w.baseUrl}/nft/v1/${w.protocol}/${w.network}/assets/rarity/${w.collectionId}?sort_by=rarity_rank`;
  const headers = { authorization: `Bearer ${w.apiKey}` };
  const state = new RarityWalk();
  let token: string | undefined;
  let invalid = 0;
  const t0 = performance.now();
  for (;;) {
    if (state.pages >= w.maxPages) throw new Error(`more than ${w.maxPages} pages`);
    const res = await fetch(token === undefined ? base : withQueryParam(base, w.pageTokenParam, token), { headers });
    if (res.status !== 200) throw new Error(`page ${state.pages + 1}: HTTP ${res.status}`);
    const page = (await res.json()) as { data?: unknown; meta?: { paging?: { next_page_token?: unknown } } };
    invalid += validate(SCHEMA.rarityListResponse, page).length;
    if (!Array.isArray(page.data)) throw new Error(`page ${state.pages + 1}: no data array`);
    state.addPage(page.data);
    const next = page.meta?.paging?.next_page_token;
    if (typeof next !== 'string' || next === '') break;
    if (!state.acceptToken(next)) throw new Error(`page ${state.pages}: the page token loops`);
    token = next;
  }
  const ms = performance.now() - t0;
  return {
    items: state.items,
    pages: state.pages,
    invalid,
    duplicates: state.duplicates,
    orderViolations: state.orderViolations,
    missingRanks: state.missingRanks()?.count ?? 0,
    ms,
  };
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '{}') as WalkInput;
  validate(SCHEMA.rarityListResponse, {}); // compile the schemas before the baseline is taken
  const startRssBytes = process.memoryUsage.rss();
  const r = await walk(input);
  // resourceUsage().maxRSS is in kilobytes.
  await toParent({ type: 'result', ...r, maxRssBytes: process.resourceUsage().maxRSS * 1024, startRssBytes });
}

main().then(
  () => process.exit(0),
  (e: unknown) =>
    toParent({ type: 'result', error: e instanceof Error ? e.message.split('\n')[0] : String(e) }).then(() =>
      process.exit(1),
    ),
);
