// Schema validation for everything the suite reads: every file of schemas/ is loaded once into one
// ajv 2020-12 instance, together with a strict view of each (generated here, never kept by hand)
// that lists the fields a record carries beyond the documented ones (RES-02). Their validators are
// compiled ahead of time by `npm run generate` (src/schemas/generated/validators.cjs) and used while
// they match schemas/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { createAjv, type Ajv, type ErrorObject, type Options, type ValidateFunction } from './ajv.js';
import { describeValue, dottedPath, pointerSegments } from './paths.js';
import { isSchemaNode, mapSchema, type SchemaNode } from './walk.js';
import { packagePath } from '../package.js';

export const SCHEMA_BASE = 'https://chainprobe.dev/schemas/';
/** The strict view lives under its own base, so relative $refs inside it stay strict. */
export const STRICT_BASE = 'https://chainprobe.dev/schemas/strict/';
export const SCHEMA_DIR = packagePath('schemas');

/** Schema names: a file of schemas/ without `.schema.json`, or a `$defs` entry of one. */
export const SCHEMA = {
  event: 'nft-event',
  transaction: 'transaction',
  payment: 'payment',
  collection: 'collection',
  contract: 'contract',
  collectionMeta: 'collection-meta',
  asset: 'asset',
  media: 'media',
  attribute: 'attribute',
  rarityEntry: 'rarity-entry',
  assetListItem: 'asset-list-item',
  paging: 'paging',
  eventResponse: 'event-response',
  collectionResponse: 'collection-response',
  assetResponse: 'asset-response',
  rarityListResponse: 'rarity-list-response',
  rpcRequest: 'jsonrpc-request',
  nodeRpcRequest: 'node-rpc-request',
  rpcSuccess: 'jsonrpc-success-response',
  rpcErrorResponse: 'jsonrpc-error-response',
  rpcError: 'jsonrpc-error',
  rpcBlockNumberResponse: 'jsonrpc-block-number-response',
  rateLimitHeaders: 'ratelimit-headers',
  rateLimitDenialHeaders: 'ratelimit-denial-headers',
  target: 'target',
  uuid: 'common#/$defs/uuid',
  decimalDigits: 'common#/$defs/decimalDigits',
  hexQuantity: 'common#/$defs/hexQuantity',
} as const;

export type SchemaName = (typeof SCHEMA)[keyof typeof SCHEMA];

/** One schema violation, worded for a person: `data.transaction.block_number: expected integer, got string "12"`. */
export interface SchemaProblem {
  /** Dotted JSON path, e.g. `data.payments[0].price`; `(root)` for the value itself. */
  path: string;
  /** What the schema wants there, e.g. `integer`, `string of decimal digits`, `uuid`, `required field`. */
  expected: string;
  /** A short excerpt of the value seen, e.g. `string "12"`, or `missing`. */
  actual: string;
  /** One line: path, expected, actual. */
  message: string;
  /**
   * Rule ids the problem bears on: the x-rules of every field from the root down to the violated
   * one, e.g. ["NFT-01", "RES-01", "NFT-04"] for `data.payments[0].price` of an event; for a
   * missing field also those of the record that requires it; for the root, the root's.
   */
  rules: string[];
  /** Section of the service description the field comes from (its x-source). */
  source: string;
}

/** A field beyond the documented ones (RES-02). */
export interface ExtraField {
  /** Dotted path of the extra field itself, e.g. `data.transaction.gas_used`. */
  path: string;
  /** Its name, e.g. `gas_used`. */
  field: string;
  /** Title of the schema whose object carries it, e.g. `Transaction`. */
  resource: string;
}

export interface SchemaAnnotations {
  title?: string;
  description?: string;
  /** x-source: the section of the description. */
  source: string;
  /** x-rules: the rule ids served. */
  rules: string[];
}

type Json = SchemaNode;
const isObject = isSchemaNode;

/**
 * Annotations that mark a field for a check beside the schema, one whose bound is not fixed
 * (`x-unix-seconds`: a Unix time in seconds, plausible for the run's date). annotatedValues finds them.
 */
export const VALUE_ANNOTATIONS = ['x-unix-seconds'] as const;
export type ValueAnnotation = (typeof VALUE_ANNOTATIONS)[number];

/**
 * The strict view of one schema: every object schema that is not a branch of allOf/anyOf/oneOf
 * gets `unevaluatedProperties: false` (which sees properties evaluated through $ref), and $ids
 * move under STRICT_BASE.
 */
export function strictViewOf(schema: unknown): unknown {
  return mapSchema(schema, (node, { branch }) => {
    const out: Json = { ...node };
    if (typeof out.$id === 'string') out.$id = toStrictId(out.$id);
    if (typeof out.$ref === 'string' && out.$ref.startsWith(SCHEMA_BASE)) out.$ref = toStrictId(out.$ref);
    if (!branch && (isObject(out.properties) || out.type === 'object') && out.unevaluatedProperties === undefined)
      out.unevaluatedProperties = false;
    return out;
  });
}

