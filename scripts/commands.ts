// Every command of package.json with its flag table: --help, docs/commands.md and the help test
// all walk this list. A new command (or a new flag in a table) shows up in all three.
import type { CommandDef } from '../src/cli/args.js';
import { START } from './cli.js';
import { REFERENCE } from './reference.js';
import { SELFCHECK } from './selfcheck.js';
import { BENCH } from './bench.js';
import { GENERATE } from './generate-types.js';
import { STABILITY } from './stability.js';
import { TEST } from './run-tests.js';
import { MERGE } from './merge.js';
import { EXPORT } from './export.js';

export interface CommandEntry {
  /** The file that runs it, relative to the repository root. */
  readonly script: string;
  readonly def: CommandDef;
}

export const COMMANDS: readonly CommandEntry[] = [
  { script: 'scripts/cli.ts', def: START },
  { script: 'scripts/reference.ts', def: REFERENCE },
  { script: 'scripts/selfcheck.ts', def: SELFCHECK },
  { script: 'scripts/bench.ts', def: BENCH },
  { script: 'scripts/generate-types.ts', def: GENERATE },
  { script: 'scripts/run-tests.ts', def: TEST },
  { script: 'scripts/stability.ts', def: STABILITY },
  { script: 'scripts/merge.ts', def: MERGE },
  { script: 'scripts/export.ts', def: EXPORT },
];
