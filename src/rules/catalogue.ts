// The rule catalogue as data. Ids and kinds mirror the shared rules.md (a test keeps them equal);
// the titles are our own short wording, so the project never reads ../shared at run time.

export type RuleKind = 'must' | 'std' | 'observe';

/**
 * The access families, in the order --only lists them: a plan and its judges each
 * (contracts/judges.ts), and `load`, the rate-limit probes.
 */
export const FAMILY_NAMES = ['auth', 'universal', 'native', 'nft', 'node', 'errors', 'load'] as const;
export type Family = (typeof FAMILY_NAMES)[number];

/** The stage of a run that checks a family's rules: the contract engine or the probes. */
export type Stage = 'contracts' | 'probes';
const stageOfFamily = (f: Family): Stage => (f === 'load' ? 'probes' : 'contracts');

export interface RuleSection {
  readonly key: string;
  readonly title: string;
  /** The part of the service description the rules come from. */
  readonly source: string;
  readonly family: Family;
}

export interface RuleDef {
  readonly id: string;
  readonly kind: RuleKind;
  readonly section: string;
  readonly title: string;
}

export const SECTIONS: readonly RuleSection[] = [
  { key: 'AUTH', title: 'Authentication with API keys', source: 'Authentication', family: 'auth' },
  { key: 'NAUTH', title: 'Node access tokens', source: 'Authentication / Node access', family: 'node' },
  { key: 'UNI', title: 'Universal REST', source: 'Endpoints / Universal REST', family: 'universal' },
  { key: 'RPC', title: 'Native JSON-RPC', source: 'Endpoints / Native JSON-RPC', family: 'native' },
  { key: 'NFT', title: 'NFT data API', source: 'Resources and their fields; Endpoints / NFT data API', family: 'nft' },
  { key: 'RES', title: 'Shared resource rules', source: 'Resources and their fields', family: 'nft' },
  { key: 'NODE', title: 'Dedicated node endpoints', source: 'Endpoints / Dedicated node endpoints', family: 'node' },
  { key: 'RL', title: 'Rate limits of the horizon-style node', source: 'Limits; Errors', family: 'load' },
  { key: 'ERR', title: 'Errors', source: 'Errors', family: 'errors' },
];

const r = (id: string, kind: RuleKind, title: string): RuleDef => ({ id, kind, section: id.split('-')[0]!, title });