function toStrictId(id: string): string {
  if (!id.startsWith(SCHEMA_BASE)) throw new Error(`schema id ${id} is not under ${SCHEMA_BASE}`);
  return id.startsWith(STRICT_BASE) ? id : STRICT_BASE + id.slice(SCHEMA_BASE.length);
}

function idOf(name: string, base = SCHEMA_BASE): string {
  const [stem, fragment] = name.split('#');
  return `${base}${stem}.schema.json${fragment === undefined ? '' : `#${fragment}`}`;
}

interface Loaded {
  /** Raw schemas by $id (lax view), for annotation lookups. */
  byId: Map<string, Json>;
  /** Every name validate() accepts. */
  names: Set<string>;
  lax: (name: string) => ValidateFunction;
  strict: (name: string) => ValidateFunction;
}

/** The schemas of schemas/ by $id, and the hash of their files that precompiled validators are keyed by. */
export function readSchemaFiles(): { byId: Map<string, Json>; hash: string } {
  const byId = new Map<string, Json>();
  const hash = createHash('sha256');
  for (const file of readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.schema.json'))
    .sort()) {
    const text = readFileSync(join(SCHEMA_DIR, file), 'utf8');
    hash.update(file).update('\0').update(text).update('\0');
    const schema = JSON.parse(text) as Json;
    const expectedId = SCHEMA_BASE + file;
    if (schema.$id !== expectedId) throw new Error(`schemas/${file}: $id must be ${expectedId}`);
    byId.set(expectedId, schema);
  }
  return { byId, hash: hash.digest('hex').slice(0, 16) };
}

/** Every name validate() accepts: the SCHEMA constants and every file stem. */
export function namesOf(byId: ReadonlyMap<string, Json>): Set<string> {
  return new Set<string>([
    ...Object.values(SCHEMA),
    ...[...byId.keys()].map((id) => id.slice(SCHEMA_BASE.length, -'.schema.json'.length)),
  ]);
}

export type View = 'lax' | 'strict';

/** The $id of a schema name in a view. */
export const viewId = (view: View, name: string): string => idOf(name, view === 'lax' ? SCHEMA_BASE : STRICT_BASE);

/** The export of the precompiled module (src/schemas/generated/validators.cjs) holding a view's validator. */
export const exportNameOf = (view: View, name: string): string => `${view}_${name.replace(/[^A-Za-z0-9]/g, '_')}`;

/**
 * One ajv instance with every schema and its strict view: what validates when the precompiled
 * validators do not match schemas/, and what `npm run generate` precompiles them from.
 */
export function schemaAjv(byId: ReadonlyMap<string, Json>, options: Options = {}): Ajv {
  const ajv = createAjv({ verbose: true, ...options });
  ajv.addVocabulary(['x-source', 'x-rules', 'x-expected', 'x-secret', ...VALUE_ANNOTATIONS]);
  for (const schema of byId.values()) {
    ajv.addSchema(schema);
    ajv.addSchema(strictViewOf(schema) as Json);
  }
  return ajv;
}

type Precompiled = Record<string, ValidateFunction | string | undefined>;

/**
 * The validators `npm run generate` compiled ahead of time (ajv's standalone code), when they were
 * compiled from these very schema files: compiling them here cost each contract worker about half
 * a second of CPU. Otherwise none, and ajv compiles them (the drift check of `npm test` keeps the
 * module in step with schemas/).
 */
function precompiled(hash: string): Precompiled | undefined {
  try {
    // Evaluated here rather than required: a test runner's require hook (Playwright's, in a clone)
    // would put the whole generated module through its Babel transform in every worker.
    const file = fileURLToPath(new URL('./generated/validators.cjs', import.meta.url));
    const module = { exports: {} as Precompiled };
    new Function('module', 'exports', 'require', readFileSync(file, 'utf8'))(
      module,
      module.exports,
      createRequire(file),
    );
    const mod = module.exports;
    return mod.schemasHash === hash ? mod : undefined;
  } catch {
    return undefined;
  }
}

let loaded: Loaded | undefined;

