// A schema-aware map over JSON Schema 2020-12 documents: visits every subschema (and only
// subschemas: `const`, `enum`, `default`, `examples` and `properties` names are data).
// Used by the strict view (validate.ts) and by the type generator.

export type SchemaNode = Record<string, unknown>;

export const isSchemaNode = (v: unknown): v is SchemaNode => typeof v === 'object' && v !== null && !Array.isArray(v);

const SINGLE = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
]);
const LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const BRANCHES = new Set(['allOf', 'anyOf', 'oneOf']);

export interface NodeContext {
  /** The document root. */
  root: boolean;
  /** A member of allOf/anyOf/oneOf: it sees only part of the object. */
  branch: boolean;
  /** The keyword that holds this node (`properties`, `items`, ...); '' for the root. */
  via: string;
}

/** Rebuilds a schema bottom-up: children first, then `fn` on each node with its children replaced. */
export function mapSchema(
  schema: unknown,
  fn: (node: SchemaNode, ctx: NodeContext) => unknown,
  ctx: NodeContext = { root: true, branch: false, via: '' },
): unknown {
  if (!isSchemaNode(schema)) return schema;
  const out: SchemaNode = {};
  for (const [k, v] of Object.entries(schema)) {
    const child = (s: unknown, branch = false) => mapSchema(s, fn, { root: false, branch, via: k });
    if (SINGLE.has(k)) out[k] = child(v);
    else if (LISTS.has(k) && Array.isArray(v)) out[k] = v.map((s) => child(s, BRANCHES.has(k)));
    else if (MAPS.has(k) && isSchemaNode(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, child(s)]));
    else out[k] = v;
  }
  return fn(out, ctx);
}
