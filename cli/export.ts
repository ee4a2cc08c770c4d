// `npm run export` / `chainprobe export` (flags: EXPORT below, also `--help`): writes the OpenAPI 3.1 and OpenRPC
// documents of the service (src/export/) to the files given.
// Exit: 0 written, 2 bad flag or a file that cannot be written (one line naming it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { commandLine, defineCommand, isMain } from './args.js';
import { exitWith, UsageError } from './fatal.js';
import { documentText, type ExportKind } from '../src/export/documents.js';
import { userCommand } from '../src/package.js';

export const EXPORT = defineCommand({
  invocation: 'npm run export --',
  prefix: 'chainprobe export',
  summary:
    "Writes chainprobe's knowledge of the service for other tools: an OpenAPI 3.1 document of every HTTP endpoint " +
    'and an OpenRPC document of the JSON-RPC methods it checks, built from schemas/ and the rule catalogue (docs/openapi.md, docs/openrpc.md).',
  flags: {
    openapi: { type: 'string', value: '<file>', path: true, help: 'write the OpenAPI 3.1 document (JSON) here' },
    openrpc: { type: 'string', value: '<file>', path: true, help: 'write the OpenRPC document (JSON) here' },
  },
  examples: ['npm run export -- --openapi openapi.json --openrpc openrpc.json'],
  exit: ['0  written', '2  bad flag, no file asked for, or a file that cannot be written'],
});

function main(): void {
  const v = commandLine(EXPORT).values;
  const wanted = (['openapi', 'openrpc'] as const).filter((k) => v[k] !== undefined);
  if (!wanted.length)
    throw new UsageError(`give --openapi <file>, --openrpc <file> or both; see ${userCommand('export', '--help')}`);
  for (const kind of wanted) write(kind, v[kind]!);
}

function write(kind: ExportKind, file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, documentText(kind));
  } catch (e) {
    throw new UsageError(
      `--${kind} ${file}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  process.stdout.write(`chainprobe export: ${kind} written to ${resolve(file)}\n`);
}

/** Runs the command on process.argv (npm run export, or chainprobe export). */
export function cli(): void {
  try {
    main();
  } catch (e) {
    exitWith(EXPORT.prefix, e);
  }
}

if (isMain(import.meta.url)) cli();
