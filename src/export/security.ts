// Security schemes of the exported OpenAPI document, drawn from the credential tables of
// src/auth/forms.ts: one scheme per server kind and credential form the description documents,
// each naming its rules; the forms the description leaves open are listed beside them, with the
// rule that observes them, and are never offered as documented.
import {
  API_KEY_USAGES,
  AUTH_FORMS,
  NODE_TOKEN_USAGES,
  type Expectation,
  type FormId,
  type KeyKind,
  type NodePath,
} from '../auth/forms.js';
import type { ServerKind } from '../service/endpoints.js';
import { pascal } from './components.js';
import { sortRules } from './rules.js';

export interface SecurityScheme {
  type: 'http' | 'apiKey';
  scheme?: 'bearer';
  in?: 'header' | 'query';
  name?: string;
  description: string;
  'x-source': string;
  'x-rules': string[];
}

/** A form the description leaves open where it was used: recorded by chainprobe, never required. */
export interface OpenForm {
  server: ServerKind;
  credential: string;
  in: 'header' | 'query';
  name: string;
  rule: string;
}

interface Usage {
  server: ServerKind;
  credential: 'newKey' | 'legacyKey' | 'nodeToken';
  form: FormId;
  expect: Expectation;
  rule: string;
  nodePath?: NodePath;
}

const CREDENTIAL: Record<Usage['credential'], string> = {
  newKey: 'a new API key (created after August 2022)',
  legacyKey: 'a legacy API key (created before September 2022, or Enterprise tier)',
  nodeToken: "the node's Auth Token",
};

const SERVER_WORDS: Record<ServerKind, string> = {
  base: 'on {base_url}',
  legacy: 'on {legacy_base_url}',
  node: 'on the node',
};

const NOT_HTTP = new Set<NodePath>(['websocket', 'grpc']);

/** Every HTTP credential use of the tables (WebSocket and gRPC forms are listed with their transports). */
function usages(): Usage[] {
  const api: Usage[] = API_KEY_USAGES.map((u) => ({
    server: u.base === 'base' ? 'base' : 'legacy',
    credential: u.key satisfies KeyKind,
    form: u.form,
    expect: u.expect,
    rule: u.rule,
  }));
  const node: Usage[] = NODE_TOKEN_USAGES.filter((u) => !NOT_HTTP.has(u.path)).map((u) => ({
    server: 'node',
    credential: 'nodeToken',
    form: u.form,
    expect: u.expect,
    rule: u.rule,
    nodePath: u.path,
  }));
  return [...api, ...node];
}

/** The spelling variants of a form (X-API-Key in other letter cases) share its scheme. */
const canonical = (form: FormId): FormId => form.split(':')[0] as FormId;

export const schemeName = (server: ServerKind, form: FormId): string =>
  `${server}${pascal(canonical(form).replace(/^ws-/, ''))}`;

function schemeOf(u: Usage): Omit<SecurityScheme, 'x-rules'> {
  const form = AUTH_FORMS[canonical(u.form)];
  const where = `${CREDENTIAL[u.credential]} ${SERVER_WORDS[u.server]}`;
  if (form.name === 'Authorization')
    return { type: 'http', scheme: 'bearer', description: `Bearer token: ${where}.`, 'x-source': form.source };
  const at = form.transport === 'query' ? 'query' : 'header';
  return {
    type: 'apiKey',
    in: at,
    name: form.name,
    description: `${at === 'query' ? 'Query parameter' : 'Header'} ${form.name}: ${where}.${
      canonical(u.form) === 'x-api-key' ? ' The header name is accepted in any letter case.' : ''
    }`,
    'x-source': form.source,
  };
}

/** Every documented scheme, by name, with the rules that check it. */
export function securitySchemes(): Record<string, SecurityScheme> {
  const out = new Map<string, SecurityScheme>();
  for (const u of usages().filter((x) => x.expect === 'accept')) {
    const name = schemeName(u.server, u.form);
    const have = out.get(name);
    if (have) have['x-rules'] = sortRules([...have['x-rules'], u.rule]);
    else out.set(name, { ...schemeOf(u), 'x-rules': [u.rule] });
  }
  return Object.fromEntries(out);
}

const applies = (u: Usage, servers: readonly ServerKind[], nodePath: NodePath | undefined) =>
  servers.includes(u.server) && (u.server !== 'node' || u.nodePath === nodePath);

/** The documented alternatives of an endpoint: one requirement per scheme (any one of them is enough). */
export function securityOf(servers: readonly ServerKind[], nodePath?: NodePath): Record<string, string[]>[] {
  const names = new Set(
    usages()
      .filter((u) => u.expect === 'accept' && applies(u, servers, nodePath))
      .map((u) => schemeName(u.server, u.form)),
  );
  return [...names].map((n) => ({ [n]: [] }));
}

/** The documented scheme names of a server kind (all its endpoints together). */
export function schemesOfServer(server: ServerKind): string[] {
  return [
    ...new Set(
      usages()
        .filter((u) => u.expect === 'accept' && u.server === server)
        .map((u) => schemeName(u.server, u.form)),
    ),
  ];
}

/** The open forms of an endpoint, as chainprobe tries them. */
export function openFormsOf(servers: readonly ServerKind[], nodePath?: NodePath): OpenForm[] {
  return usages()
    .filter((u) => u.expect === 'open' && applies(u, servers, nodePath))
    .map((u) => {
      const form = AUTH_FORMS[u.form];
      return {
        server: u.server,
        credential: u.credential,
        in: form.transport === 'query' ? 'query' : 'header',
        name: form.name,
        rule: u.rule,
      } satisfies OpenForm;
    });
}

/** Which credential forms a WebSocket or gRPC path takes: documented and open, for the transports' listing. */
export function transportForms(
  nodePath: NodePath,
): { form: string; name: string; documented: boolean; rule: string }[] {
  return NODE_TOKEN_USAGES.filter((u) => u.path === nodePath).map((u) => ({
    form: AUTH_FORMS[u.form].transport,
    name: AUTH_FORMS[u.form].name,
    documented: u.expect === 'accept',
    rule: u.rule,
  }));
}
