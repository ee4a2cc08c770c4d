// Every credential form of the service description, as data. Contracts and probes draw their
// requests from these tables; no test spells a header or query name itself.

export type FormId =
  | 'bearer'
  | 'x-api-key'
  | 'x-api-key:lower'
  | 'x-api-key:upper'
  | 'x-api-key:mixed'
  | 'apikey-query'
  | 'x-auth-token'
  | 'auth-query'
  | 'ws-x-auth-token'
  | 'ws-bearer'
  | 'ws-auth-query'
  | 'grpc-metadata'
  | 'grpc-bearer';

export type Transport = 'header' | 'query' | 'ws-header' | 'grpc-metadata';

export interface AuthForm {
  id: FormId;
  transport: Transport;
  /** Header, query parameter or metadata key, exactly as sent. */
  name: string;
  value: (secret: string) => string;
  /** Where the description states the form. */
  source: string;
}

const bearer = (s: string) => `Bearer ${s}`;
const raw = (s: string) => s;

export const AUTH_FORMS: Record<FormId, AuthForm> = {
  bearer: {
    id: 'bearer',
    transport: 'header',
    name: 'Authorization',
    value: bearer,
    source: 'Authentication / Methods 2; Node access',
  },
  'x-api-key': {
    id: 'x-api-key',
    transport: 'header',
    name: 'X-API-Key',
    value: raw,
    source: 'Authentication / Methods 3',
  },
  'x-api-key:lower': {
    id: 'x-api-key:lower',
    transport: 'header',
    name: 'x-api-key',
    value: raw,
    source: 'Authentication / Methods 3 (any letter case)',
  },
  'x-api-key:upper': {
    id: 'x-api-key:upper',
    transport: 'header',
    name: 'X-API-KEY',
    value: raw,
    source: 'Authentication / Methods 3 (any letter case)',
  },
  'x-api-key:mixed': {
    id: 'x-api-key:mixed',
    transport: 'header',
    name: 'X-Api-Key',
    value: raw,
    source: 'Authentication / Methods 3 (any letter case)',
  },
  'apikey-query': {
    id: 'apikey-query',
    transport: 'query',
    name: 'apiKey',
    value: raw,
    source: 'Authentication / Methods 1',
  },
  'x-auth-token': { id: 'x-auth-token', transport: 'header', name: 'X-Auth-Token', value: raw, source: 'Node access' },
  'auth-query': { id: 'auth-query', transport: 'query', name: 'auth', value: raw, source: 'Node access' },
  'ws-x-auth-token': {
    id: 'ws-x-auth-token',
    transport: 'ws-header',
    name: 'X-Auth-Token',
    value: raw,
    source: 'Node access (WebSocket)',
  },
  // The other two node forms on WebSocket and gRPC: not shown there, tried to learn what the target accepts (NAUTH-07).
  'ws-bearer': {
    id: 'ws-bearer',
    transport: 'ws-header',
    name: 'Authorization',
    value: bearer,
    source: 'Node access (a form not shown for WebSocket)',
  },
  'ws-auth-query': {
    id: 'ws-auth-query',
    transport: 'query',
    name: 'auth',
    value: raw,
    source: 'Node access (a form not shown for WebSocket)',
  },
  'grpc-metadata': {
    id: 'grpc-metadata',
    transport: 'grpc-metadata',
    name: 'x-auth-token',
    value: raw,
    source: 'Node access (gRPC)',
  },
  'grpc-bearer': {
    id: 'grpc-bearer',
    transport: 'grpc-metadata',
    name: 'authorization',
    value: bearer,
    source: 'Node access (a form not shown for gRPC)',
  },
};

/** Header names and query parameters that carry credentials: redacted by name, whatever their value. */
export const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-auth-token'] as const;
export const CREDENTIAL_QUERY_PARAMS = ['apiKey', 'auth'] as const;

/** Appends name=value with `?` or `&`, as Methods 1 describes, keeping the existing query intact. */
export function withQueryParam(url: string, name: string, value: string): string {
  const hashAt = url.indexOf('#');
  const base = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  const joiner = base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?';
  return `${base}${joiner}${encodeURIComponent(name)}=${encodeURIComponent(value)}${hash}`;
}

export interface AuthorizedRequest {
  url: string;
  headers: Record<string, string>;
}

/**
 * Applies one form to an HTTP request (header or query forms). Several values: a query form
 * carries the parameter once per value, in order (a header is one value).
 */
