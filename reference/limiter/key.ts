// Which bucket (per-second cap and GCRA) a request to the horizon node draws on. Conformant: the
// token's, in whatever form it came, so one customer has one quota. The RL-14 faults key it on
// something the client controls instead, as real proxies are found to: the raw query string, a
// client-sent X-Forwarded-For, or only the `auth` query (header tokens skip the limiter).
import type { IncomingHttpHeaders } from 'node:http';
import type { ReferenceOptions } from '../options.js';
import { limiterFault } from '../faults/limiter.js';
import type { NodeTokenForm } from '../nodes/token.js';

/** The bucket's key, or undefined when the request is not limited at all. */
export type LimiterKeyOf = (
  token: string,
  form: NodeTokenForm | 'none',
  url: URL,
  headers: IncomingHttpHeaders,
) => string | undefined;

export function limiterKeyOf(opts: Pick<ReferenceOptions, 'faults'>): LimiterKeyOf {
  if (limiterFault(opts.faults, 'rl-key-query-string')) return (_t, _f, url) => `query ${url.search}`;
  if (limiterFault(opts.faults, 'rl-key-forwarded-for'))
    return (token, form, _u, headers) =>
      `${form === 'none' ? '' : token} from ${String(headers['x-forwarded-for'] ?? '')}`;
  if (limiterFault(opts.faults, 'rl-key-query-only'))
    return (token, form) => (form === 'auth-query' ? token : form === 'none' ? '' : undefined);
  return (token, form) => (form === 'none' ? '' : token);
}
