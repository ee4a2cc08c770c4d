// Where chainprobe's own files are: the repository in a clone, node_modules/chainprobe when
// installed. The code runs from dist/ (compiled at pack time) in the package and from the sources
// under tsx in a clone, so files beside the code are found from the package folder, not from here.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Whether this is the compiled package (dist/*.js) rather than the TypeScript sources. */
export const COMPILED = !import.meta.url.endsWith('.ts');

/** The extension of chainprobe's own modules as they run here (Playwright's config and specs, threads). */
export const MODULE_EXT = COMPILED ? '.js' : '.ts';

function packageRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'chainprobe')
      return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("chainprobe's package.json not found above its code");
    dir = up;
  }
}

/** The folder holding chainprobe's package.json. */
export const PACKAGE_ROOT = packageRoot();

/** A file or folder of the package: schemas/, docs/. */
export const packagePath = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);

/**
 * Whether this is an installed package rather than a clone: what a command's output defaults
 * follow (./chainprobe-report, or reports/ of the clone).
 */
export const INSTALLED = !existsSync(join(PACKAGE_ROOT, 'src', 'package.ts'));

/** Set by the bin: the process was started as `chainprobe` (cli/main.ts), not as an npm script. */
let startedByBin = false;

/** The bin calls this first: hints, help and relative paths then follow `chainprobe <command>`. */
export function useBinNames(): void {
  startedByBin = true;
}

/** Whether the process was started by the bin `chainprobe` (a relative path is then the shell's, not npm's). */
export const byBin = (): boolean => startedByBin;

/** How the user runs chainprobe's commands: the bin (`chainprobe reference`) or a clone's npm scripts (`npm run reference --`). */
export type CommandForm = 'bin' | 'npm';

/**
 * The form a user has: an installed package has only its bin (a run it starts itself, as selfcheck
 * does, still speaks of it); a clone has its npm scripts, unless its bin started the process.
 */
export const formOf = (installed: boolean, bin: boolean): CommandForm => (installed || bin ? 'bin' : 'npm');

/** The form the user has here. */
export const commandForm = (): CommandForm => formOf(INSTALLED, startedByBin);

/** The commands the bin answers besides the run, each the npm script of its name in a clone. */
export const BIN_COMMANDS = ['reference', 'merge', 'compare', 'selfcheck', 'export', 'k6-bundle'] as const;

/** chainprobe's commands: the run itself (`npm start`, the bare `chainprobe`) and the others. */
export type ChainprobeCommand = 'start' | (typeof BIN_COMMANDS)[number];

/** A command in the given form: `commandIn('bin', 'reference', '--list-faults')` is `chainprobe reference --list-faults`. */
export function commandIn(form: CommandForm, command: ChainprobeCommand, ...args: string[]): string {
  if (form === 'bin') return ['chainprobe', ...(command === 'start' ? [] : [command]), ...args].join(' ');
  const script = command === 'start' ? 'npm start' : `npm run ${command}`;
  return args.length ? `${script} -- ${args.join(' ')}` : script;
}

/**
 * A command as the user types it here, for every hint that names one: `userCommand('reference',
 * '--list-faults')` is `chainprobe reference --list-faults` from the package and `npm run reference
 * -- --list-faults` in a clone; `userCommand('start', '--help')` is `chainprobe --help` or `npm start -- --help`.
 */
export const userCommand = (command: ChainprobeCommand, ...args: string[]): string =>
  commandIn(commandForm(), command, ...args);

/**
 * Node's arguments that start the run command in the form this code runs in (the self-check's
 * variants): the compiled module beside this one (the package, or a clone's dist/), or in a clone
 * the source under tsx's loader, as `npm start` runs it.
 */
export function startArgs(): string[] {
  if (COMPILED) return [fileURLToPath(new URL('../cli/start.js', import.meta.url))];
  return sourceArgs('cli/start.ts');
}

/** Node's arguments that run one of a clone's TypeScript scripts (`cli/start.ts`) under tsx's loader. */
export const sourceArgs = (script: string): string[] => [
  '--import',
  createRequire(import.meta.url).resolve('tsx'),
  join(PACKAGE_ROOT, script),
];

/**
 * A worker thread running one of chainprobe's modules: the package's JavaScript as it is; in a clone
 * the source, with tsx's loader registered in the thread first (a worker does not inherit the loader
 * of the thread that starts it).
 */
export function moduleWorker(module: URL, options: WorkerOptions): Worker {
  if (COMPILED) return new Worker(module, options);
  const api = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const code = `import(${JSON.stringify(pathToFileURL(api).href)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}
