// API-key authentication of {base_url} and {legacy_base_url}, as the description lists it:
// new keys on base by Bearer and X-API-Key, legacy keys on legacy by the apiKey query and
// Bearer. Choices where the description is silent (documented in API_VARIANTS):
// - missing credentials: 401 (`missing-credentials-403`: 403); unknown key: 403;
// - a new key in the apiKey query on base: accepted, as the NFT tutorials show;
// - cross-generation keys and X-API-Key with a legacy key on legacy: 403;
// - several credentials at once: the first present in the order Authorization, X-API-Key,
//   apiKey query decides alone (a valid key further down does not rescue a bad one).
import type { IncomingMessage } from 'node:http';
import { apiFault } from '../faults/api.js';
import type { ReferenceOptions } from '../options.js';
import { apiVariant } from './variants.js';

export type ServerKind = 'base' | 'legacy';
export type RouteKind = 'universal' | 'native' | 'nft';
export type CredentialForm = 'bearer' | 'x-api-key' | 'apikey-query';

/** `empty`: the form whose value was empty, when that is what made it malformed. */
export type Presented =
  { form: CredentialForm; key: string } | { form: 'malformed'; reason: string; empty?: CredentialForm } | undefined;

export type AuthDecision = { ok: true } | { ok: false; status: number; code: string; message: string };

export interface AuthRequest {
  server: ServerKind;
  route: RouteKind;
  /** Header names as sent (node:http lowercases `headers`; rawHeaders keeps the case). */
  rawHeaders: readonly string[];
  /** The query string without `?`, as sent. */
  rawQuery: string;
}

export function authRequestOf(
  req: IncomingMessage,
  server: ServerKind,
  route: RouteKind,
  rawQuery: string,
): AuthRequest {
  return { server, route, rawHeaders: req.rawHeaders, rawQuery };
}

/** First value of a header; `exactName` compares the name as sent instead of case-insensitively. */
function headerValue(rawHeaders: readonly string[], name: string, exactName = false): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const n = rawHeaders[i]!;
    if (exactName ? n === name : n.toLowerCase() === name.toLowerCase()) return rawHeaders[i + 1];
  }
  return undefined;
}

function queryKey(a: AuthRequest, opts: Pick<ReferenceOptions, 'faults'>): string | undefined {
  if (apiFault(opts, 'apikey-query-first-param-only')) {
    // The faulty gateway matches the literal prefix `apiKey=` of the query string.
    const m = /^apiKey=([^&]*)/.exec(a.rawQuery);
    return m ? safeDecode(m[1]!) : undefined;
  }
  return new URLSearchParams(a.rawQuery).get('apiKey') ?? undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The credential that decides the request (see the precedence above), as this server reads it. */
export function presentedCredential(a: AuthRequest, opts: Pick<ReferenceOptions, 'faults'>): Presented {
  const bearerIgnored =
    a.server === 'base' ? apiFault(opts, 'bearer-rejected-on-base') : apiFault(opts, 'legacy-bearer-rejected');
  const authorization = bearerIgnored ? undefined : headerValue(a.rawHeaders, 'authorization');
  if (authorization !== undefined) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return m
      ? { form: 'bearer', key: m[1]! }
      : { form: 'malformed', reason: 'Authorization must be "Bearer <API key>"' };
  }
  const xApiKeyIgnored = a.server === 'base' && apiFault(opts, 'xapikey-rejected');
  const xApiKey = xApiKeyIgnored
    ? undefined
    : headerValue(a.rawHeaders, 'X-API-Key', apiFault(opts, 'xapikey-case-sensitive'));
  if (xApiKey !== undefined)
    return xApiKey.trim()
      ? { form: 'x-api-key', key: xApiKey.trim() }
      : { form: 'malformed', reason: 'X-API-Key is empty' };
  const queryIgnored =
    (a.route === 'universal' && apiFault(opts, 'block-number-query-key-ignored')) ||
    (a.server === 'legacy' && a.route !== 'universal' && apiFault(opts, 'legacy-query-rejected'));
  const q = queryIgnored ? undefined : queryKey(a, opts);
  if (q !== undefined)
    return q
      ? { form: 'apikey-query', key: q }
      : { form: 'malformed', reason: 'apiKey is empty', empty: 'apikey-query' };
  return undefined;
}

/** Fault key-prefix-compare: only the first 12 characters are compared. */
const PREFIX_COMPARED = 12;

function keyMatches(presented: string, expected: string, opts: Pick<ReferenceOptions, 'faults'>): boolean {
  if (apiFault(opts, 'key-prefix-compare'))
    return presented.slice(0, PREFIX_COMPARED) === expected.slice(0, PREFIX_COMPARED);
  // Fault key-unanchored-match: `^<key>` without `$`, so whatever follows the key is ignored.
  if (apiFault(opts, 'key-unanchored-match')) return presented.startsWith(expected);
  return presented === expected;
}

const refuse = (status: number, code: string, message: string): AuthDecision => ({ ok: false, status, code, message });

/** Forms each server accepts for the key generation it is built for. */
const OWN_FORMS: Record<ServerKind, readonly CredentialForm[]> = {
  base: ['bearer', 'x-api-key', 'apikey-query'],
  legacy: ['apikey-query', 'bearer'],
};

export function decideAuth(
  a: AuthRequest,
  opts: Pick<ReferenceOptions, 'faults' | 'variants' | 'credentials'>,
): AuthDecision {
  const p = presentedCredential(a, opts);
  if (p === undefined) {
    if (a.server === 'base' && apiFault(opts, 'no-auth-serves-data')) return { ok: true };
    const status = apiVariant(opts, 'missing-credentials-403') ? 403 : 401;
    return refuse(status, 'missing_credentials', 'an API key is required (Authorization: Bearer, X-API-Key or apiKey)');
  }
  if (p.form === 'malformed') {
    // Fault legacy-empty-apikey-accepted: an empty apiKey reads as "no auth configured".
    if (p.empty === 'apikey-query' && a.server === 'legacy' && apiFault(opts, 'legacy-empty-apikey-accepted'))
      return { ok: true };
    return refuse(401, 'invalid_credentials', p.reason);
  }
  // Fault base-apikey-query-any-value: the undocumented query form is only checked for presence.
  if (p.form === 'apikey-query' && a.server === 'base' && apiFault(opts, 'base-apikey-query-any-value'))
    return { ok: true };
  const generation = keyMatches(p.key, opts.credentials.apiKey, opts)
    ? 'base'
    : keyMatches(p.key, opts.credentials.legacyApiKey, opts)
      ? 'legacy'
      : undefined;
  if (generation === undefined) {
    return apiFault(opts, 'unknown-key-accepted')
      ? { ok: true }
      : refuse(403, 'invalid_api_key', 'the API key is not valid');
  }
  if (generation !== a.server && !apiVariant(opts, 'cross-generation-accepted')) {
    const which =
      generation === 'base'
        ? 'a new API key belongs on the base URL'
        : 'a legacy API key belongs on the legacy base URL';
    return refuse(403, 'wrong_key_generation', which);
  }
  let forms = OWN_FORMS[a.server];
  if (a.server === 'base' && apiVariant(opts, 'new-key-query-refused'))
    forms = forms.filter((f) => f !== 'apikey-query');
  if (a.server === 'legacy' && apiVariant(opts, 'legacy-xapikey-accepted')) forms = [...forms, 'x-api-key'];
  if (!forms.includes(p.form))
    return refuse(403, 'credential_form_not_accepted', `this base URL does not accept the API key as ${p.form}`);
  return { ok: true };
}
