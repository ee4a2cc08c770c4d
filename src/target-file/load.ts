// Loads a target file: ${NAME} substitution, schema validation, defaults.
// Every problem becomes one line "<json path>: <what is wrong>"; secret values never appear.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ErrorObject } from '../schemas/ajv.js';
import { SCHEMA, validatorOf } from '../schemas/validate.js';
import { dottedPath, pointerSegments } from '../schemas/paths.js';
import { didYouMean, nearest } from '../suggest.js';
import type { TargetFile } from '../types/generated/target.js';
import {
  DEFAULT_HOURLY_LIMIT,
  DEFAULT_PER_SECOND_CAP,
  DEFAULT_WS_GRACE_MS,
  NODE_KINDS,
  type NodeKind,
  type ResolvedTarget,
} from './types.js';
import { checkTlsSettings } from '../tls/trust.js';
import { TargetError } from './error.js';

export { TargetError };

type Env = Record<string, string | undefined>;

/** Replaces ${NAME} in every string; collects unset variables as problems at their JSON path. */
export function substituteEnv(value: unknown, env: Env, path = '', problems: string[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const v = env[name];
      if (v === undefined || v === '') {
        problems.push(
          `${path || '(root)'}: environment variable ${name} ${v === undefined ? 'is not set' : 'is empty'}`,
        );
        return '';
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, `${path}[${i}]`, problems));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env, path ? `${path}.${k}` : k, problems);
    return out;
  }
  return value;
}

function validateTarget(data: unknown): ErrorObject[] {
  // The schemas' ajv is verbose: an unknown field's error carries its object's schema, whose names
  // the suggestion comes from. Precompiled: compiling this schema was a tenth of a second of every start.
  const validate = validatorOf(SCHEMA.target);
  return validate(data) ? [] : [...(validate.errors ?? [])];
}

function dotted(instancePath: string): string {
  return dottedPath(pointerSegments(instancePath));
}

/**
 * A node kind takes one object or an array of them (anyOf): ajv reports each branch's mismatch.
 * Keep the errors of the branch the value's type chose; a value neither branch takes gets one line.
 */
function chooseBranches(errors: ErrorObject[]): ErrorObject[] {
  const anyOfAt = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const typeMisses = (path: string) => errors.filter((e) => e.keyword === 'type' && e.instancePath === path).length;
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (!anyOfAt.has(e.instancePath) || (e.keyword !== 'anyOf' && e.keyword !== 'type')) out.push(e);
    else if (e.keyword === 'anyOf' && typeMisses(e.instancePath) > 1) out.push({ ...e, keyword: 'nodeKind' });
  }
  return out;
}

/** What a pattern means, by the field it constrains. */
const PATTERN_WORDS: Record<string, string> = {
  websocketUrl: 'must be an absolute ws(s) URL',
  grpcAddress: 'must be host:port',
};

