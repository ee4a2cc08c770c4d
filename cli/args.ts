// Every command's flags as one table: the parser, the validation of values, `--help` and
// docs/commands.md all read it, so the help cannot drift from what the command accepts.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TOOL } from '../src/tool.js';
import { UsageError } from './fatal.js';
import { didYouMean } from '../src/suggest.js';
import { BIN_COMMANDS, byBin, commandForm, useBinNames } from '../src/package.js';

export interface FlagDef {
  readonly type: 'string' | 'boolean';
  /** The one line --help shows. */
  readonly help: string;
  /** Placeholder shown after the flag, e.g. "<file.json>". */
  readonly value?: string;
  /** May be given several times; the values are collected in order. */
  readonly multiple?: boolean;
  /** Each value is also split at commas (`--fault a,b`). */
  readonly list?: boolean;
  readonly default?: string;
  /** The only values allowed. */
  readonly choices?: readonly string[];
  /** A whole number within [min, max]; the parsed value is a number. */
  readonly integer?: readonly [min: number, max: number];
  /** A path: a relative value is taken from the directory npm was run from (INIT_CWD). */
  readonly path?: boolean;
  /** An empty value is allowed (by default `--only ""` is an error). */
  readonly allowEmpty?: boolean;
  readonly short?: string;
}

export type FlagTable = Readonly<Record<string, FlagDef>>;

export interface CommandDef<F extends FlagTable = FlagTable> {
  /** How a person runs it, e.g. "npm start --". */
  readonly invocation: string;
  /** Prefix of error lines, e.g. "chainprobe selfcheck". */
  readonly prefix: string;
  /** What it does, in a sentence or two. */
  readonly summary: string;
  readonly flags: F;
  /** Positional arguments, when the command takes any. */
  readonly positionals?: { readonly value: string; readonly help: string };
  readonly examples?: readonly string[];
  /** What each exit status means. */
  readonly exit?: readonly string[];
  /** The run command only: its help names the other commands (BIN_COMMANDS). */
  readonly listsCommands?: boolean;
}

type Scalar<D extends FlagDef> = D extends { type: 'boolean' }
  ? boolean
  : D extends { integer: readonly [number, number] }
    ? number
    : string;

/** Booleans are always set (false when absent), repeated flags are arrays, flags with a default are set. */
export type FlagValues<F extends FlagTable> = {
  -readonly [K in keyof F]: F[K] extends { type: 'boolean' }
    ? boolean
    : F[K] extends { multiple: true }
      ? Scalar<F[K]>[]
      : F[K] extends { default: string }
        ? Scalar<F[K]>
        : Scalar<F[K]> | undefined;
};

export interface Parsed<F extends FlagTable> {
  readonly values: FlagValues<F>;
  readonly positionals: string[];
}

/** The flags every command answers, listed in its help after its own. */
const BUILT_IN: FlagTable = {
  help: { type: 'boolean', short: 'h', help: 'print this help and exit' },
  version: { type: 'boolean', help: `print ${TOOL.name}'s version and exit` },
};

export const defineCommand = <F extends FlagTable>(c: CommandDef<F>): CommandDef<F> => c;

export { BIN_COMMANDS, useBinNames };
const BIN_NAMES = BIN_COMMANDS.join('|');

/** A text naming npm scripts, as the bin's user runs them (`npm run merge --` -> `chainprobe merge`). */
export function binWords(text: string): string {
  if (commandForm() === 'npm') return text;
  return text
    .replace(/\bnpm start(?: --(?= |$|\n))?/gm, 'chainprobe')
    .replace(new RegExp(`\\bnpm run (${BIN_NAMES})(?: --(?= |$|\\n))?`, 'gm'), 'chainprobe $1');
}

/** How a person runs the command here: `npm start --` in a clone, `chainprobe` from the package. */
export const invocationOf = (c: CommandDef): string => (commandForm() === 'bin' ? c.prefix : c.invocation);

/**
 * Where a relative path on the command line is taken from: the folder npm was run from for an npm
 * script (npm runs scripts in the package folder), the current folder for the bin.
 */
export const userCwd = (): string => (byBin() ? process.cwd() : process.env.INIT_CWD || process.cwd());

/** Whether the module at `url` is the script node was started with (not imported by another). */
export const isMain = (url: string): boolean =>
  Boolean(process.argv[1]) && resolve(process.argv[1]!) === resolve(fileURLToPath(url));

const flagName = (name: string) => `--${name}`;

