// Test client for the reference API servers: node:http, because fetch lowercases header names
// and the X-API-Key letter-case tests must send them exactly as written.
import { request, type IncomingHttpHeaders } from 'node:http';
import { applyForm, type FormId } from '../../src/auth/forms.js';
import { startApiServers, type ApiServers } from '../../reference/api/index.js';
import { defaultOptions, type ReferenceOptions } from '../../reference/options.js';
import { SLOW_MACHINE_MS } from '../support/backstops.js';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed body when it is JSON, else undefined. */
  json: any;
}

export interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export function call(url: string, init: CallInit = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, timeout: SLOW_MACHINE_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${init.method ?? 'GET'} ${url}`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Running servers plus shorthands for authenticated calls. */
export interface Fixture {
  s: ApiServers;
  opts: ReferenceOptions;
  /** GET/POST on {base_url} with the new key as Bearer (or another form). */
  base(path: string, init?: CallInit, form?: FormId, key?: string): Promise<Answer>;
  /** Same on {legacy_base_url} with the legacy key in the apiKey query. */
  legacy(path: string, init?: CallInit, form?: FormId, key?: string): Promise<Answer>;
  /** One JSON-RPC POST body (already serialised) to a native network of base. */
  rpc(network: string, body: string, headers?: Record<string, string>): Promise<Answer>;
  nft(path: string, init?: CallInit): Promise<Answer>;
  close(): Promise<void>;
}

/** `baseForm`: how `base`/`nft`/`rpc` authenticate by default (a fault may break Bearer). */
export async function startFixture(
  partial: Partial<ReferenceOptions> = {},
  baseForm: FormId = 'bearer',
): Promise<Fixture> {
  const opts = defaultOptions(partial);
  const s = await startApiServers(opts);
  const authed =
    (root: string, defForm: FormId, defKey: string) =>
    (path: string, init: CallInit = {}, form = defForm, key = defKey) => {
      const a = applyForm(form, key, root + path, init.headers ?? {});
      return call(a.url, { ...init, headers: a.headers });
    };
  const base = authed(s.baseUrl, baseForm, opts.credentials.apiKey);
  return {
    s,
    opts,
    base,
    legacy: authed(s.legacyBaseUrl, 'apikey-query', opts.credentials.legacyApiKey),
    rpc: (network, body, headers = { 'Content-Type': 'application/json' }) =>
      base(`/${s.native.protocol}/${network}/native`, { method: 'POST', body, headers }),
    nft: (path, init) => base(`/nft/v1/${s.nft.protocol}/${s.nft.network}${path}`, init),
    close: () => s.close(),
  };
}

export const rpcBody = (method: string, id: unknown = 1, params: unknown[] = []): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