export function applyForm(
  formId: FormId,
  secret: string | readonly string[],
  url: string,
  headers: Record<string, string> = {},
): AuthorizedRequest {
  const form = AUTH_FORMS[formId];
  const values = typeof secret === 'string' ? [secret] : secret;
  if (values.length !== 1 && form.transport !== 'query')
    throw new Error(`form ${formId} carries one value, not ${values.length}`);
  switch (form.transport) {
    case 'query':
      return {
        url: values.reduce((u, v) => withQueryParam(u, form.name, form.value(v)), url),
        headers: { ...headers },
      };
    case 'header':
    case 'ws-header':
      return { url, headers: { ...headers, [form.name]: form.value(values[0]!) } };
    case 'grpc-metadata':
      throw new Error(`form ${formId} is gRPC metadata, not an HTTP form`);
  }
}

// ---- The matrix: which credential, on which base, in which form, and what the description says.

export type KeyKind = 'newKey' | 'legacyKey';
export type BaseKind = 'base' | 'legacy';
/** accept: documented, a refusal fails the rule. open: the description leaves it open, observed. */
export type Expectation = 'accept' | 'open';

export interface KeyUsage {
  key: KeyKind;
  base: BaseKind;
  form: FormId;
  expect: Expectation;
  rule: string;
}

export const API_KEY_USAGES: readonly KeyUsage[] = [
  { key: 'newKey', base: 'base', form: 'bearer', expect: 'accept', rule: 'AUTH-01' },
  { key: 'newKey', base: 'base', form: 'x-api-key', expect: 'accept', rule: 'AUTH-02' },
  { key: 'newKey', base: 'base', form: 'x-api-key:lower', expect: 'accept', rule: 'AUTH-03' },
  { key: 'newKey', base: 'base', form: 'x-api-key:upper', expect: 'accept', rule: 'AUTH-03' },
  { key: 'newKey', base: 'base', form: 'x-api-key:mixed', expect: 'accept', rule: 'AUTH-03' },
  { key: 'legacyKey', base: 'legacy', form: 'apikey-query', expect: 'accept', rule: 'AUTH-04' },
  { key: 'legacyKey', base: 'legacy', form: 'bearer', expect: 'accept', rule: 'AUTH-05' },
  { key: 'newKey', base: 'base', form: 'apikey-query', expect: 'open', rule: 'AUTH-09' },
  { key: 'newKey', base: 'legacy', form: 'bearer', expect: 'open', rule: 'AUTH-10' },
  { key: 'legacyKey', base: 'base', form: 'bearer', expect: 'open', rule: 'AUTH-10' },
  { key: 'legacyKey', base: 'legacy', form: 'x-api-key', expect: 'open', rule: 'AUTH-11' },
];

/** The forms an API key is documented to work in on its own base (for AUTH-08's "every accepted form"). */
export const ACCEPTED_KEY_FORMS: Record<KeyKind, FormId[]> = {
  newKey: ['bearer', 'x-api-key'],
  legacyKey: ['apikey-query', 'bearer'],
};

export type NodePath = 'blockRest' | 'appRest' | 'consensusRpc' | 'consensusRest' | 'feeStats' | 'websocket' | 'grpc';

export interface TokenUsage {
  path: NodePath;
  form: FormId;
  expect: Expectation;
  rule: string;
}

export const NODE_TOKEN_USAGES: readonly TokenUsage[] = [
  { path: 'blockRest', form: 'bearer', expect: 'accept', rule: 'NAUTH-01' },
  { path: 'blockRest', form: 'x-auth-token', expect: 'accept', rule: 'NAUTH-02' },
  { path: 'blockRest', form: 'auth-query', expect: 'accept', rule: 'NAUTH-03' },
  ...(['appRest', 'consensusRpc', 'consensusRest', 'feeStats'] as const).flatMap((path): TokenUsage[] => [
    { path, form: 'auth-query', expect: 'accept', rule: 'NAUTH-04' },
    { path, form: 'bearer', expect: 'open', rule: 'NAUTH-04' },
    { path, form: 'x-auth-token', expect: 'open', rule: 'NAUTH-04' },
  ]),
  { path: 'websocket', form: 'ws-x-auth-token', expect: 'accept', rule: 'NAUTH-05' },
  // Not shown for these transports: whether they work is observed, so NAUTH-07 knows every accepted form.
  { path: 'websocket', form: 'ws-bearer', expect: 'open', rule: 'NAUTH-07' },
  { path: 'websocket', form: 'ws-auth-query', expect: 'open', rule: 'NAUTH-07' },
  { path: 'grpc', form: 'grpc-metadata', expect: 'accept', rule: 'NAUTH-06' },
  { path: 'grpc', form: 'grpc-bearer', expect: 'open', rule: 'NAUTH-07' },
];
