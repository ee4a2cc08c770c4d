// `chainprobe export`: results in other tools' formats. Not built yet (it comes with the interop
// work); until then the command answers --help and says so in one line, exit 2.
import { exitWith, UsageError } from './fatal.js';
import { commandLine, defineCommand, isMain } from './args.js';

export const EXPORT = defineCommand({
  invocation: 'npm run export --',
  prefix: 'chainprobe export',
  summary: "Converts a run's results.json into other tools' formats. Not available in this version.",
  flags: {},
  exit: ['2  not available in this version (or a bad flag)'],
});

/** Runs the command on process.argv (npm run export, or chainprobe export). */
export function cli(): void {
  try {
    commandLine(EXPORT);
    throw new UsageError('not available in this version of chainprobe');
  } catch (e) {
    exitWith(EXPORT.prefix, e);
  }
}

if (isMain(import.meta.url)) cli();