/** Reads schemas/ once per process; each validator is taken (or compiled) on first use and kept. */
function load(): Loaded {
  if (loaded) return loaded;
  const { byId, hash } = readSchemaFiles();
  const names = namesOf(byId);
  const pre = precompiled(hash);
  let ajv: Ajv | undefined;
  const cached = (view: View) => {
    const cache = new Map<string, ValidateFunction>();
    return (name: string): ValidateFunction => {
      let fn = cache.get(name);
      if (fn) return fn;
      if (!names.has(name)) throw new Error(`unknown schema name "${name}" (known: ${[...names].join(', ')})`);
      const made = pre?.[exportNameOf(view, name)];
      fn = typeof made === 'function' ? made : (ajv ??= schemaAjv(byId)).getSchema(viewId(view, name));
      if (!fn) throw new Error(`no schema ${viewId(view, name)}`);
      cache.set(name, fn);
      return fn;
    };
  };
  loaded = { byId, names, lax: cached('lax'), strict: cached('strict') };
  return loaded;
}

/** Whether this process validates with the precompiled validators (false: ajv compiles them). */
export function usesPrecompiled(): boolean {
  return precompiled(readSchemaFiles().hash) !== undefined;
}

/** Every schema name that validate() accepts: the SCHEMA constants and every file stem. */
export function schemaNames(): string[] {
  return [...load().names];
}

/** A schema's validator (precompiled when in step with schemas/), for a caller that words ajv's errors itself. */
export function validatorOf(name: SchemaName): ValidateFunction {
  return load().lax(name);
}

/** True when the value matches; the fast path, no problem wording. */
export function isValid(name: SchemaName, value: unknown): boolean {
  return load().lax(name)(value) as boolean;
}

/** The problems of a value against a schema; empty when it matches. */
export function validate(name: SchemaName, value: unknown): SchemaProblem[] {
  const fn = load().lax(name);
  if (fn(value)) return [];
  return problemsOf(fn.errors ?? [], value, name);
}

/** Fields the value carries beyond the documented ones, nested ones too (RES-02). */
export function extraFields(name: SchemaName, value: unknown): ExtraField[] {
  const fn = load().strict(name);
  if (fn(value)) return [];
  const seen = new Set<string>();
  const out: ExtraField[] = [];
  for (const e of fn.errors ?? []) {
    if (e.keyword !== 'unevaluatedProperties' && e.keyword !== 'additionalProperties') continue;
    const params = e.params as { unevaluatedProperty?: string; additionalProperty?: string };
    const field = params.unevaluatedProperty ?? params.additionalProperty ?? '';
    const segs = [...pointerSegments(e.instancePath), field];
    const path = dottedPath(segs);
    if (seen.has(path)) continue;
    seen.add(path);
    const title = isObject(e.parentSchema) && typeof e.parentSchema.title === 'string' ? e.parentSchema.title : '';
    out.push({ path, field, resource: title });
  }
  return out;
}

/**
 * A schema's own x-source and x-rules, or those of the field at a dotted path inside it
 * (`data.payments[0].price`); a path beyond the documented fields gets its nearest documented parent's.
 */
export function annotationsOf(name: SchemaName, path = ''): SchemaAnnotations {
  const segs = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => m[1] ?? m[2]!);
  const { along: _along, ...own } = annotationsAt(name, segs);
  return own;
}

/** A value at a field whose schema carries a value annotation, with the field's dotted path. */
export interface AnnotatedValue {
  path: string;
  value: unknown;
}

/**
 * Every value inside `value` whose field the schema marks with `annotation: true`, found by
 * walking the value along the schema (through $ref, allOf and array items), in document order.
 */
export function annotatedValues(name: SchemaName, annotation: ValueAnnotation, value: unknown): AnnotatedValue[] {
  const root = resolveRef(idOf(name), SCHEMA_BASE);
  if (!root) throw new Error(`unknown schema name "${name}"`);
  const out: AnnotatedValue[] = [];
  const visit = (at: At, v: unknown, segs: string[]): void => {
    if (layers(at).some((l) => l.node[annotation] === true)) out.push({ path: dottedPath(segs), value: v });
    const entries: [string, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [String(i), x])
      : isObject(v)
        ? Object.entries(v)
        : [];
    for (const [seg, x] of entries) {
      const next = child(at, seg);
      if (next) visit(next, x, [...segs, seg]);
    }
  };
  visit(root, value, []);
  return out;
}

function problemsOf(errors: ErrorObject[], root: unknown, name: string): SchemaProblem[] {
  // An anyOf/oneOf reports each failing branch too; its own error says it better.
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.schemaPath}/`);
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const e of errors) {
    if (unions.some((u) => e.schemaPath.startsWith(u))) continue;
    const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
    const segs = pointerSegments(e.instancePath);
    if (missing !== undefined) segs.push(missing);
    const path = dottedPath(segs);
    const expected = missing !== undefined ? 'required field' : expectedOf(e);
    const key = `${path}\u0000${expected}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const actual = missing !== undefined ? 'missing' : describeValue(valueAt(root, segs));
    const message =
      missing !== undefined ? `${path}: required field is missing` : `${path}: expected ${expected}, got ${actual}`;
    const { along, source } = annotationsAt(name, segs);
    // A missing field also breaks the rules of the record that requires it.
    const holder =
      missing !== undefined && isObject(e.parentSchema) && Array.isArray(e.parentSchema['x-rules'])
        ? e.parentSchema['x-rules'].map(String)
        : [];
    out.push({ path, expected, actual, message, rules: [...new Set([...holder, ...along])], source });
  }
  return out;
}

