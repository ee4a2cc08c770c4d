// One way to build an ajv 2020-12 instance with formats. ajv ships CommonJS with a `default`
// export, which NodeNext typing sees as a namespace; createRequire sidesteps that in one place.
import { createRequire } from 'node:module';
import type { Ajv2020 as AjvClass, Options, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

// Loaded on first use: a module that imports this one is not always one that validates (a command
// that only reads flags, a merge of results files).
const require = createRequire(import.meta.url);
let loaded: { Ajv2020: typeof AjvClass; addFormats: (ajv: AjvClass) => AjvClass } | undefined;

export type Ajv = AjvClass;
export type { ErrorObject, Options, ValidateFunction };

export function createAjv(options: Options = {}): Ajv {
  loaded ??= {
    Ajv2020: (require('ajv/dist/2020') as { Ajv2020: typeof AjvClass }).Ajv2020,
    addFormats: (require('ajv-formats') as { default: (ajv: AjvClass) => AjvClass }).default,
  };
  const ajv = new loaded.Ajv2020({ allErrors: true, strict: false, ...options });
  loaded.addFormats(ajv);
  return ajv;
}