/** One line per cause, wording a person can act on, never echoing a value. */
export function describeErrors(errors: ErrorObject[]): string[] {
  const lines = new Set<string>();
  // A misspelt field is one cause: its "unknown" line names the field it was meant to be, whose
  // "is required" line would only repeat it.
  const meant = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const guess = nearest(extra, known);
    if (guess) meant.add(`${e.instancePath}/${guess}`);
  }
  for (const e of chooseBranches(errors)) {
    const at = dotted(e.instancePath);
    switch (e.keyword) {
      case 'additionalProperties': {
        const extra = (e.params as { additionalProperty: string }).additionalProperty;
        const where = at === '(root)' ? extra : `${at}.${extra}`;
        const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
        const hint = didYouMean(extra, known) || ' (not in the target schema)';
        lines.add(`${where}: unknown ${at === '(root)' ? 'section' : 'field'}${hint}`);
        break;
      }
      case 'enum': {
        const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v));
        lines.add(`${at}: must be ${allowed.length === 2 ? allowed.join(' or ') : `one of ${allowed.join(', ')}`}`);
        break;
      }
      case 'type': {
        const type = (e.params as { type: string }).type;
        lines.add(`${at}: must be ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`);
        break;
      }
      case 'minItems':
        lines.add(`${at}: must not be empty`);
        break;
      case 'nodeKind':
        lines.add(`${at}: must be a node object or an array of node objects`);
        break;
      case 'required':
        if (meant.has(`${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`)) break;
        lines.add(
          `${at === '(root)' ? '' : `${at}.`}${(e.params as { missingProperty: string }).missingProperty}: is required`,
        );
        break;
      case 'pattern': {
        const field = at.split('.').pop()!;
        const generic = /url|endpoint/i.test(at)
          ? 'must be an absolute http(s) URL'
          : `must match ${(e.params as { pattern: string }).pattern}`;
        lines.add(`${at}: ${PATTERN_WORDS[field] ?? generic}`);
        break;
      }
      case 'format':
        lines.add(`${at}: must be a ${(e.params as { format: string }).format}`);
        break;
      case 'minLength': {
        const limit = (e.params as { limit: number }).limit;
        lines.add(`${at}: ${limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`}`);
        break;
      }
      default:
        lines.add(`${at}: ${e.message ?? 'is invalid'}`);
    }
  }
  return [...lines];
}

function listOf<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function hostOf(endpoint: string): string {
  return new URL(endpoint).hostname;
}

/** Fills the defaults interfaces.md states. Input must already be valid. */
export function withDefaults(file: TargetFile, fallbackName: string): ResolvedTarget {
  const api = file.api;
  const nodes = file.nodes ?? {};
  const resolved: ResolvedTarget = {
    name: file.name ?? fallbackName,
    nodes: {},
    limits: {
      maxRequests: file.limits?.maxRequests ?? 1000,
      maxSeconds: file.limits?.maxSeconds ?? 300,
      timeoutMs: file.limits?.timeoutMs ?? 10000,
      wsGraceMs: file.limits?.wsGraceMs ?? DEFAULT_WS_GRACE_MS,
      ...(file.limits?.concurrency !== undefined && { concurrency: file.limits.concurrency }),
    },
  };
  if (api) {
    resolved.api = {
      baseUrl: api.baseUrl?.replace(/\/+$/, ''),
      legacyBaseUrl: api.legacyBaseUrl?.replace(/\/+$/, ''),
      apiKey: api.apiKey,
      legacyApiKey: api.legacyApiKey,
      universal: api.universal ?? [],
      native: api.native && {
        protocol: api.native.protocol,
        networks: [...api.native.networks],
        optionalNetworks: api.native.optionalNetworks ?? [],
        blockNumberMethod: api.native.blockNumberMethod ?? 'eth_blockNumber',
        blockNumberTolerance: api.native.blockNumberTolerance ?? 2,
      },
      nft: api.nft && {
        protocol: api.nft.protocol,
        network: api.nft.network,
        eventIds: api.nft.eventIds ?? [],
        collectionId: api.nft.collectionId,
        pageTokenParam: api.nft.pageTokenParam ?? 'page_token',
        maxPages: api.nft.maxPages ?? 500,
        crossCheck: api.nft.crossCheck ?? 12,
      },
    };
  }
  const lists = {
    blockRest: listOf(nodes.blockRest).map((n) => ({
      ...(n.name !== undefined && { name: n.name }),
      endpoint: n.endpoint.replace(/\/+$/, ''),
      token: n.token,
      height: n.height ?? 1,
    })),
    chainB: listOf(nodes.chainB).map((n) => {
      const host = hostOf(n.endpoint);
      return {
        ...(n.name !== undefined && { name: n.name }),
        endpoint: n.endpoint.replace(/\/+$/, ''),
        token: n.token,
        websocketUrl: n.websocketUrl ?? `wss://${host}:8443/websocket`,
        grpcAddress: n.grpcAddress ?? `${host}:443`,
        grpcTls: n.grpcTls ?? true,
        consensusRpcMethod: n.consensusRpcMethod ?? 'status',
      };
    }),
    horizon: listOf(nodes.horizon).map((n) => {
      const customer = n.customer ?? 'dedicated';
      return {
        ...(n.name !== undefined && { name: n.name }),
        endpoint: n.endpoint.replace(/\/+$/, ''),
        token: n.token,
        customer,
        hourlyLimit: n.hourlyLimit ?? DEFAULT_HOURLY_LIMIT[customer],
        perSecondCap: n.perSecondCap ?? DEFAULT_PER_SECOND_CAP,
        ...(n.customer === undefined && n.hourlyLimit === undefined && { planAssumed: true }),
      };
    }),
  };
  for (const kind of NODE_KINDS)
    if (lists[kind][0]) (resolved.nodes as Record<NodeKind, unknown>)[kind] = lists[kind][0];
  if (NODE_KINDS.some((kind) => Array.isArray(nodes[kind]))) {
    const named = <T extends { name?: string }>(list: T[], kind: NodeKind) =>
      list.map((n) => ({ ...n, name: n.name ?? kind }));
    resolved.fleet = {
      blockRest: named(lists.blockRest, 'blockRest'),
      chainB: named(lists.chainB, 'chainB'),
      horizon: named(lists.horizon, 'horizon'),
    };
  }
  if (file.tls) {
    const ca = file.tls.ca === undefined ? [] : typeof file.tls.ca === 'string' ? [file.tls.ca] : [...file.tls.ca];
    resolved.tls = {
      ca,
      insecure: file.tls.insecure ?? false,
      ...(file.tls.cert && { cert: file.tls.cert }),
      ...(file.tls.key && { key: file.tls.key }),
    };
  }
  return resolved;
}

