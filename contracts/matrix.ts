// The auth matrix as data: the API endpoints of the target (universal, native, NFT), crossed with
// the key usages of src/auth/forms.ts (API_KEY_USAGES) and the forms probed with wrong keys. auth.spec.ts turns
// each (endpoint, group of usages) into one test; nothing here is written per endpoint twice.
import { API_KEY_USAGES, type BaseKind, type FormId, type KeyKind, type KeyUsage } from '../src/auth/forms.js';
import type { ResolvedApi, ResolvedTarget } from '../src/target-file/types.js';
import { readBlockNumber } from './block-number.js';
import type { AssetRef, RarityFirstPage } from './samples.js';
import { JSON_HEADERS, PATHS } from './urls.js';
import { get, isObject } from './json.js';

export type ApiFamily = 'universal' | 'native' | 'nft';

export interface ApiEndpoint {
  /** Stable id used in check ids, e.g. `nft.asset`, `native[sepolia]`. */
  id: string;
  family: ApiFamily;
  method: 'GET' | 'POST';
  /** Path and query relative to a base URL; the asset endpoint needs a discovered asset. */
  path(asset?: AssetRef): string;
  needsAsset: boolean;
  body?: string;
  headers?: Record<string, string>;
  /** The URL has a query string of its own, so apiKey is joined with `&` (AUTH-06). */
  hasQuery: boolean;
  /** Whether a 2xx body carries the resource: what "data" means for this endpoint. */
  isData(json: unknown): boolean;
  /** AUTH-06: the endpoint's own query parameters took effect; a problem line, or undefined. */
  honoured?(json: unknown, ctx: { asset?: AssetRef; firstPage?: RarityFirstPage }): string | undefined;
}

export function rpcBody(method: string, id: number | string = 1, params: unknown[] = []): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** Every API endpoint the target lets the suite call, in a stable order. */
export function apiEndpoints(t: ResolvedTarget): ApiEndpoint[] {
  const api = t.api;
  if (!api) return [];
  const out: ApiEndpoint[] = [];
  for (const u of api.universal) {
    out.push({
      id: `universal[${u.protocol}/${u.network}]`,
      family: 'universal',
      method: 'GET',
      path: () => PATHS.blockNumber(u.protocol, u.network),
      needsAsset: false,
      hasQuery: false,
      isData: (json) => readBlockNumber(json) !== undefined,
    });
  }
  if (api.native) {
    const n = api.native;
    for (const network of n.networks) {
      out.push({
        id: `native[${network}]`,
        family: 'native',
        method: 'POST',
        path: () => PATHS.native(n.protocol, network),
        needsAsset: false,
        body: rpcBody(n.blockNumberMethod),
        headers: { ...JSON_HEADERS },
        hasQuery: false,
        isData: (json) => isObject(json) && Object.hasOwn(json, 'result'),
      });
    }
  }
  const nft = api.nft;
  if (nft) {
    const eventId = nft.eventIds[0];
    if (eventId) {
      out.push({
        id: 'nft.event',
        family: 'nft',
        method: 'GET',
        path: () => PATHS.event(nft, eventId),
        needsAsset: false,
        hasQuery: false,
        isData: (j) => isObject(get(j, 'data')),
      });
    }
    const collectionId = nft.collectionId;
    if (collectionId) {
      out.push({
        id: 'nft.collection',
        family: 'nft',
        method: 'GET',
        path: () => PATHS.collection(nft, collectionId),
        needsAsset: false,
        hasQuery: false,
        isData: (j) => isObject(get(j, 'collection')),
      });
    }
    if (collectionId || eventId) {
      out.push({
        id: 'nft.asset',
        family: 'nft',
        method: 'GET',
        path: (a) => PATHS.asset(nft, a?.contract_address ?? '', a?.token_id ?? ''),
        needsAsset: true,
        hasQuery: true,
        isData: (j) => isObject(get(j, 'asset')),
        honoured: (j, { asset }) => {
          const got = get(j, 'asset');
          const c = get(got, 'contract_address');
          const tok = get(got, 'token_id');
          return asset && c === asset.contract_address && tok === asset.token_id
            ? undefined
            : `the asset answered is ${String(c)}/${String(tok)}, not the contract_address/token_id asked for`;
        },
      });
    }
    if (collectionId) {
      out.push({
        id: 'nft.rarity',
        family: 'nft',
        method: 'GET',
        path: () => PATHS.rarity(nft, collectionId),
        needsAsset: false,
        hasQuery: true,
        isData: (j) => Array.isArray(get(j, 'data')) && (get(j, 'data') as unknown[]).length > 0,
        honoured: (j, { firstPage }) => {
          const ids = (get(j, 'data') as unknown[]).map((item) => get(item, 'id'));
          if (!firstPage) return 'no first page read the documented way to compare with';
          const same = ids.length === firstPage.ids.length && ids.every((id, i) => id === firstPage.ids[i]);
          return same
            ? undefined
            : 'the first page differs from the one read the documented way (sort_by or the collection was not applied)';
        },
      });
    }
  }
  return out;
}

