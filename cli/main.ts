#!/usr/bin/env node
// `chainprobe [command] [flags]`, the package's one command. Without a command it runs the suite
// (what `npm start --` runs in a clone); the commands are the npm scripts of the same names. Only
// the module of the command asked for is loaded, so --version and --help answer at once.
import { BIN_COMMANDS, binWords, useBinNames } from './args.js';
import { didYouMean } from '../src/suggest.js';

type Command = () => Promise<{ cli(): void }>;

/** The bin's commands besides the run itself, each the npm script of its name in a clone. */
export const SUBCOMMANDS: Record<(typeof BIN_COMMANDS)[number], Command> = {
  reference: () => import('./reference.js'),
  merge: () => import('./merge.js'),
  compare: () => import('./compare.js'),
  selfcheck: () => import('./selfcheck.js'),
  export: () => import('./export.js'),
  'k6-bundle': () => import('./k6-bundle.js'),
};

async function main(): Promise<void> {
  useBinNames();
  const name = process.argv[2];
  if (name !== undefined && Object.hasOwn(SUBCOMMANDS, name)) {
    // The command sees its own flags only, as under npm run.
    process.argv.splice(2, 1);
    (await SUBCOMMANDS[name as keyof typeof SUBCOMMANDS]()).cli();
    return;
  }
  if (name !== undefined && /^[a-z][\w-]*$/.test(name)) {
    const known = Object.keys(SUBCOMMANDS);
    process.stderr.write(
      `chainprobe: ${name}: unknown command${didYouMean(name, known)}; the commands are ${known.join(', ')} ` +
        `(none: the run itself); see chainprobe --help\n`,
    );
    process.exit(2);
  }
  (await import('./start.js')).cli();
}

main().catch((e: unknown) => {
  process.stderr.write(`chainprobe: ${binWords(e instanceof Error ? e.message.split('\n')[0]! : String(e))}\n`);
  process.exit(2);
});