const URL_FIELDS = [
  ['api', 'baseUrl'],
  ['api', 'legacyBaseUrl'],
  ['nodes', 'blockRest', 'endpoint'],
  ['nodes', 'chainB', 'endpoint'],
  ['nodes', 'chainB', 'websocketUrl'],
  ['nodes', 'horizon', 'endpoint'],
];

/** The URL fields present in a file, as [dotted path, value]; a fleet's array contributes one per node. */
function urlValues(file: unknown): [string, unknown][] {
  const out: [string, unknown][] = [];
  const walk = (v: unknown, keys: string[], path: string) => {
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, keys, `${path}[${i}]`));
    else if (keys.length === 0) out.push([path, v]);
    else if (v && typeof v === 'object')
      walk((v as Record<string, unknown>)[keys[0]!], keys.slice(1), path ? `${path}.${keys[0]}` : keys[0]!);
  };
  for (const keys of URL_FIELDS) walk(file, keys, '');
  return out;
}

/** Names must tell a fleet's nodes apart: unique within each kind's array. */
function duplicateNames(file: TargetFile): string[] {
  const problems: string[] = [];
  for (const kind of NODE_KINDS) {
    const list = file.nodes?.[kind];
    if (!Array.isArray(list)) continue;
    const first = new Map<string, number>();
    list.forEach((n, i) => {
      const seen = first.get(n.name!);
      if (seen === undefined) first.set(n.name!, i);
      else
        problems.push(
          `nodes.${kind}[${i}].name: the same name as nodes.${kind}[${seen}] (names must be unique within nodes.${kind})`,
        );
    });
  }
  return problems;
}

/** Parses, substitutes and validates an in-memory target; throws TargetError listing every problem. */
export function resolveTarget(
  raw: unknown,
  env: Env = process.env,
  fallbackName = 'target',
  baseDir = process.cwd(),
): ResolvedTarget {
  const unset: string[] = [];
  const substituted = substituteEnv(raw, env, '', unset);
  // A field whose variable is unset is reported once, as the unset variable; a variable used in
  // several fields is one cause, so one line naming them all.
  const unsetAt = new Set(unset.map((p) => p.slice(0, p.indexOf(':'))));
  const fieldsByCause = new Map<string, string[]>();
  for (const p of unset) {
    const cause = p.slice(p.indexOf(': ') + 2);
    fieldsByCause.set(cause, [...(fieldsByCause.get(cause) ?? []), p.slice(0, p.indexOf(':'))]);
  }
  const problems = [...fieldsByCause].map(([cause, fields]) => `${fields.join(', ')}: ${cause}`);
  problems.push(
    ...describeErrors(validateTarget(substituted)).filter((line) => !unsetAt.has(line.slice(0, line.indexOf(':')))),
  );
  if (problems.length) throw new TargetError(problems);
  // The schema's URL pattern lets through a few strings URL cannot parse (a port above 65535, ...).
  const unparsable = urlValues(substituted).filter(([, v]) => typeof v === 'string' && !URL.canParse(v));
  if (unparsable.length)
    throw new TargetError(
      unparsable.map(
        ([path]) => `${path}: must be an absolute ${path.endsWith('websocketUrl') ? 'ws(s)' : 'http(s)'} URL`,
      ),
    );
  const duplicates = duplicateNames(substituted as TargetFile);
  if (duplicates.length) throw new TargetError(duplicates);
  const resolved = withDefaults(substituted as TargetFile, fallbackName);
  if (resolved.tls) {
    // Paths are read relative to the target file; the files are checked now, before any request.
    const checked = checkTlsSettings(resolved.tls, baseDir, { ca: 'tls.ca', cert: 'tls.cert', key: 'tls.key' });
    if (checked.problems.length) throw new TargetError(checked.problems);
    resolved.tls = checked.settings;
  }
  return resolved;
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of the path is a file',
};

export function loadTargetFile(path: string, env: Env = process.env): ResolvedTarget {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new TargetError([`${path}: cannot read the target file (${READ_ERRORS[code] ?? code})`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    // V8 quotes a piece of the text ("node-a-toke"...), which may be a credential: keep only the reason and position.
    const reason = (e as Error).message.split('\n')[0]!.replace(/,\s*(?:\.\.\.)?".*$/s, '');
    throw new TargetError([`${path}: not valid JSON (${reason})`]);
  }
  const base = path
    .split('/')
    .pop()!
    .replace(/\.json$/, '');
  return resolveTarget(raw, env, base, dirname(resolve(path)));
}

/** Every credential value the target holds: the redactor's list (kept in types.ts, free of the schema validator). */
export { secretsOf } from './types.js';
