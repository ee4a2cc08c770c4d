// The whole fault catalogue: every area's list, combined. Self-check and reports read this.
import { API_FAULTS } from './api.js';
import { LIMITER_FAULTS } from './limiter.js';
import { NODE_FAULTS } from './nodes.js';
import type { FaultDef } from './types.js';

export type { FaultDef, FaultFamily } from './types.js';

export const FAULTS: readonly FaultDef[] = [...API_FAULTS, ...NODE_FAULTS, ...LIMITER_FAULTS];

const byName = new Map(FAULTS.map((f) => [f.name, f]));

export function faultByName(name: string): FaultDef | undefined {
  return byName.get(name);
}
