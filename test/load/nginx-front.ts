// Debian's nginx in front of the reference's horizon node, the way such nodes are deployed: the
// proxy enforces the per-second cap with `limit_req` (keyed on the token in `auth`), the node behind
// it runs only the GCRA (its own cap switched off). Two fronts: `strict` (no burst: a request less
// than 50 ms after the last accepted one is refused) and `nodelay` (`burst=19 nodelay`: up to 39
// accepted in the first second, an RL-10 violation). nginx does not limit a request whose key is
// empty: behind either front, a node that also takes the token in a header lets it past the cap.
import { startHorizonNode } from '../../reference/nodes/horizon.js';
import { defaultOptions, type ReferenceOptions } from '../../reference/options.js';
import { startNginx, type Nginx } from '../support/nginx.js';

export interface NginxFront {
  strict: string;
  nodelay: string;
  /** The node behind both fronts, and its token. */
  node: string;
  token: string;
  options: ReferenceOptions;
  nginx: Nginx;
  close(): Promise<void>;
}

export const LIMIT_REQ = {
  strict: 'limit_req zone=strict;',
  nodelay: 'limit_req zone=nodelay burst=19 nodelay;',
} as const;

export async function startNginxFront(partial: Partial<ReferenceOptions> = {}): Promise<NginxFront> {
  const options = defaultOptions({ perSecondCap: Infinity, ...partial });
  const node = await startHorizonNode(options);
  const up = node.endpoint.replace(/^http:\/\//, '');
  const server = (port: number, limit: string) => `
  server {
    listen 127.0.0.1:${port};
    location / {
      ${limit}
      proxy_pass http://horizon;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }`;
  let nginx: Nginx;
  try {
    nginx = await startNginx({
      listeners: 2,
      http: ([strict, nodelay]) => `
  limit_req_zone $arg_auth zone=strict:1m rate=20r/s;
  limit_req_zone $arg_auth zone=nodelay:1m rate=20r/s;
  limit_req_status 429;
  # nginx drops an idle upstream connection before the node does (its keepAliveTimeout is 30 s):
  # one the node closed while nginx sent on it would be a 502 that reached neither side's count.
  upstream horizon { server ${up}; keepalive 16; keepalive_timeout 20s; }
${server(strict!, LIMIT_REQ.strict)}
${server(nodelay!, LIMIT_REQ.nodelay)}`,
    });
  } catch (e) {
    await node.close();
    throw e;
  }
  const [strict, nodelay] = nginx.ports;
  return {
    strict: `http://127.0.0.1:${strict}`,
    nodelay: `http://127.0.0.1:${nodelay}`,
    node: node.endpoint,
    token: options.credentials.horizonToken,
    options,
    nginx,
    close: async () => {
      await nginx.stop();
      await node.close();
    },
  };
}
