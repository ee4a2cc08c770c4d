// One way to build an ajv 2020-12 instance with formats. ajv ships CommonJS with a `default`
// export, which NodeNext typing sees as a namespace; createRequire sidesteps that in one place.
import { createRequire } from 'node:module';
import type { Ajv2020 as AjvClass, Options, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
const Ajv2020 = (require('ajv/dist/2020') as { Ajv2020: typeof AjvClass }).Ajv2020;
const addFormats = (require('ajv-formats') as { default: (ajv: AjvClass) => AjvClass }).default;

export type Ajv = AjvClass;
export type { ErrorObject, ValidateFunction };

export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv2020({ allErrors: true, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}
