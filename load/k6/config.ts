// The k6 scripts take the horizon node and limits from environment variables (`k6 run -e NAME=...`
// or the k6-operator's env), because a k6 script cannot use the Node target loader. Same meaning
// and defaults as the target file's nodes.horizon and limits sections.
import { parseSelectors, type Selection } from '../../src/select.js';
import {
  DEFAULT_HOURLY_LIMIT,
  DEFAULT_WS_GRACE_MS,
  type Customer,
  type ResolvedHorizon,
  type ResolvedLimits,
} from '../../src/target-file/types.js';

export const K6_ENV = {
  endpoint: 'CHAINPROBE_HORIZON_ENDPOINT',
  token: 'CHAINPROBE_HORIZON_TOKEN',
  customer: 'CHAINPROBE_CUSTOMER',
  hourlyLimit: 'CHAINPROBE_HOURLY_LIMIT',
  perSecondCap: 'CHAINPROBE_PER_SECOND_CAP',
  maxRequests: 'CHAINPROBE_MAX_REQUESTS',
  maxSeconds: 'CHAINPROBE_MAX_SECONDS',
  timeoutMs: 'CHAINPROBE_TIMEOUT_MS',
  only: 'CHAINPROBE_ONLY',
  out: 'CHAINPROBE_OUT',
  name: 'CHAINPROBE_TARGET_NAME',
  /** The node's name in a fleet (one runner per horizon node): its checks carry it, for `npm run merge`. */
  nodeName: 'CHAINPROBE_NODE_NAME',
} as const;

export interface K6Config {
  name: string;
  horizon: ResolvedHorizon;
  limits: ResolvedLimits;
  selection: Selection;
  outFile: string;
}

export class K6ConfigError extends Error {}

function positiveInt(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v <= 0) throw new K6ConfigError(`${name} must be a positive integer, got "${raw}"`);
  return v;
}

export function k6Config(env: Record<string, string | undefined>): K6Config {
  const endpoint = env[K6_ENV.endpoint];
  const token = env[K6_ENV.token];
  const missing = (v: string | undefined) => (v === undefined ? 'is not set' : 'is empty');
  if (!endpoint) throw new K6ConfigError(`${K6_ENV.endpoint} ${missing(endpoint)} (the horizon node's Endpoint URL)`);
  if (!/^https?:\/\//.test(endpoint)) throw new K6ConfigError(`${K6_ENV.endpoint} must start with https:// or http://`);
  if (!token) throw new K6ConfigError(`${K6_ENV.token} ${missing(token)} (the node's Auth Token)`);
  const customerRaw = env[K6_ENV.customer] || 'dedicated';
  if (customerRaw !== 'dedicated' && customerRaw !== 'shared')
    throw new K6ConfigError(`${K6_ENV.customer} must be dedicated or shared, got "${customerRaw}"`);
  const customer: Customer = customerRaw;
  let selection: Selection;
  try {
    selection = parseSelectors(env[K6_ENV.only]);
  } catch (e) {
    throw new K6ConfigError(e instanceof Error ? e.message : String(e));
  }
  return {
    name: env[K6_ENV.name] || 'k6',
    horizon: {
      ...(env[K6_ENV.nodeName] ? { name: env[K6_ENV.nodeName] } : {}),
      endpoint,
      token,
      customer,
      hourlyLimit: positiveInt(env, K6_ENV.hourlyLimit, DEFAULT_HOURLY_LIMIT[customer]),
      perSecondCap: positiveInt(env, K6_ENV.perSecondCap, 20),
      ...(!env[K6_ENV.customer] && !env[K6_ENV.hourlyLimit] && { planAssumed: true }),
    },
    limits: {
      maxRequests: positiveInt(env, K6_ENV.maxRequests, 1000),
      maxSeconds: positiveInt(env, K6_ENV.maxSeconds, 300),
      timeoutMs: positiveInt(env, K6_ENV.timeoutMs, 10000),
      wsGraceMs: DEFAULT_WS_GRACE_MS, // no WebSocket here
    },
    selection,
    outFile: env[K6_ENV.out] || 'results.json',
  };
}

/** The run's request and time budget under k6: a counter and a deadline. */
export function counterBudget(limits: ResolvedLimits, now: () => number) {
  const deadline = now() + limits.maxSeconds * 1000;
  let used = 0;
  return {
    take(): void {
      if (now() >= deadline) throw new Error('budget: the run reached limits.maxSeconds');
      if (++used > limits.maxRequests)
        throw new Error(`budget: the run reached limits.maxRequests (${limits.maxRequests})`);
    },
    fits: (n: number) => used + n <= limits.maxRequests && now() < deadline,
    shortfall: (n: number): string | undefined =>
      now() >= deadline
        ? 'the run reached limits.maxSeconds'
        : used + n > limits.maxRequests
          ? `limits.maxRequests leaves ${limits.maxRequests - used} request(s)`
          : undefined,
    msLeft: () => deadline - now(),
  };
}