function expectedOf(e: ErrorObject): string {
  const own = isObject(e.parentSchema) ? e.parentSchema['x-expected'] : undefined;
  if (typeof own === 'string') return own;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return Array.isArray(p.type) ? p.type.join(' or ') : String(p.type).split(',').join(' or ');
    case 'format':
      return String(p.format);
    case 'pattern':
      return `string matching ${String(p.pattern)}`;
    case 'minLength':
      return p.limit === 1 ? 'non-empty string' : `string of at least ${String(p.limit)} characters`;
    case 'const':
      return JSON.stringify(p.allowedValue);
    case 'enum':
      return `one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `number ${String(p.comparison)} ${String(p.limit)}`;
    default:
      return e.message ?? e.keyword;
  }
}

function valueAt(root: unknown, segs: readonly string[]): unknown {
  let v = root;
  for (const s of segs) {
    if (Array.isArray(v)) v = v[Number(s)];
    else if (isObject(v)) v = Object.hasOwn(v, s) ? v[s] : undefined;
    else return undefined;
  }
  return v;
}

// ---- Annotation lookup: walks the raw schemas along a value path, following $ref across files.

interface At {
  node: Json;
  base: string;
}

function resolveRef(ref: string, base: string): At | undefined {
  const url = new URL(ref, base);
  const fragment = decodeURIComponent(url.hash.slice(1));
  url.hash = '';
  const file = load().byId.get(url.href);
  if (!file) return undefined;
  let node: unknown = file;
  for (const seg of fragment ? pointerSegments(fragment) : []) node = isObject(node) ? node[seg] : undefined;
  return isObject(node) ? { node, base: url.href } : undefined;
}

/** The node and the schemas it is composed of ($ref, allOf), nearest first. */
function layers(at: At, depth = 0): At[] {
  if (depth > 16) return [at];
  const out = [at];
  const ref = at.node.$ref;
  if (typeof ref === 'string') {
    const target = resolveRef(ref, at.base);
    if (target) out.push(...layers(target, depth + 1));
  }
  for (const branch of Array.isArray(at.node.allOf) ? at.node.allOf : [])
    if (isObject(branch)) out.push(...layers({ node: branch, base: at.base }, depth + 1));
  return out;
}

function child(at: At, seg: string): At | undefined {
  for (const layer of layers(at)) {
    const props = layer.node.properties;
    if (/^\d+$/.test(seg) && isObject(layer.node.items)) return { node: layer.node.items, base: layer.base };
    if (isObject(props) && isObject(props[seg])) return { node: props[seg] as Json, base: layer.base };
  }
  return undefined;
}

function ownAnnotations(at: At): SchemaAnnotations | undefined {
  for (const layer of layers(at)) {
    const rules = layer.node['x-rules'];
    const source = layer.node['x-source'];
    if (Array.isArray(rules) && typeof source === 'string') {
      const title =
        (layers(at).find((l) => typeof l.node.title === 'string')?.node.title as string | undefined) ?? undefined;
      const description = typeof at.node.description === 'string' ? at.node.description : undefined;
      return { ...(title && { title }), ...(description && { description }), source, rules: rules.map(String) };
    }
  }
  return undefined;
}

/**
 * Annotations of the deepest schema node along the path that has them (an extra field gets its
 * object's), and `along`: the union of the x-rules of every field on the way down (the root's
 * own rules only for the root itself). So a payment problem inside an event bears on the event's
 * rules and the payment's, while a record's broad rules do not spill onto every field.
 */
function annotationsAt(name: string, segs: readonly string[]): SchemaAnnotations & { along: string[] } {
  const root = resolveRef(idOf(name), SCHEMA_BASE);
  if (!root) throw new Error(`unknown schema name "${name}"`);
  let at: At | undefined = root;
  let best = ownAnnotations(root) ?? { source: '', rules: [] };
  const along = new Set(segs.length === 0 ? best.rules : []);
  for (const seg of segs) {
    at = at && child(at, seg);
    const own = at && ownAnnotations(at);
    if (!own) break;
    best = own;
    for (const r of own.rules) along.add(r);
  }
  return { ...best, along: along.size ? [...along] : best.rules };
}

/** Headers as the rate-limit schemas read them (lower-case names): re-exported for callers of the validator. */
export { headerRecord } from '../http/headers.js';
