/**
 * The process's operational log on stderr: what a long-running server (`paddock serve`, and the
 * devclusters it runs) tells its operator — a controller that failed, a watch relisted, a tenant
 * moved, an internal error — at a level (error, warn, info, debug) and from a component
 * (`tenant controller`, `eviction`, …).
 *
 * Two formats, chosen once per process by `paddock serve --log-format` (`configureLog`):
 * - `text` (the default) writes each entry as the line Paddock always wrote, `tenant controller:
 *   foofoo: …`, so nothing a user or a script reads changes;
 * - `json` writes one JSON object a line, `{"ts":"…","level":"warn","component":"tenant
 *   controller","msg":"…",…fields}`, for a log collector.
 * `--log-level` drops the entries below it (default info).
 *
 * Written here rather than taken from npm (pino is the usual choice, and runs on Node 20): text
 * mode must reproduce today's lines byte for byte, which pino does not write (it would need a
 * formatter of ours in front of it anyway); pino writes fd 2 through sonic-boom, past
 * `process.stderr`, where the servers handle a reader that went away (apiserver/process-faults.ts);
 * and what is left is one `JSON.stringify` per entry, against eleven packages pino brings. Entries
 * go through `process.stderr.write`, which Node makes synchronous for files, pipes and terminals
 * on Linux: a line is out before the call returns, and none is lost when the process ends.
 *
 * This folder imports nothing of the project, so every other may import it (docs/design.md,
 * "Layout"); `translate/` does no I/O and does not log.
 */

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

export function isLogFormat(text: string): text is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(text);
}

/** Values that say more than the message: `cluster`, `tenant`, `error` (a message or a stack), … */
export type LogFields = Record<string, unknown>;

export interface LogSettings {
  format: LogFormat;
  level: LogLevel;
  /** Where each line (ending in a newline) goes; stderr by default. */
  write: (line: string) => void;
}

const DEFAULTS: LogSettings = {
  format: 'text',
  level: 'info',
  write: (line) => void process.stderr.write(line),
};

let settings: LogSettings = { ...DEFAULTS };

/**
 * Sets the format, the level or the sink for the whole process (the `serve` command, or a test),
 * and returns how to put back what was there before.
 */
export function configureLog(changes: Partial<LogSettings>): () => void {
  const before = settings;
  settings = { ...settings, ...changes };
  return () => {
    settings = before;
  };
}

/** Whether an entry at `level` would be written now (to skip building a costly one). */
export function logEnabled(level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(settings.level);
}

/** An entry as text mode sees it; `body` is the call's own text, else `<msg>` or `<msg>: <error>`. */
export interface TextEntry {
  level: LogLevel;
  msg: string;
  fields: LogFields;
  body: string;
}

export interface LoggerOptions {
  /**
   * The line text mode writes for an entry (without its newline). Default: `<component>: <body>`,
   * the shape of most of Paddock's lines.
   */
  text?: (entry: TextEntry) => string;
}

/** Text mode writes the body alone, without the component: for lines that never named one. */
export const BARE_TEXT = ({ body }: TextEntry): string => body;

export interface Logger {
  readonly component: string;
  /** `text`, when given, is the body text mode writes (when it must differ from `<msg>: <error>`). */
  error(msg: string, fields?: LogFields, text?: string): void;
  warn(msg: string, fields?: LogFields, text?: string): void;
  info(msg: string, fields?: LogFields, text?: string): void;
  debug(msg: string, fields?: LogFields, text?: string): void;
}

/** Keys every JSON entry has; a field of the same name is left out rather than shadow them. */
const RESERVED = new Set(['ts', 'level', 'component', 'msg']);

/** The logger of one component; `options.text` is how text mode writes its entries. */
export function logger(component: string, options: LoggerOptions = {}): Logger {
  const textLine = options.text ?? (({ body }: TextEntry) => `${component}: ${body}`);
  const log = (level: LogLevel, msg: string, fields: LogFields = {}, text?: string) => {
    if (!logEnabled(level)) return;
    const line =
      settings.format === 'json'
        ? jsonLine(level, component, msg, fields)
        : textLine({
            level,
            msg,
            fields,
            body: text ?? (fields.error === undefined ? msg : `${msg}: ${errorText(fields.error)}`),
          });
    settings.write(`${line}\n`);
  };
  return {
    component,
    error: (msg, fields, text) => log('error', msg, fields, text),
    warn: (msg, fields, text) => log('warn', msg, fields, text),
    info: (msg, fields, text) => log('info', msg, fields, text),
    debug: (msg, fields, text) => log('debug', msg, fields, text),
  };
}

function jsonLine(level: LogLevel, component: string, msg: string, fields: LogFields): string {
  const entry: LogFields = { ts: new Date().toISOString(), level, component, msg };
  for (const [key, value] of Object.entries(fields))
    if (!RESERVED.has(key) && value !== undefined) entry[key] = value instanceof Error ? errorText(value) : value;
  return JSON.stringify(entry, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
}

/** An error as the log shows it: its stack when it has one, else its message. */
export function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** An error's message alone. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * What a server command tells whoever started it about its own life (`starting Paddock: …`,
 * `SIGINT: stopping Paddock … stopped`). In text mode it is the command's output: `text` is
 * written as it is (a line, or part of one), whatever the level. In json mode it is an info entry
 * (info unless `level` says otherwise) of `component` like any other, so that every line of stderr
 * is JSON for the collector reading it.
 */
export function commandMessage(
  component: string,
  text: string,
  entry: { msg: string; fields?: LogFields; level?: LogLevel },
): void {
  if (settings.format === 'json') logger(component)[entry.level ?? 'info'](entry.msg, entry.fields);
  else settings.write(text);
}
