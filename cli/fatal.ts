// Command-line failure: one clear line on stderr, no stack trace, a fixed exit status.
import { TargetError } from '../src/target-file/load.js';

export class UsageError extends Error {}

/** Exit 2: the run could not start. */
export function exitWith(prefix: string, e: unknown, redact: (s: string) => string = (s) => s): never {
  const lines = e instanceof TargetError ? e.problems : [e instanceof Error ? e.message.split('\n')[0]! : String(e)];
  for (const line of lines) process.stderr.write(`${prefix}: ${redact(line)}\n`);
  process.exit(2);
}
