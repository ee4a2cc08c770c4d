// A fault switch breaks exactly one rule of the catalogue in a realistic way, so the suite can
// prove it catches what it claims. The catalogue is data: self-check and reports read it.

export type FaultFamily = 'auth' | 'universal' | 'native' | 'nft' | 'nodes' | 'limiter' | 'errors';

export interface FaultDef {
  /** The --fault name, kebab-case, e.g. `xapikey-case-sensitive`. */
  name: string;
  /** The rule id it breaks. */
  rule: string;
  family: FaultFamily;
  /** One line: what the faulty service does. */
  description: string;
}
