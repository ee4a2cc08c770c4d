// The ways RL-14's probes vary a request while it keeps the token, and so its quota: the token in
// another form the description leaves open on fee_stats (NAUTH-04), a query parameter besides it
// (after it, or before it: another order), and the client-address headers a proxy may trust. Each
// varies one thing; the plain request carries the token in `auth` and nothing else.
import { NODE_TOKEN_USAGES, type FormId } from '../src/auth/forms.js';
import type { RequestVariation } from './engine/types.js';

export type VariationKind = 'form' | 'query' | 'client-address';

/** What a Sample records of its variation (never a value that could be a secret). */
export interface VariationTag {
  /** Stable: `form:bearer`, `query:extra`, `query:reordered`, `client:all`, `client:x-real-ip`, ... */
  id: string;
  kind: VariationKind;
  /** What it varies, in words. */
  label: string;
}

export interface Variation extends VariationTag {
  request: RequestVariation;
}

/** The form the plain request uses: the one NAUTH-04 requires on fee_stats. */
export const PLAIN_FORM: FormId = 'auth-query';

/** The other forms of "Node access" on fee_stats (observed by NAUTH-04): the token alone in each. */
export const OTHER_TOKEN_FORMS: readonly FormId[] = NODE_TOKEN_USAGES.filter(
  (u) => u.path === 'feeStats' && u.form !== PLAIN_FORM,
).map((u) => u.form);

/** The client-address headers penetration testers try first on a limiter keyed by client address. */
export const CLIENT_ADDRESS_HEADERS = [
  'X-Forwarded-For',
  'X-Real-IP',
  'X-Originating-IP',
  'Client-IP',
  'True-Client-IP',
] as const;

/** RFC 5737 documentation networks: addresses that belong to no client. */
const DOCUMENTATION_NETS = ['192.0.2', '198.51.100', '203.0.113'] as const;

/** The name of the query parameter the probes add: a cache-buster's, meaningless to the node. */
export const EXTRA_PARAM = '_';

const pick = <T>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length) % list.length]!;

export const documentationAddress = (rnd: () => number): string =>
  `${pick(rnd, DOCUMENTATION_NETS)}.${1 + Math.floor(rnd() * 254)}`;

const nonce = (rnd: () => number): string =>
  Array.from({ length: 4 }, () =>
    Math.floor(rnd() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');

export function tokenForm(form: FormId): Variation {
  return { id: `form:${form}`, kind: 'form', label: `the token as ${formWords(form)} only`, request: { form } };
}

function formWords(form: FormId): string {
  return form === 'bearer' ? 'Authorization: Bearer' : form === 'x-auth-token' ? 'X-Auth-Token' : form;
}

/** `?auth=<token>&_=<random>`. */
export function extraParam(rnd: () => number): Variation {
  return {
    id: 'query:extra',
    kind: 'query',
    label: `an extra query parameter (&${EXTRA_PARAM}=<random>)`,
    request: { params: [[EXTRA_PARAM, nonce(rnd)]] },
  };
}

/** `?_=<random>&auth=<token>`: the parameters in another order (there is only one without the extra). */
export function reorderedParams(rnd: () => number): Variation {
  return {
    id: 'query:reordered',
    kind: 'query',
    label: `the query parameters in another order (?${EXTRA_PARAM}=<random>&auth=...)`,
    request: { params: [[EXTRA_PARAM, nonce(rnd)]], paramsFirst: true },
  };
}

/** All client-address headers at once (`client:all`), or one of them. */
export function clientAddress(rnd: () => number, names: readonly string[] = CLIENT_ADDRESS_HEADERS): Variation {
  const one = names.length === 1;
  return {
    id: one ? `client:${names[0]!.toLowerCase()}` : 'client:all',
    kind: 'client-address',
    label: one
      ? `a client-sent ${names[0]} with a documentation address`
      : `client-address headers (${names.join(', ')}) with documentation addresses`,
    request: { headers: Object.fromEntries(names.map((n) => [n, documentationAddress(rnd)])) },
  };
}

/** What the phase after the drain's first 429 sends: each other token form, both query variations, all client headers. */
export function integrityVariations(rnd: () => number): Variation[] {
  return [...OTHER_TOKEN_FORMS.map(tokenForm), extraParam(rnd), reorderedParams(rnd), clientAddress(rnd)];
}

/** The client headers one by one: sent only when all of them together got through (to name which). */
export function singleClientAddresses(rnd: () => number): Variation[] {
  return CLIENT_ADDRESS_HEADERS.map((h) => clientAddress(rnd, [h]));
}

/**
 * The token alone in each other form, once, in place of the drain's first plain requests (its
 * lead-in, under the cap while quota is plentiful). Where the forms share the token's bucket they
 * drain it as the plain ones would; their answers are the node's own to these forms with quota left,
 * which the horizon node's contract checks judge (ProbeAnswer) instead of waiting a whole T each for
 * quota after the probes, and which RL-14 judges like any varied request.
 */
export function leadInVariations(): Variation[] {
  return OTHER_TOKEN_FORMS.map(tokenForm);
}

/**
 * RL-14's cap part (load/probes/drain.ts). With the burst above the cap: the token in a header form
 * (a cap keyed on the `auth` argument does not count it). Behind a proxy that spaces requests,
 * between the first requests under the cap: header forms and a varying parameter by turns (a cap
 * keyed on the whole query string counts each as new), five of each in consecutive gaps, so that
 * either kind alone, let through, puts more than the cap into the second around them even when a
 * busy client fits only 16 plain requests into it.
 */
export function capVariations(rnd: () => number): { burst: Variation[]; underCap: Variation[] } {
  const headers = OTHER_TOKEN_FORMS.map(tokenForm);
  const header = headers.find((v) => v.request.form === 'x-auth-token') ?? headers[0];
  const byTurns = [0, 1, 2, 3, 4].flatMap((i) => [
    ...(headers.length ? [headers[(headers.indexOf(header!) + i) % headers.length]!] : []),
    extraParam(rnd),
  ]);
  return { burst: header ? [header] : [extraParam(rnd)], underCap: byTurns };
}

export const tagOf = (v: Variation): VariationTag => ({ id: v.id, kind: v.kind, label: v.label });