function placeholder(d: FlagDef): string {
  if (d.type === 'boolean') return '';
  return d.value ?? (d.choices ? d.choices.join('|') : d.integer ? '<n>' : '<value>');
}

function helpLine(name: string, d: FlagDef): { left: string; right: string } {
  const left = `${d.short ? `-${d.short}, ` : '    '}${flagName(name)}${placeholder(d) ? ` ${placeholder(d)}` : ''}`;
  const notes = [
    d.multiple && `repeatable${d.list ? ', or comma-separated' : ''}`,
    d.integer && `${d.integer[0]} to ${d.integer[1]}`,
    d.default !== undefined && `default ${d.default}`,
  ].filter(Boolean);
  return { left, right: notes.length ? `${d.help} [${notes.join('; ')}]` : d.help };
}

/** One row per flag (positionals first, the built-in flags last): `left` is how it is written, `right` what it does. */
export function flagRows(c: CommandDef): { left: string; right: string }[] {
  const rows = [...Object.entries(c.flags), ...Object.entries(BUILT_IN)].map(([n, d]) => helpLine(n, d));
  if (c.positionals) rows.unshift({ left: `    ${c.positionals.value}`, right: c.positionals.help });
  return rows;
}

export const usageLine = (c: CommandDef): string =>
  `${invocationOf(c)} [options]${c.positionals ? ` ${c.positionals.value}` : ''}`;

/** Columns --help fills: the terminal's width, or 80 when the output is not a terminal. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY && stream.columns ? Math.max(40, stream.columns) : 80;
}

/**
 * Words wrapped into lines of at most `width` characters, every line after the first indented by
 * `indent` (a word longer than a line keeps a line of its own).
 */
export function wrap(text: string, width: number, indent = '', first = ''): string {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = empty ? `${line}${word}` : `${line} ${word}`;
    empty = false;
  }
  return [...lines, line].join('\n');
}

/** An example command broken before its flags with a shell continuation, so every line still pastes. */
function wrapCommand(cmd: string, width: number): string {
  if (cmd.length + 2 <= width) return `  ${cmd}`;
  // A flag keeps its value on its line: the units are the command's words with each flag's value joined on.
  const units: string[] = [];
  for (const word of cmd.split(' ')) {
    if (units.length && units.at(-1)!.startsWith('--') && !units.at(-1)!.includes(' ') && !word.startsWith('-'))
      units[units.length - 1] += ` ${word}`;
    else units.push(word);
  }
  const lines: string[] = [];
  let line = '  ';
  for (const u of units) {
    if (line.trim() && line.length + 1 + u.length > width - 2) {
      lines.push(line);
      line = `      ${u}`;
    } else line = line.trim() ? `${line} ${u}` : `${line}${u}`;
  }
  return [...lines, line].join(' \\\n');
}

/** The text `--help` prints, wrapped to `width` columns. */
export function helpText(c: CommandDef, width = helpWidth()): string {
  const rows = flagRows(c).map((r) => ({ left: r.left, right: binWords(r.right) }));
  // The flags' column: as wide as the longest flag, but never more than a third of the line.
  const column = Math.min(34, Math.floor(width / 3), Math.max(...rows.map((r) => r.left.length)) + 2);
  const pad = ' '.repeat(2 + column);
  const table = rows.map((r) =>
    r.left.length + 2 > column
      ? `  ${r.left}\n${wrap(r.right, width, pad, pad)}`
      : wrap(r.right, width, pad, `  ${r.left.padEnd(column)}`),
  );
  const parts = [
    wrap(usageLine(c), width, '       ', 'Usage: '),
    '',
    wrap(binWords(c.summary), width),
    '',
    'Options:',
    ...table,
  ];
  if (c.examples?.length) parts.push('', 'Examples:', ...c.examples.map((e) => wrapCommand(binWords(e), width)));
  if (c.exit?.length) {
    // "0  no check failed": the meaning wraps under itself, after the status.
    const exits = c.exit.map((e) => {
      const [, code = '', text = e] = /^(\S+\s+)(.*)$/.exec(e) ?? [];
      return wrap(binWords(text), width, ' '.repeat(2 + code.length), `  ${code}`);
    });
    parts.push('', 'Exit status:', ...exits);
  }
  if (c.listsCommands) {
    parts.push('', 'Commands (each answers --help):', ...BIN_COMMANDS.map((n) => `  ${binWords(`npm run ${n}`)}`));
  }
  return `${parts.join('\n')}\n`;
}

