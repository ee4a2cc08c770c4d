// How the reference's dedicated nodes find and judge an auth token, and the request guard their
// REST paths share. "Node access" lists three forms (Bearer, X-Auth-Token, auth query); each node
// path accepts a subset, which faults and variants change. The reference spells the names itself,
// from the description, rather than importing the suite's auth-form table: a misspelling there is
// then a difference the self-check catches, not a mistake both sides share.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { BodyTooLarge, delay, latencyOf, requestUrl, sendError } from '../http/kit.js';
import type { ReferenceOptions } from '../options.js';

export type NodeTokenForm = 'bearer' | 'x-auth-token' | 'auth-query';

/** Where each form travels ("Node access": `Authorization: Bearer`, `X-Auth-Token`, `?auth=`). */
const NAMES = { bearer: 'authorization', xAuthToken: 'x-auth-token', authQuery: 'auth' } as const;

export const ALL_NODE_TOKEN_FORMS: readonly NodeTokenForm[] = ['bearer', 'x-auth-token', 'auth-query'];

export interface PresentedToken {
  form: NodeTokenForm;
  value: string;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Every token the request carries, in any of the three forms (a request may carry several). An
 * empty value (`Bearer ` with nothing after it, an empty header, `auth=`) is listed with value ''.
 */
export function presentedTokens(headers: IncomingHttpHeaders, url: URL): PresentedToken[] {
  const out: PresentedToken[] = [];
  // The auth scheme is case-insensitive (RFC 9110 11.1); a parser has trimmed the trailing space.
  const bearer = /^bearer(?:[ \t]+(\S*))?\s*$/i.exec(headerValue(headers, NAMES.bearer) ?? '');
  if (bearer) out.push({ form: 'bearer', value: bearer[1] ?? '' });
  const xAuth = headerValue(headers, NAMES.xAuthToken);
  if (xAuth !== undefined) out.push({ form: 'x-auth-token', value: xAuth.trim() });
  const query = url.searchParams.get(NAMES.authQuery);
  if (query !== null) out.push({ form: 'auth-query', value: query });
  return out;
}

/** Constant-time comparison, as a real auth proxy would do (fault: ignoring letter case). */
export function tokenEquals(presented: string, expected: string, caseInsensitive = false): boolean {
  const a = Buffer.from(caseInsensitive ? presented.toLowerCase() : presented);
  const b = Buffer.from(caseInsensitive ? expected.toLowerCase() : expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export type TokenDecision = { ok: true; form: NodeTokenForm | 'none' } | { ok: false; reason: 'missing' | 'wrong' };

export interface TokenPolicy {
  expected: string;
  /** Forms this path reads; a token in any other form is ignored, as if absent. */
  accepted: ReadonlySet<NodeTokenForm>;
  /** Fault `node-missing-token-accepted`: the auth layer only checks a token when one is sent. */
  missingAccepted?: boolean;
  /** Fault `node-token-case-insensitive`: tokens are compared ignoring letter case. */
  caseInsensitive?: boolean;
  /** Fault `node-token-prefix-compare`: a non-empty prefix of the token passes for it. */
  prefixAccepted?: boolean;
  /** Fault `blockrest-empty-token-accepted`: an empty value in these forms means "no auth configured". */
  emptyAccepted?: ReadonlySet<NodeTokenForm>;
  /** Fault `chainb-bearer-any-value`: these forms are only checked for presence. */
  anyValue?: ReadonlySet<NodeTokenForm>;
}

/** The token faults every node shares (the horizon node's and gRPC's too): one auth layer. */
export function sharedTokenFaults(
  opts: Pick<ReferenceOptions, 'faults'>,
): Pick<TokenPolicy, 'missingAccepted' | 'caseInsensitive' | 'prefixAccepted'> {
  return {
    missingAccepted: opts.faults.has('node-missing-token-accepted'),
    caseInsensitive: opts.faults.has('node-token-case-insensitive'),
    prefixAccepted: opts.faults.has('node-token-prefix-compare'),
  };
}

/** The decision for the tokens a request carries: any accepted form with the right value wins. */
export function decideToken(presented: readonly PresentedToken[], policy: TokenPolicy): TokenDecision {
  const empty = presented.find((p) => p.value === '' && policy.emptyAccepted?.has(p.form));
  if (empty) return { ok: true, form: empty.form };
  // An empty value counts as no token.
  const read = presented.filter((p) => p.value !== '' && policy.accepted.has(p.form));
  const good = read.find(
    (p) =>
      policy.anyValue?.has(p.form) ||
      tokenEquals(p.value, policy.expected, policy.caseInsensitive) ||
      (policy.prefixAccepted && policy.expected.startsWith(p.value)),
  );
  if (good) return { ok: true, form: good.form };
  if (read.length > 0) return { ok: false, reason: 'wrong' };
  return policy.missingAccepted ? { ok: true, form: 'none' } : { ok: false, reason: 'missing' };
}

/** HTTP status for a refusal: 401 when no token was read, 403 when the token is not this node's. */
export function refusalStatus(reason: 'missing' | 'wrong'): number {
  return reason === 'missing' ? 401 : 403;
}

export function refusalMessage(reason: 'missing' | 'wrong'): string {
  return reason === 'missing' ? 'auth token required' : 'invalid auth token';
}

/** The JSON refusal every REST node path sends; it carries no data. */
export function sendRefusal(res: ServerResponse, reason: 'missing' | 'wrong', head = false): void {
  sendError(
    res,
    refusalStatus(reason),
    reason === 'missing' ? 'unauthorized' : 'forbidden',
    refusalMessage(reason),
    {},
    head,
  );
}

/** The accepted forms with some removed (a fault's "this proxy ignores that form"). */
export function formsWithout(removed: readonly (NodeTokenForm | false)[]): Set<NodeTokenForm> {
  return new Set(ALL_NODE_TOKEN_FORMS.filter((f) => !removed.includes(f)));
}

/**
 * The request wrapper every REST node path shares: counts the request, applies the configured
 * latency, parses the URL, and turns an unexpected throw into a JSON 500 instead of a hang.
 */
export function nodeHandler(
  opts: ReferenceOptions,
  counter: string,
  route: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void,
) {
  const latency = latencyOf(opts);
  return (req: IncomingMessage, res: ServerResponse): void => {
    opts.counters.hit(counter);
    const url = requestUrl(req.url);
    void delay(latency())
      .then(() => route(req, res, url))
      .catch((e: unknown) => {
        if (res.headersSent) res.destroy();
        // The rest of the body is left unread: close, or the next request on this keep-alive connection hangs.
        else if (e instanceof BodyTooLarge)
          sendError(res, 413, 'payload_too_large', e.message, { connection: 'close' });
        else sendError(res, 500, 'internal', 'internal error');
      });
  };
}
