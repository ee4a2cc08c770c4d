// Pushing a run's metrics to a Prometheus Pushgateway at its end: one group per deployment, job
// `chainprobe`, grouped by `target` (PUT /metrics/job/chainprobe/target/<name>, so each push
// replaces that deployment's previous run and leaves the others). For CI jobs and Kubernetes jobs
// nobody scrapes. Credentials come from the environment only (PUSHGATEWAY_ENV), never from the URL
// or a flag, and are never printed: a failure names the gateway by its origin and path.
import { request } from 'undici';
import { classify } from '../net/causes.js';
import { authorizationOf, gatewayName, groupUrl } from './gateway.js';

export interface PushGroup {
  target: string;
  /** The group's text exposition. */
  text: string;
}

export interface PushOptions {
  env?: NodeJS.ProcessEnv;
  contentType: string;
  timeoutMs?: number;
}

/**
 * PUTs every group; resolves undefined when the gateway took them all, else the one line that says
 * why not (naming the gateway and the cause, never a credential).
 */
export async function pushGroups(
  gateway: string,
  groups: readonly PushGroup[],
  opts: PushOptions,
): Promise<string | undefined> {
  const auth = authorizationOf(opts.env ?? process.env);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const name = gatewayName(gateway);
  for (const g of groups) {
    try {
      const res = await request(groupUrl(gateway, g.target), {
        method: 'PUT',
        headers: { 'content-type': opts.contentType, ...(auth && { authorization: auth }) },
        body: g.text,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await res.body.text();
      if (res.statusCode >= 200 && res.statusCode < 300) continue;
      const said = body.split('\n')[0]!.trim().slice(0, 200);
      return `${name}: the Pushgateway answered HTTP ${res.statusCode}${said ? ` (${said})` : ''}`;
    } catch (e) {
      const where = (() => {
        const u = new URL(gateway);
        return `${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
      })();
      const cause = classify(e, where)?.line ?? causeText(e, timeoutMs);
      return `${name}: ${cause}`;
    }
  }
  return undefined;
}

function causeText(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.code === 'UND_ERR_HEADERS_TIMEOUT' || err?.code === 'UND_ERR_BODY_TIMEOUT')
    return `no answer within ${timeoutMs / 1000} s`;
  const code = err?.code ?? err?.cause?.code;
  const message = (err?.cause?.message ?? err?.message ?? String(e)).split('\n')[0];
  return code ? `${message} (${code})` : message!;
}
