// The OpenAPI 3.1 document of the service as chainprobe knows it: every HTTP endpoint of the
// endpoint table (src/service/endpoints.ts) on its servers, its documented credential forms as
// security schemes (src/auth/forms.ts), its bodies and headers as the schemas of schemas/, and the
// rule ids of the catalogue as `x-rules`. What the description does not show stays open.
import { TOOL } from '../results.js';
import {
  ENDPOINTS,
  SERVERS,
  TRANSPORTS,
  type BodyDef,
  type EndpointDef,
  type HttpMethod,
  type ParamDef,
  type ServerKind,
} from '../service/endpoints.js';
import { SCHEMA } from '../schemas/validate.js';
import { isSchemaNode, type SchemaNode } from '../schemas/walk.js';
import { Components, schemaFile } from './components.js';
import { ruleCatalogue, sortRules } from './rules.js';
import { openFormsOf, schemesOfServer, securityOf, securitySchemes, transportForms } from './security.js';

type Json = Record<string, unknown>;

export const NOT_SHOWN =
  'Other statuses, error bodies and the answer to missing or invalid credentials: not shown in the description; left open.';

const OPEN_BODY = { schema: {} };

function serverObject(kind: ServerKind): Json {
  const s = SERVERS[kind];
  return {
    url: s.url,
    description: s.description,
    variables: { [s.variable]: { default: s.example, description: `${s.variable} (a placeholder: give your own)` } },
    'x-source': s.source,
    'x-security': schemesOfServer(kind),
  };
}

function parameter(p: ParamDef, c: Components): Json {
  const schema: Json = p.schema ? c.ref(p.schema) : { type: p.type ?? 'string' };
  return {
    name: p.name,
    in: p.in,
    required: p.required,
    description: p.description,
    schema: p.shown ? { ...schema, examples: [...p.shown] } : schema,
  };
}

/** The body's schema: a named one, alternatives (and their batch array), or open. */
function bodySchema(b: BodyDef, c: Components): Json {
  if (b.schema) return c.ref(b.schema);
  if (b.anyOf) {
    const one = b.anyOf.map((n) => c.ref(n));
    return {
      anyOf: [...one, ...(b.batch ? [{ type: 'array', items: { anyOf: one }, description: 'A batch answer.' }] : [])],
    };
  }
  return {};
}

function content(b: BodyDef, c: Components): Json {
  return { [b.mediaType ?? '*/*']: { schema: bodySchema(b, c) } };
}

/** Header objects from a header-set schema of schemas/ (its own properties and those of a root $ref). */
function headers(file: string, c: Components): Json {
  const own = schemaFile(file);
  const layers = [own, ...(typeof own.$ref === 'string' ? [schemaFile(own.$ref)] : [])];
  const required = new Set(layers.flatMap((l) => (Array.isArray(l.required) ? l.required.map(String) : [])));
  const out: Json = {};
  for (const layer of [...layers].reverse()) {
    for (const [name, prop] of Object.entries(isSchemaNode(layer.properties) ? layer.properties : {})) {
      const node = prop as SchemaNode;
      const { description, 'x-source': source, 'x-rules': rules, ...schema } = node;
      out[name] = {
        description,
        required: required.has(name),
        schema: c.inline(schema),
        'x-source': source,
        'x-rules': rules,
      };
    }
  }
  return out;
}

const fileOfName = (name: string) => `${name.split('#')[0]}.schema.json`;

function responses(e: EndpointDef, method: HttpMethod, c: Components): Json {
  const b = e.response;
  const rl = e.rateLimited ? { headers: headers(fileOfName(SCHEMA.rateLimitHeaders), c) } : {};
  const ok: Json =
    method === 'HEAD'
      ? { description: 'Success; a HEAD answer has no body.', ...rl, 'x-rules': [...b.rules] }
      : {
          description: b.note ?? 'Success.',
          ...rl,
          content: content(b, c),
          'x-rules': sortRules([...b.rules, ...(b.schema ? rootRules(b.schema) : [])]),
        };
  const out: Json = { '2XX': ok };
  if (b.empty && method !== 'HEAD') out['204'] = { description: b.empty, 'x-rules': rulesOf(b.empty) };
  if (e.rateLimited)
    out['429'] = {
      description:
        'Rate limit exceeded (Remaining reached 0): retry-after carries the seconds to wait. The body: not shown; left open.',
      headers: headers(fileOfName(SCHEMA.rateLimitDenialHeaders), c),
      ...(method === 'HEAD' ? {} : { content: { '*/*': OPEN_BODY } }),
      'x-source': 'Errors; Limits',
      'x-rules': ['RL-06', 'RL-07'],
    };
  out.default = { description: NOT_SHOWN, ...(method === 'HEAD' ? {} : { content: { '*/*': OPEN_BODY } }) };
  return out;
}

