// Every command's flags as one table: the parser, the validation of values, `--help` and
// docs/commands.md all read it, so the help cannot drift from what the command accepts.
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TOOL } from '../src/results.js';
import { UsageError } from './fatal.js';
import { didYouMean } from '../src/suggest.js';

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

/** Where a relative path on the command line is taken from: npm runs scripts in the package folder. */
export const userCwd = (): string => process.env.INIT_CWD || process.cwd();

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
  `${c.invocation} [options]${c.positionals ? ` ${c.positionals.value}` : ''}`;

/** Words wrapped into lines of at most `width` characters. */
function wrap(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}

/** The text `--help` prints. */
export function helpText(c: CommandDef): string {
  const rows = flagRows(c);
  const width = Math.min(34, Math.max(...rows.map((r) => r.left.length)) + 2);
  const table = rows.map((r) =>
    r.left.length + 2 > width ? `  ${r.left}\n  ${' '.repeat(width)}${r.right}` : `  ${r.left.padEnd(width)}${r.right}`,
  );
  const parts = [`Usage: ${usageLine(c)}`, '', wrap(c.summary), '', 'Options:', ...table];
  if (c.examples?.length) parts.push('', 'Examples:', ...c.examples.map((e) => `  ${e}`));
  if (c.exit?.length) parts.push('', 'Exit status:', ...c.exit.map((e) => `  ${e}`));
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
      return `${opt}: unknown option${didYouMean(name, known, flagName)}; see ${c.invocation} --help`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(msg)) return `${opt}: takes no value`;
      if (/ambiguous/.test(msg))
        return `${opt}: needs a value${def ? ` ${placeholder(def)}` : ''} (for one starting with "-", write ${opt}=-...)`;
      return `${opt}: needs a value${def ? ` ${placeholder(def)}` : ''}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const arg = /'([^']*)'/.exec(msg)?.[1] ?? '';
      return `unexpected argument "${arg}": ${c.invocation} takes only flags; see ${c.invocation} --help`;
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
