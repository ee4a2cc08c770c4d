// The flag table of `npm run generate`, apart from the generator: the list of commands the
// generator documents (tools/commands.ts) holds it without importing the generator back.
import { defineCommand } from '../cli/args.js';

export const GENERATE = defineCommand({
  invocation: 'npm run generate --',
  prefix: 'chainprobe generate',
  summary:
    'Regenerates src/types/generated/ from schemas/, and docs/rules.md and docs/commands.md from the rule catalogue and the flag tables.',
  flags: {
    check: {
      type: 'boolean',
      help: 'write nothing; exit 1 when a generated file on disk is out of date (npm test runs this)',
    },
  },
  exit: ['0  written, or (--check) up to date', '1  --check found a file out of date', '2  bad flag'],
});
