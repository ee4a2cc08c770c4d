// The schemas of schemas/ as the components of an exported document: each file a component named
// by its title, each `$defs` entry of a definitions-only file (common.schema.json) one of its own,
// and every cross-file $ref rewritten to point inside the document. Only what the document uses
// (and what that uses) is taken; the schemas keep their x-source and x-rules.
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { SCHEMA_DIR, type SchemaName } from '../schemas/validate.js';
import { isSchemaNode, mapSchema, type SchemaNode } from '../schemas/walk.js';

const SUFFIX = '.schema.json';
/** `nonNegativeIntegerHeader` -> `NonNegativeIntegerHeader`, `x-api-key` -> `XApiKey`. */
export const pascal = (s: string): string =>
  s.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());

let files: Map<string, SchemaNode> | undefined;

/** Every file of schemas/, by file name. */
function schemaFiles(): Map<string, SchemaNode> {
  files ??= new Map(
    readdirSync(SCHEMA_DIR)
      .filter((f) => f.endsWith(SUFFIX))
      .sort()
      .map((f) => [f, JSON.parse(readFileSync(join(SCHEMA_DIR, f), 'utf8')) as SchemaNode]),
  );
  return files;
}

/** A root-level schema file's own `x-` annotations, read without bundling. */
export function schemaFile(file: string): SchemaNode {
  const s = schemaFiles().get(file);
  if (!s) throw new Error(`no schema file schemas/${file}`);
  return s;
}

/** The component a $ref (relative to schemas/) or a schema name points to: its name and its schema. */
function target(ref: string): { name: string; schema: SchemaNode } {
  const [file = '', fragment = ''] = ref.split('#');
  const schema = schemaFile(file);
  const def = /^\/\$defs\/([^/]+)$/.exec(fragment)?.[1];
  if (def) {
    const node = (schema.$defs as SchemaNode | undefined)?.[def];
    if (!isSchemaNode(node)) throw new Error(`$ref ${ref}: no such definition`);
    return { name: pascal(def), schema: node };
  }
  if (fragment) throw new Error(`$ref ${ref}: only whole files and $defs entries become components`);
  if (typeof schema.title !== 'string') throw new Error(`schemas/${file} needs a title to name its component`);
  return { name: schema.title, schema };
}

const fileOf = (name: SchemaName): string => {
  const [stem, fragment] = name.split('#');
  return `${stem}${SUFFIX}${fragment === undefined ? '' : `#${fragment}`}`;
};

export class Components {
  /** Component name -> schema, in the order first used. */
  readonly schemas = new Map<string, SchemaNode>();

  constructor(private readonly prefix: string) {}

  /** A `$ref` object for a named schema; the schema and what it refers to join the components. */
  ref(name: SchemaName): { $ref: string } {
    return { $ref: this.add(fileOf(name)) };
  }

  /** A schema node of schemas/ with its $refs rewritten (the node itself stays inline). */
  inline(node: SchemaNode): SchemaNode {
    return mapSchema(node, (n) => {
      const out: SchemaNode = { ...n };
      delete out.$id;
      delete out.$schema;
      if (typeof out.$ref === 'string' && !out.$ref.startsWith('#')) out.$ref = this.add(out.$ref);
      return out;
    }) as SchemaNode;
  }

  /** Adds the component a file-relative $ref names; returns the document-local pointer. */
  private add(ref: string): string {
    const { name, schema } = target(ref);
    const pointer = `${this.prefix}${name}`;
    if (!this.schemas.has(name)) {
      this.schemas.set(name, {}); // placeholder first: a schema that refers to itself stops here
      this.schemas.set(name, this.inline(schema));
    }
    return pointer;
  }

  /** The components, sorted by name (a stable document). */
  sorted(): Record<string, SchemaNode> {
    return Object.fromEntries([...this.schemas].sort(([a], [b]) => a.localeCompare(b)));
  }
}