/** parseArgs' messages say what went wrong in several lines; a person needs one naming the flag. */
function usageMessage(e: NodeJS.ErrnoException, c: CommandDef): string {
  const msg = e.message;
  const opt = /'(-[^' ]+)/.exec(msg)?.[1] ?? '';
  const name = opt.replace(/^-+/, '');
  const def = c.flags[name];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const known = [...Object.keys(c.flags), ...Object.keys(BUILT_IN)];
      return `${opt}: unknown option${didYouMean(name, known, flagName)}; see ${invocationOf(c)} --help`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(msg)) return `${opt}: takes no value`;
      if (/ambiguous/.test(msg))
        return `${opt}: needs a value${def ? ` ${placeholder(def)}` : ''} (for one starting with "-", write ${opt}=-...)`;
      return `${opt}: needs a value${def ? ` ${placeholder(def)}` : ''}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const arg = /'([^']*)'/.exec(msg)?.[1] ?? '';
      return `unexpected argument "${arg}": ${invocationOf(c)} takes only flags; see ${invocationOf(c)} --help`;
    }
    default:
      return msg.split('\n')[0]!;
  }
}

const shown = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);

/** Checks and converts one value; a problem names the flag. */
function convert(name: string, d: FlagDef, raw: string): string | number {
  const flag = flagName(name);
  if (raw.trim() === '' && !d.allowEmpty)
    throw new UsageError(`${flag}: is empty${d.value ? `; expected ${d.value}` : ''}`);
  if (d.choices && !d.choices.includes(raw)) {
    const list = d.choices.length === 2 ? d.choices.join(' or ') : `one of ${d.choices.join(', ')}`;
    throw new UsageError(`${flag}: must be ${list}, not ${shown(raw)}${didYouMean(raw, d.choices)}`);
  }
  if (d.integer) {
    const [min, max] = d.integer;
    const n = Number(raw);
    if (!/^\s*-?\d+\s*$/.test(raw) || n < min || n > max)
      throw new UsageError(`${flag}: expected a whole number from ${min} to ${max}, not ${shown(raw)}`);
    return n;
  }
  if (d.path) return isAbsolute(raw) ? raw : resolve(userCwd(), raw);
  return raw;
}

export type CommandLine<F extends FlagTable> = Parsed<F> | { readonly show: 'help' | 'version'; readonly text: string };

/** Parses argv against the command's table; --help and --version come back as the text to print. */
export function parseCommand<F extends FlagTable>(c: CommandDef<F>, argv: readonly string[]): CommandLine<F> {
  const all = { ...c.flags, ...BUILT_IN };
  const options = Object.fromEntries(
    Object.entries(all).map(([n, d]) => [
      n,
      { type: d.type, ...(d.multiple && { multiple: true }), ...(d.short && { short: d.short }) },
    ]),
  );
  let p;
  try {
    p = parseArgs({ args: [...argv], options, strict: true, allowPositionals: !!c.positionals });
  } catch (e) {
    throw new UsageError(usageMessage(e as NodeJS.ErrnoException, c));
  }
  const raw = p.values as Record<string, string | boolean | (string | boolean)[] | undefined>;
  if (raw.help) return { show: 'help', text: helpText(c) };
  if (raw.version) return { show: 'version', text: `${TOOL.name} ${TOOL.version}\n` };
  const values: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(c.flags)) {
    const v = raw[name];
    if (d.type === 'boolean') values[name] = v === true;
    else if (d.multiple) {
      const given = ((v as string[] | undefined) ?? []).flatMap((s) =>
        d.list
          ? s
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean)
          : [s],
      );
      if (v !== undefined && d.list && given.length === 0) throw new UsageError(`${flagName(name)}: is empty`);
      values[name] = given.map((s) => convert(name, d, s));
    } else if (v !== undefined) values[name] = convert(name, d, v as string);
    else if (d.default !== undefined)
      values[name] = d.integer ? Number(d.default) : d.path ? resolve(d.default) : d.default;
  }
  return { values: values as FlagValues<F>, positionals: p.positionals };
}

/** For a command's main(): prints help or version and exits 0, or returns the parsed flags. */
export function commandLine<F extends FlagTable>(
  c: CommandDef<F>,
  argv: readonly string[] = process.argv.slice(2),
): Parsed<F> {
  // `... --list-faults | head` closes the pipe early: that ends the output, it is not a crash.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  const r = parseCommand(c, argv);
  if ('show' in r) {
    process.stdout.write(r.text);
    process.exit(0);
  }
  return r;
}
