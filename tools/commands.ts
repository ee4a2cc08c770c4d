// Every command of package.json with its flag table: --help, docs/commands.md and the help test
// all walk this list. A new command (or a new flag in a table) shows up in all three.
import { PRODUCT_COMMANDS, type CommandEntry } from '../cli/commands.js';
import { BENCH } from './bench.js';
import { GENERATE } from './generate-flags.js';
import { STABILITY } from './stability.js';
import { TEST } from './run-tests.js';

export type { CommandEntry };

/** The product's commands first, then the project's own. */
export const COMMANDS: readonly CommandEntry[] = [
  ...PRODUCT_COMMANDS,
  { script: 'tools/bench.ts', def: BENCH },
  { script: 'tools/generate-types.ts', def: GENERATE },
  { script: 'tools/run-tests.ts', def: TEST },
  { script: 'tools/stability.ts', def: STABILITY },
];
