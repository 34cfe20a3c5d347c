/**
 * A log file that rotates by size as kube-apiserver's audit log does (it uses lumberjack): before a
 * write that would take the file past `maxBytes`, the file is renamed to
 * `<name>-<UTC time, 2006-01-02T15-04-05.000>.<ext>` in the same directory (`audit.log` →
 * `audit-2026-12-01T20-24-14.502.log`) and a new one is started; of those backups the newest
 * `maxBackups` are kept (0 keeps all, as lumberjack's MaxBackups).
 *
 * Every line is written synchronously (`writeSync` on a file opened for appending), so a line is in
 * the file when `write` returns: there is no buffer to flush and nothing to lose when the process
 * stops or dies. A line longer than `maxBytes` still gets written, alone in a fresh file (lumberjack
 * refuses it; an audit log must not drop an event). Two rotations in the same millisecond get
 * distinct names: a backup's time is one millisecond after the previous one's at least, so no
 * rename overwrites an earlier backup and the names sort in the order they were written.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

export interface RotatingFileOptions {
  path: string;
  /** The size a file is rotated at, in bytes. */
  maxBytes: number;
  /** How many backups to keep; 0 keeps them all. */
  maxBackups: number;
}

/** lumberjack's backupTimeFormat, `2006-01-02T15-04-05.000`: an ISO time with `-` for `:`, no zone. */
function backupTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, -1).replace(/:/g, '-');
}

const BACKUP_TIME = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}$/;

export class RotatingFile {
  private fd: number | undefined;
  private size = 0;
  private lastBackupMs = 0;
  private readonly dir: string;
  private readonly prefix: string;
  private readonly ext: string;

  constructor(private readonly options: RotatingFileOptions) {
    if (!(options.maxBytes > 0)) throw new Error('the rotation size must be positive');
    this.dir = path.dirname(path.resolve(options.path));
    this.ext = path.extname(options.path);
    this.prefix = path.basename(options.path, this.ext);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.open();
  }

  /** Appends `line` (ending in a newline), rotating first when it would take the file past its size. */
  write(line: string): void {
    const bytes = Buffer.from(line, 'utf8');
    if (this.fd === undefined) this.open();
    if (this.size > 0 && this.size + bytes.length > this.options.maxBytes) this.rotate();
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd!, bytes, written);
    this.size += bytes.length;
  }

  /** The backups, oldest first (their names sort by time). */
  backups(): string[] {
    return readdirSync(this.dir)
      .filter((name) => this.backupTimeOf(name) !== undefined)
      .sort()
      .map((name) => path.join(this.dir, name));
  }

  /** Closes the file; a later write opens it again. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): void {
    this.fd = openSync(this.options.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private rotate(): void {
    this.close();
    let ms = Math.max(Date.now(), this.lastBackupMs + 1);
    while (existsSync(this.backupPath(ms))) ms++;
    this.lastBackupMs = ms;
    renameSync(this.options.path, this.backupPath(ms));
    this.open();
    this.prune();
  }

  private prune(): void {
    if (this.options.maxBackups <= 0) return;
    const backups = this.backups();
    for (const old of backups.slice(0, Math.max(0, backups.length - this.options.maxBackups))) unlinkSync(old);
  }

  private backupPath(ms: number): string {
    return path.join(this.dir, `${this.prefix}-${backupTime(ms)}${this.ext}`);
  }

  private backupTimeOf(name: string): string | undefined {
    const start = `${this.prefix}-`;
    if (!name.startsWith(start) || !name.endsWith(this.ext)) return undefined;
    const time = name.slice(start.length, name.length - this.ext.length);
    return BACKUP_TIME.test(time) ? time : undefined;
  }
}
