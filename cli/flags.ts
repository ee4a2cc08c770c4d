// Flags several commands take, defined once.
import type { FlagDef } from './args.js';

export const SUMMARY_MD_FLAG = {
  type: 'string',
  value: '<file.md>',
  path: true,
  help: 'also write a Markdown summary (headline, failing rules with their curl lines, counts); on GitHub Actions it is appended to the job summary too',
} as const satisfies FlagDef;
