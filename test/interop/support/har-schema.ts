// Validates a HAR against the HAR 1.2 JSON Schemas of the `har-schema` package (draft-06, one file
// per object), with ajv: an independent statement of the format, not chainprobe's own code.
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ErrorObject } from 'ajv';

const require = createRequire(import.meta.url);

let validateHar: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function validator() {
  if (validateHar) return validateHar;
  const Ajv = (require('ajv') as { default: new (o: object) => AjvClass }).default;
  const addFormats = (require('ajv-formats') as { default: (a: AjvClass) => void }).default;
  // har-schema uses draft-06 and a few keywords of its own (`optional`, `min`): not checks.
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  addFormats(ajv);
  const schemas = require('har-schema') as Record<string, object>;
  for (const s of Object.values(schemas)) ajv.addSchema(s);
  validateHar = ajv.getSchema('har.json#') as typeof validateHar;
  if (!validateHar) throw new Error('har-schema: no har.json schema');
  return validateHar;
}

/** The HAR 1.2 problems of a parsed HAR, one line each; empty when it is valid. */
export function harProblems(har: unknown): string[] {
  const v = validator();
  if (v(har)) return [];
  return (v.errors ?? []).map((e) => `${e.instancePath || '(root)'}: ${e.message ?? e.keyword}`);
}