/** A schema file's root x-rules. */
function rootRules(name: string): string[] {
  const rules = schemaFile(fileOfName(name))['x-rules'];
  return Array.isArray(rules) ? rules.map(String) : [];
}

/** The rule ids a sentence names, e.g. `(RPC-09)`. */
const rulesOf = (text: string): string[] => sortRules(text.match(/\b[A-Z]+-\d{2}\b/g) ?? []);

function operation(e: EndpointDef, method: HttpMethod, c: Components): Json {
  const notes = [
    `From the description: ${e.source}.`,
    ...(e.contentTypeJson && !e.requestBody ? ['The request carries the header Content-Type: application/json.'] : []),
  ];
  const open = openFormsOf(e.servers, e.nodePath);
  return {
    operationId:
      e.methods.length > 1 && method !== e.methods[0] ? `${e.id}${method[0]}${method.slice(1).toLowerCase()}` : e.id,
    summary: e.summary,
    description: notes.join(' '),
    tags: [e.family],
    security: securityOf(e.servers, e.nodePath),
    ...(e.requestBody && {
      requestBody: {
        required: true,
        content: content(e.requestBody, c),
        'x-rules': sortRules([
          ...e.requestBody.rules,
          ...(e.requestBody.schema ? rootRules(e.requestBody.schema) : []),
        ]),
      },
    }),
    responses: responses(e, method, c),
    'x-source': e.source,
    'x-rules': sortRules(e.rules),
    ...(open.length && { 'x-open-security': open }),
  };
}

/** The OpenAPI 3.1 document, as a plain object (JSON.stringify it). */
export function openApiDocument(): Json {
  const c = new Components('#/components/schemas/');
  const paths: Json = {};
  for (const e of Object.values(ENDPOINTS) as EndpointDef[]) {
    const item: Json = {
      servers: e.servers.map(serverObject),
      ...(e.params.length && { parameters: e.params.map((p) => parameter(p, c)) }),
    };
    for (const m of e.methods) item[m.toLowerCase()] = operation(e, m, c);
    paths[e.path] = item;
  }
  const doc: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Blockchain access service',
      version: TOOL.version,
      summary: `The service as ${TOOL.name} checks it: endpoints, credential forms, bodies and the rules that judge them.`,
      description: [
        `Generated by \`${TOOL.name} export\` from its JSON Schemas (schemas/) and its rule catalogue; do not edit.`,
        '`x-rules` names the rule ids that judge an element (their kind and title are under `x-rule-catalogue`);',
        '`x-source` names the section of the service description it comes from. Where the description does not show',
        'a body, the document leaves it open (an empty schema) and says so; `x-open-security` lists credential forms',
        'the description leaves open, which chainprobe tries and records (never required). WebSocket and gRPC access',
        'are listed under `x-transports`.',
      ].join(' '),
    },
    servers: (['base', 'legacy', 'node'] as const).map(serverObject),
    tags: [...new Set(Object.values(ENDPOINTS).map((e) => e.family))].map((name) => ({ name })),
    paths,
    components: { schemas: {}, securitySchemes: securitySchemes() },
    'x-transports': TRANSPORTS.map((t) => ({
      id: t.id,
      transport: t.transport,
      address: t.address,
      summary: t.summary,
      credentials: transportForms(t.nodePath),
      'x-source': t.source,
      'x-rules': sortRules(t.rules),
    })),
  };
  (doc.components as Json).schemas = c.sorted();
  doc['x-rule-catalogue'] = ruleCatalogue(doc);
  return doc;
}
