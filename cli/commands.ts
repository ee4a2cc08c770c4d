// The product's commands with their flag tables: the ones the package ships. The development
// commands join them in tools/commands.ts, which --help tests and docs/commands.md walk.
import type { CommandDef } from './args.js';
import { START } from './start-flags.js';
import { REFERENCE } from './reference.js';
import { SELFCHECK } from './selfcheck.js';
import { MERGE } from './merge.js';
import { COMPARE } from './compare.js';
import { EXPORT } from './export.js';
import { K6_BUNDLE } from './k6-bundle.js';

export interface CommandEntry {
  /** The file that runs it, relative to the repository root. */
  readonly script: string;
  readonly def: CommandDef;
}

export const PRODUCT_COMMANDS: readonly CommandEntry[] = [
  { script: 'cli/start.ts', def: START },
  { script: 'cli/reference.ts', def: REFERENCE },
  { script: 'cli/selfcheck.ts', def: SELFCHECK },
  { script: 'cli/merge.ts', def: MERGE },
  { script: 'cli/compare.ts', def: COMPARE },
  { script: 'cli/export.ts', def: EXPORT },
  { script: 'cli/k6-bundle.ts', def: K6_BUNDLE },
];
