// The Pushgateway's side of a push, without the HTTP client (the command line's checks read it
// before anything heavy loads): the URL of a deployment's group, the credentials the environment
// gives, and how the gateway is named in a line (never with a credential).

export const PUSH_JOB = 'chainprobe';

/** The environment variables a push reads its credentials from. */
export const PUSHGATEWAY_ENV = {
  token: 'CHAINPROBE_PUSHGATEWAY_TOKEN',
  user: 'CHAINPROBE_PUSHGATEWAY_USER',
  password: 'CHAINPROBE_PUSHGATEWAY_PASSWORD',
} as const;

/** The gateway as error lines name it: scheme, host, port and path; no credentials, query or fragment. */
export function gatewayName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(not a URL)';
  }
}

/** Why a --pushgateway URL cannot be used, or undefined when it can. Never repeats the URL's credentials. */
export function gatewayProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'expected an http:// or https:// URL of a Pushgateway';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'expected an http:// or https:// URL of a Pushgateway';
  if (u.username || u.password)
    return `credentials are not taken from the URL; set ${PUSHGATEWAY_ENV.user} and ${PUSHGATEWAY_ENV.password}, or ${PUSHGATEWAY_ENV.token}`;
  if (u.search || u.hash) return 'the URL of the Pushgateway itself, without a query or fragment';
  return undefined;
}

/** A grouping label value in a URL path: as is when plain, else base64url (the Pushgateway's `@base64` form). */
export function groupingSegment(name: string, value: string): string {
  if (/^[A-Za-z0-9._~-]+$/.test(value) && value !== '.' && value !== '..') return `${name}/${value}`;
  return `${name}@base64/${value ? Buffer.from(value, 'utf8').toString('base64url') : '='}`;
}

/** The URL of one deployment's group. */
export function groupUrl(gateway: string, target: string): string {
  const base = gateway.replace(/\/+$/, '');
  return `${base}/metrics/${groupingSegment('job', PUSH_JOB)}/${groupingSegment('target', target)}`;
}

/** The Authorization header the environment asks for, if any: a bearer token, or user and password. */
export function authorizationOf(env: NodeJS.ProcessEnv): string | undefined {
  const token = env[PUSHGATEWAY_ENV.token];
  if (token) return `Bearer ${token}`;
  const user = env[PUSHGATEWAY_ENV.user];
  if (user !== undefined && user !== '')
    return `Basic ${Buffer.from(`${user}:${env[PUSHGATEWAY_ENV.password] ?? ''}`, 'utf8').toString('base64')}`;
  return undefined;
}