// ---- Usages, grouped by (key, base): one test per endpoint and group.

export interface UsageGroup {
  key: KeyKind;
  base: BaseKind;
  label: string;
  usages: KeyUsage[];
}

const KEY_LABEL: Record<KeyKind, string> = { newKey: 'new key', legacyKey: 'legacy key' };
const BASE_LABEL: Record<BaseKind, string> = { base: 'base URL', legacy: 'legacy base URL' };

export function usageGroups(usages: readonly KeyUsage[] = API_KEY_USAGES): UsageGroup[] {
  const groups = new Map<string, UsageGroup>();
  for (const u of usages) {
    const k = `${u.key}@${u.base}`;
    let g = groups.get(k);
    if (!g)
      groups.set(
        k,
        (g = { key: u.key, base: u.base, label: `${KEY_LABEL[u.key]} on the ${BASE_LABEL[u.base]}`, usages: [] }),
      );
    g.usages.push(u);
  }
  return [...groups.values()];
}

/** The rules one usage checks on one endpoint: its own, plus AUTH-12 and AUTH-06 where they apply. */
export function usageRules(
  ep: ApiEndpoint,
  u: KeyUsage,
): { rule: string; expect: KeyUsage['expect']; honoured?: boolean }[] {
  const out: { rule: string; expect: KeyUsage['expect']; honoured?: boolean }[] = [{ rule: u.rule, expect: u.expect }];
  if (u.form === 'apikey-query' && ep.family === 'universal') out.push({ rule: 'AUTH-12', expect: u.expect });
  if (u.form === 'apikey-query' && u.expect === 'accept' && ep.hasQuery)
    out.push({ rule: 'AUTH-06', expect: 'accept', honoured: true });
  return out;
}

export function groupRules(ep: ApiEndpoint, g: UsageGroup): string[] {
  return [...new Set(g.usages.flatMap((u) => usageRules(ep, u).map((r) => r.rule)))];
}

// ---- Refusals: no credentials (AUTH-07), and wrong keys in every accepted form (AUTH-07/08).

export interface Refusal {
  base: BaseKind;
}

export const NO_CREDENTIALS: readonly Refusal[] = [{ base: 'base' }, { base: 'legacy' }];

/** Each base's own key generation: the key its near misses are made from. */
export const OWN_KEY: Record<BaseKind, KeyKind> = { base: 'newKey', legacy: 'legacyKey' };

/**
 * The forms a base gets wrong keys in, once its own key was accepted there with the right value
 * (documented, or observed like apiKey on {base_url}). The X-API-Key spellings are one form.
 */
export const PROBED_FORMS: Record<BaseKind, readonly FormId[]> = {
  base: ['bearer', 'x-api-key', 'apikey-query'],
  legacy: ['apikey-query', 'bearer', 'x-api-key'],
};

/** The form a usage's answer tells about: its own key generation in a probed form. */
export function probedFormOf(u: KeyUsage): FormId | undefined {
  return u.key === OWN_KEY[u.base] && PROBED_FORMS[u.base].includes(u.form) ? u.form : undefined;
}

/** Every wrong-key kind on the first endpoint of each family; one rotating kind elsewhere. */
export function fullEndpoint(eps: readonly ApiEndpoint[], ep: ApiEndpoint): boolean {
  return eps.find((e) => e.family === ep.family) === ep;
}

/** A stable position of (endpoint, base, form), so the rotating kind moves along the matrix. */
export function rotationIndex(eps: readonly ApiEndpoint[], ep: ApiEndpoint, base: BaseKind, form: FormId): number {
  return (
    (eps.indexOf(ep) * 2 + (base === 'base' ? 0 : 1)) * PROBED_FORMS[base].length + PROBED_FORMS[base].indexOf(form)
  );
}

export function baseUrlOf(api: ResolvedApi, base: BaseKind): string | undefined {
  return base === 'base' ? api.baseUrl : api.legacyBaseUrl;
}

export function keyOf(api: ResolvedApi, key: KeyKind): string | undefined {
  return key === 'newKey' ? api.apiKey : api.legacyApiKey;
}

export function missingFor(api: ResolvedApi, base: BaseKind, key?: KeyKind): string | undefined {
  if (!baseUrlOf(api, base)) return `target has no api.${base === 'base' ? 'baseUrl' : 'legacyBaseUrl'}`;
  if (key && !keyOf(api, key)) return `target has no api.${key === 'newKey' ? 'apiKey' : 'legacyApiKey'}`;
  return undefined;
}
