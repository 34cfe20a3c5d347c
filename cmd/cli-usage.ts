/**
 * How the `paddock` command reads its arguments and explains itself: each command declares its
 * flags once (type, default, a sentence), and both `node:util`'s parseArgs and the `--help` text
 * are made from that declaration, so the help cannot drift from what is accepted.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** Shown in the help as `(default …)`, and what the command gets when the flag is absent. */
  default?: string;
  multiple?: boolean;
  short?: string;
  /** The value's placeholder in the help: `--listen HOST:PORT`. */
  value?: string;
  /** One sentence: what the flag does. */
  help: string;
}

export interface CommandSpec<Flags extends Record<string, FlagSpec> = Record<string, FlagSpec>> {
  /** `serve`, `tenant create`: the words after `paddock`. */
  name: string;
  /** The positional arguments, as the usage line shows them: `ID`. */
  positionals?: string[];
  /** One line: what the command does. */
  summary: string;
  /** More, shown under the usage line. */
  description?: string;
  flags: Flags;
  examples?: string[];
}

/** A mistake on the command line: printed with how to get help, and exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose `--help` to point at (`tenant create`); none for `paddock` itself. */
    readonly command?: string,
  ) {
    super(message);
  }

  /** What the user reads: the mistake and where to look. */
  explain(): string {
    return `paddock: ${this.message}\nSee 'paddock ${this.command ? `${this.command} ` : ''}--help' for usage.\n`;
  }
}

const HELP_FLAG = { type: 'boolean', short: 'h', help: 'Print this help.' } as const satisfies FlagSpec;

/** What a command gets for its flags: a string where there is a default, string[] for repeatables. */
type Values<Flags extends Record<string, FlagSpec>> = {
  [K in keyof Flags]: Flags[K] extends { multiple: true }
    ? string[] | undefined
    : Flags[K] extends { type: 'boolean' }
      ? boolean | undefined
      : Flags[K] extends { default: string }
        ? string
        : string | undefined;
};

/**
 * Parses `args` as `spec` declares: unknown flags, missing values, and a wrong number of
 * positional arguments are UsageErrors. Undefined when the user asked for help (printed already
 * to stdout).
 */
export function parseCommand<Flags extends Record<string, FlagSpec>>(
  spec: CommandSpec<Flags>,
  args: string[],
  print: (text: string) => void,
): { values: Values<Flags>; positionals: string[] } | undefined {
  const options: NonNullable<ParseArgsConfig['options']> = { help: HELP_FLAG };
  for (const [name, flag] of Object.entries(spec.flags))
    options[name] = {
      type: flag.type,
      ...(flag.multiple ? { multiple: true } : {}),
      ...(flag.short ? { short: flag.short } : {}),
      ...(flag.default !== undefined ? { default: flag.default } : {}),
    };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(parseArgsMessage(err as Error & { code?: string }, args), spec.name);
  }
  if (parsed.values.help) {
    print(helpText(spec));
    return undefined;
  }
  const expected = spec.positionals ?? [];
  if (parsed.positionals.length < expected.length)
    throw new UsageError(`${spec.name} needs ${expected.slice(parsed.positionals.length).join(' ')}`, spec.name);
  if (parsed.positionals.length > expected.length)
    throw new UsageError(
      `unexpected argument ${JSON.stringify(parsed.positionals[expected.length])} for ${spec.name}`,
      spec.name,
    );
  return { values: parsed.values as Values<Flags>, positionals: parsed.positionals };
}

/** parseArgs' errors in the words kubectl uses for the same mistakes. */
function parseArgsMessage(err: Error & { code?: string }, args: string[]): string {
  const flag = /'(-[^' ]*)/.exec(err.message)?.[1] ?? args.find((a) => a.startsWith('-')) ?? '';
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown flag: ${flag}`;
  if (/argument missing/.test(err.message)) return `flag needs an argument: ${flag}`;
  if (/does not take an argument/.test(err.message)) return `flag does not take a value: ${flag}`;
  return err.message.split('\n')[0];
}

/** `--help`: usage, description, flags with their defaults, examples. */
export function helpText(spec: CommandSpec): string {
  const lines = [
    spec.summary,
    '',
    'Usage:',
    `  paddock ${[spec.name, ...(spec.positionals ?? []), '[flags]'].join(' ')}`,
  ];
  if (spec.description) lines.push('', ...spec.description.split('\n'));
  const flags = [...Object.entries(spec.flags), ['help', HELP_FLAG as FlagSpec] as const].map(([name, flag]) => ({
    names: `${flag.short ? `-${flag.short}, ` : '    '}--${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`,
    help: `${flag.help}${flag.multiple ? ' Repeatable.' : ''}${flag.default !== undefined ? ` (default ${flag.default})` : ''}`,
  }));
  const width = Math.max(...flags.map((f) => f.names.length));
  const indent = ' '.repeat(width + 5);
  lines.push(
    '',
    'Flags:',
    ...flags.map(
      (f) => `  ${f.names.padEnd(width)}   ${wrap(f.help, HELP_COLUMNS - indent.length).join(`\n${indent}`)}`,
    ),
  );
  if (spec.examples?.length) lines.push('', 'Examples:', ...spec.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

/** A comma-separated flag (`--etcd-endpoints a,b`): its items, undefined when there are none. */
export function listFlag(value: string | undefined): string[] | undefined {
  const items = value?.split(',').filter(Boolean);
  return items?.length ? items : undefined;
}

/** Help text is wrapped to this width, a terminal's least. */
const HELP_COLUMNS = 100;

/** `text` in lines of at most `width` characters, broken between words. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** The help of a command with subcommands (`paddock`, `paddock tenant`): what each one is for. */
export function commandListText(
  summary: string,
  usage: string,
  commands: { name: string; summary: string }[],
  footer: string,
): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `${[
    summary,
    '',
    'Usage:',
    `  ${usage}`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}   ${c.summary}`),
    '',
    footer,
  ].join('\n')}\n`;
}

/** A command made of verbs (`paddock tenant create`, `paddock cluster taint`): its help and how each verb parses. */
export interface VerbCommand {
  name: string;
  help: string;
  verbs: Record<string, unknown>;
  verbHelp(verb: string): CommandSpec | undefined;
}

/**
 * The verb and its parsed flags, or undefined when help was asked for (printed already): no verb,
 * `--help`, `-h` or `help` print the command's help, an unknown verb is a UsageError.
 */
export function parseVerb(
  command: VerbCommand,
  args: string[],
  print: (text: string) => void,
): { verb: string; spec: CommandSpec; values: Record<string, unknown>; positionals: string[] } | undefined {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    print(command.help.trimEnd());
    return undefined;
  }
  const spec = command.verbHelp(verb);
  if (!spec)
    throw new UsageError(
      `unknown ${command.name} command ${JSON.stringify(verb)}: ${Object.keys(command.verbs).join(', ')}`,
      command.name,
    );
  const parsed = parseCommand(spec, rest, (text) => print(text.trimEnd()));
  return parsed && { verb, spec, values: parsed.values, positionals: parsed.positionals };
}

/** Rows printed as kubectl prints a table: each column as wide as its widest cell, three spaces apart. */
export function printColumns(rows: readonly string[][], out: (line: string) => void): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows)
    out(
      row
        .map((cell, i) => cell.padEnd(widths[i] + 3))
        .join('')
        .trimEnd(),
    );
}