export const RULES: readonly RuleDef[] = [
  r(
    'AUTH-01',
    'must',
    'New key as Authorization Bearer works on every universal, native and NFT endpoint of the base URL',
  ),
  r('AUTH-02', 'must', 'New key in the X-API-Key header works on every endpoint of the base URL'),
  r('AUTH-03', 'must', 'X-API-Key header name is matched regardless of letter case'),
  r('AUTH-04', 'must', 'Legacy key in the apiKey query parameter works on the legacy base URL'),
  r('AUTH-05', 'must', 'Legacy key as Bearer token works on the legacy base URL'),
  r('AUTH-06', 'must', 'apiKey appended with & to an existing query string works and the other parameters still apply'),
  r(
    'AUTH-07',
    'must',
    'No credentials, or a credential with an empty value, gets no data from any authenticated endpoint (status and body observed)',
  ),
  r(
    'AUTH-08',
    'must',
    'Unknown keys, near misses of the real key included, get no data in every documented or observed-accepted form (status and body observed)',
  ),
  r('AUTH-09', 'observe', 'New key as apiKey query parameter on the base URL'),
  r('AUTH-10', 'observe', 'Keys used across generations (new key on legacy URL, legacy key on base URL)'),
  r('AUTH-11', 'observe', "Forms outside the key type's list (X-API-Key with a legacy key)"),
  r(
    'AUTH-12',
    'must',
    'Block-number endpoint takes its optional apiKey query parameter with a legacy key (new key on base: observed)',
  ),

  r('NAUTH-01', 'must', 'Block-by-height node accepts the token as Authorization Bearer'),
  r('NAUTH-02', 'must', 'Block-by-height node accepts the token as X-Auth-Token'),
  r('NAUTH-03', 'must', 'Block-by-height node accepts the token as the auth query parameter'),
  r(
    'NAUTH-04',
    'must',
    'App REST, consensus RPC, consensus REST and fee stats accept the auth query parameter (other forms observed)',
  ),
  r('NAUTH-05', 'must', 'WebSocket upgrade accepts X-Auth-Token'),
  r('NAUTH-06', 'must', 'gRPC accepts x-auth-token metadata'),
  r(
    'NAUTH-07',
    'must',
    'Missing, empty or wrong node token (near misses included) gets no data on REST, WebSocket (no message before close) and gRPC (exact status observed)',
  ),

  r('UNI-01', 'must', 'Block-number endpoint answers 2xx with a non-negative integer block number'),
  r(
    'UNI-02',
    'must',
    'Block number does not go backwards beyond tolerance and agrees with native JSON-RPC within tolerance',
  ),

  r('RPC-01', 'must', 'Native JSON-RPC answers 2xx with jsonrpc "2.0", the request id and a result'),
  r('RPC-02', 'must', 'Block-number result is a canonical hex quantity'),
  r('RPC-03', 'must', 'Every configured network answers like RPC-01 (optional networks observed)'),
  r('RPC-04', 'std', 'Response id equals request id for 0, 1, 2^53-1 and a string id'),
  r('RPC-05', 'std', 'Unknown method gets error -32601 and no result'),
  r('RPC-06', 'std', 'Non-JSON body gets error -32700 with id null'),
  r('RPC-07', 'std', 'Request without method gets error -32600'),
  r('RPC-08', 'observe', 'Whether batches of valid requests are served, and how (answers, order, status)'),
  r(
    'RPC-09',
    'std',
    'A notification gets no Response object, alone or inside a batch; a batch of only notifications gets nothing back (HTTP status observed)',
  ),
  r('RPC-10', 'std', 'An empty batch gets one error object, not an array: -32600 with id null'),
  r(
    'RPC-11',
    'std',
    'A batch of non-requests gets one -32600 error with id null per element (a target without batches: observed)',
  ),
  r(
    'RPC-12',
    'std',
    'Every Response object has jsonrpc "2.0", an id, exactly one of result and error, and errors an integer code and a string message',
  ),

  r(
    'NFT-01',
    'must',
    'Event endpoint answers {data: event} with every documented field and type; its timestamp a plausible Unix time in seconds',
  ),
  r('NFT-02', 'must', 'Event id equals the requested id'),
  r('NFT-03', 'observe', 'event_type values other than sale and transfer'),
  r(
    'NFT-04',
    'must',
    'Payments have from, to, price and currency with their types (which event types carry payments observed)',
  ),
  r(
    'NFT-05',
    'must',
    'Collection endpoint answers {collection} with every documented field and type and the requested id',
  ),
  r(
    'NFT-06',
    'must',
    'Asset endpoint answers {asset} with every documented field and type for the requested contract and token; its mint_date a plausible Unix time in seconds',
  ),
  r('NFT-07', 'must', 'Rarity entries have model, score and rank with their types (other models observed)'),
  r('NFT-08', 'must', 'Rarity list answers {data, meta.paging.next_page_token} with documented items'),
  r('NFT-09', 'must', 'Rarity list is ordered by rank, rank 1 first, across all pages'),
  r('NFT-10', 'must', 'Following page tokens visits every asset exactly once and ends'),
  r('NFT-11', 'must', 'Rarity list items agree with the asset endpoint and the collection contracts'),
  r('NFT-12', 'must', 'Unknown event, collection or token gets no data (status and body observed)'),
  r('NFT-13', 'observe', 'Malformed (non-UUID) ids'),

  r('RES-01', 'must', 'Documented fields present with documented types in every record read'),
  r('RES-02', 'observe', 'Fields beyond the documented ones, per resource'),

  r('NODE-01', 'must', 'Block by height answers 2xx JSON for an existing height'),
  r('NODE-02', 'must', 'WebSocket upgrade completes with X-Auth-Token and carries a ping/pong round trip'),
  r('NODE-03', 'must', 'App REST node_info answers 2xx JSON'),
  r('NODE-04', 'must', 'Consensus RPC answers 2xx JSON echoing the request id'),
  r('NODE-05', 'must', 'Consensus REST status answers 2xx JSON'),
  r('NODE-06', 'must', 'gRPC reflection lists at least one service besides reflection'),
  r('NODE-07', 'must', 'fee_stats answers 2xx JSON to GET and 2xx without body to HEAD'),

  r(
    'RL-01',
    'must',
    'Every limiter response carries Limit, Remaining and Reset as non-negative integers with Remaining < Limit',
  ),
  r('RL-02', 'must', 'Limit stays the same across the run'),
  r('RL-03', 'must', 'Under load faster than one per T, Remaining falls and Reset grows; GET and HEAD both use quota'),
  r('RL-04', 'must', 'After a pause Remaining rises, Reset falls, and a full pause restores a first-request look'),
  r('RL-05', 'must', 'Recovery is gradual (leaky bucket), not a fixed window'),
  r('RL-06', 'must', 'After Remaining 0 the next request gets 429 with a non-negative retry-after'),
  r('RL-07', 'must', "retry-after is honest: waiting it succeeds, and it is not longer than the model's wait"),
  r('RL-08', 'must', 'Remaining > 0 (under the cap) means the next request is accepted'),
  r('RL-09', 'must', 'Long-run accepted rate and emission interval match the customer kind'),
  r(
    'RL-10',
    'must',
    'At most the per-second cap accepted in any sliding second, within a stated network allowance (inconclusive when little quota is left)',
  ),
  r('RL-11', 'must', 'Accepted count before the first 429 matches the GCRA prediction within one'),
  r('RL-12', 'must', 'Reset agrees with Remaining and T within one T plus rounding'),
  r('RL-13', 'observe', 'What a request over the per-second cap gets (a strict minimum-spacing cap is conformant)'),
  r(
    'RL-14',
    'must',
    'Quota and cap belong to the token: varying its form, the query or client-address headers gets no fresh bucket, no unlimited pass, no way past the cap',
  ),

  r('ERR-01', 'observe', 'Status, content type and body shape of non-2xx answers, by cause'),
];

