// How the reference's dedicated nodes find and judge an auth token, and the request guard their
// REST paths share. "Node access" lists three forms (Bearer, X-Auth-Token, auth query); each node
// path accepts a subset, which faults and variants change. Names come from the shared AUTH_FORMS
// table so no header is spelled twice.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { AUTH_FORMS } from '../../src/auth/forms.js';
import { BodyTooLarge, delay, latencyOf, requestUrl, sendError } from '../http/kit.js';
import type { ReferenceOptions } from '../options.js';

export type NodeTokenForm = 'bearer' | 'x-auth-token' | 'auth-query';

export const ALL_NODE_TOKEN_FORMS: readonly NodeTokenForm[] = ['bearer', 'x-auth-token', 'auth-query'];

export interface PresentedToken {
  form: NodeTokenForm;
  value: string;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Every token the request carries, in any of the three forms (a request may carry several). */
export function presentedTokens(headers: IncomingHttpHeaders, url: URL): PresentedToken[] {
  const out: PresentedToken[] = [];
  // The auth scheme is case-insensitive (RFC 9110 11.1).
  const bearer = /^bearer[ \t]+(\S+)\s*$/i.exec(headerValue(headers, AUTH_FORMS.bearer.name) ?? '');
  if (bearer?.[1]) out.push({ form: 'bearer', value: bearer[1] });
  const xAuth = headerValue(headers, AUTH_FORMS['x-auth-token'].name);
  if (xAuth) out.push({ form: 'x-auth-token', value: xAuth.trim() });
  const query = url.searchParams.get(AUTH_FORMS['auth-query'].name);
  if (query) out.push({ form: 'auth-query', value: query });
  return out;
}

/** Constant-time comparison, as a real auth proxy would do. */
export function tokenEquals(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export type TokenDecision = { ok: true; form: NodeTokenForm | 'none' } | { ok: false; reason: 'missing' | 'wrong' };

export interface TokenPolicy {
  expected: string;
  /** Forms this path reads; a token in any other form is ignored, as if absent. */
  accepted: ReadonlySet<NodeTokenForm>;
  /** Fault `node-missing-token-accepted`: the auth layer only checks a token when one is sent. */
  missingAccepted?: boolean;
}

/** The decision for the tokens a request carries: any accepted form with the right value wins. */
export function decideToken(presented: readonly PresentedToken[], policy: TokenPolicy): TokenDecision {
  const read = presented.filter((p) => policy.accepted.has(p.form));
  const good = read.find((p) => tokenEquals(p.value, policy.expected));
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
  sendError(res, refusalStatus(reason), reason === 'missing' ? 'unauthorized' : 'forbidden', refusalMessage(reason), {}, head);
}

/** The accepted forms with some removed (a fault's "this proxy ignores that form"). */
export function formsWithout(removed: readonly (NodeTokenForm | false)[]): Set<NodeTokenForm> {
  return new Set(ALL_NODE_TOKEN_FORMS.filter((f) => !removed.includes(f)));
}

/**
 * The request wrapper every REST node path shares: counts the request, applies the configured
 * latency, parses the URL, and turns an unexpected throw into a JSON 500 instead of a hang.
 */
export function nodeHandler(opts: ReferenceOptions, counter: string, route: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void) {
  const latency = latencyOf(opts);
  return (req: IncomingMessage, res: ServerResponse): void => {
    opts.counters.hit(counter);
    const url = requestUrl(req.url);
    void delay(latency())
      .then(() => route(req, res, url))
      .catch((e: unknown) => {
        if (res.headersSent) res.destroy();
        // The rest of the body is left unread: close, or the next request on this keep-alive connection hangs.
        else if (e instanceof BodyTooLarge) sendError(res, 413, 'payload_too_large', e.message, { connection: 'close' });
        else sendError(res, 500, 'internal', 'internal error');
      });
  };
}
