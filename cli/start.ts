// `npm start` (the bin's `chainprobe`) - the main job. Without --target it tests the embedded
// reference service. The flags, their checks and `--help` come from START (cli/start-flags.ts,
// docs/commands.md too); the run itself is cli/start-main.ts, loaded once the flags are read.
// Exit: 0 no fail/error, 1 a check failed or errored or none was checked, 2 the run could not start.
import { exitWith, UsageError } from './fatal.js';
import { commandLine, isMain } from './args.js';
import { START } from './start-flags.js';

export { START };

/** Runs the command on process.argv: as its own script (npm start) or as the bin's default command. */
export function cli(): void {
  let redact = (s: string): string => s;
  const run = async (): Promise<number> => {
    const argv = process.argv.slice(2);
    if (argv.some((a) => a === '--token' || a.startsWith('--token='))) {
      throw new UsageError(
        '--token: tokens are never taken from the command line; put it in an environment variable and pass --token-env <NAME>',
      );
    }
    const values = commandLine(START, argv).values;
    const run = await import('./start-main.js');
    redact = (s) => run.redactLine(s);
    return run.main(values);
  };
  run().then(
    (code) => process.exit(code),
    (e) => exitWith(START.prefix, e, (s) => redact(s)),
  );
}

if (isMain(import.meta.url)) cli();