const byId = new Map(RULES.map((rule) => [rule.id, rule]));

export function ruleById(id: string): RuleDef {
  const rule = byId.get(id);
  if (!rule) throw new Error(`unknown rule id ${id}`);
  return rule;
}

export function isRuleId(id: string): boolean {
  return byId.has(id);
}

/** The sections of each family, in catalogue order. */
export const FAMILIES: Readonly<Record<Family, readonly string[]>> = Object.fromEntries(
  FAMILY_NAMES.map((f) => [f, SECTIONS.filter((s) => s.family === f).map((s) => s.key)]),
) as unknown as Record<Family, readonly string[]>;

/** The families the contract engine runs (one plan and its judges each, contracts/judges.ts). */
export const CONTRACT_FAMILIES: readonly Family[] = FAMILY_NAMES.filter((f) => stageOfFamily(f) === 'contracts');
/** The families the probes stage runs. */
export const PROBE_FAMILIES: readonly Family[] = FAMILY_NAMES.filter((f) => stageOfFamily(f) === 'probes');

const familyBySection = new Map(SECTIONS.map((s) => [s.key, s.family]));

/** The family of a rule id or section key (NFT-09, NFT). */
export function familyOf(idOrSection: string): Family {
  const family = familyBySection.get(idOrSection.split('-')[0]!);
  if (!family) throw new Error(`unknown rule section ${idOrSection}`);
  return family;
}

/** The stage that checks a rule. */
export function stageOf(id: string): Stage {
  return stageOfFamily(familyOf(id));
}

/** The rule ids a stage checks, in catalogue order. */
export function rulesOf(stage: Stage): string[] {
  return RULES.filter((rule) => stageOf(rule.id) === stage).map((rule) => rule.id);
}

const ofSections = (...keys: string[]) => RULES.filter((r) => keys.includes(r.section)).map((r) => r.id);

/**
 * The target file's sections (their titles in schemas/target.schema.json) and the rules that need
 * each: `npm run generate` writes them as the schema's `x-rules`, so a rule's id is typed here once.
 */
export const TARGET_SECTION_RULES: Readonly<Record<string, readonly string[]>> = {
  TargetFile: [],
  ApiSection: ofSections('AUTH'),
  UniversalNetwork: ofSections('UNI'),
  NativeSection: [...ofSections('RPC'), 'UNI-02'],
  NftSection: ofSections('NFT', 'RES'),
  NodesSection: ['NAUTH-07'],
  BlockRestNode: ['NAUTH-01', 'NAUTH-02', 'NAUTH-03', 'NAUTH-07', 'NODE-01'],
  ChainBNode: ['NAUTH-04', 'NAUTH-05', 'NAUTH-06', 'NAUTH-07', 'NODE-02', 'NODE-03', 'NODE-04', 'NODE-05', 'NODE-06'],
  HorizonNode: ['NAUTH-04', 'NODE-07', ...ofSections('RL')],
  Limits: [],
  TlsSection: [],
};
