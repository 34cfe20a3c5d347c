import { promises as fs } from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from '../private-files.js';
import type { Mutation } from './mvcc.js';

/** One write as the log holds it: a JSON line, so a torn tail is easy to recognise and cut. */
export interface LogRecord {
  r: number;
  op: Mutation['op'];
  k: string;
  v?: string;
  l?: string;
}

/**
 * Log files are numbered in the order they were started (`wal-<sequence>.log`); a snapshot
 * covers a prefix of them, and replay skips records at or before the snapshot's revision.
 */
const LOG_NAME = /^wal-(\d{12})\.log$/;

function logFileName(sequence: number): string {
  return `wal-${String(sequence).padStart(12, '0')}.log`;
}

/** Log files in `dir`, oldest first. */
export async function listLogs(dir: string): Promise<{ file: string; sequence: number }[]> {
  const names = await fs.readdir(dir);
  return names
    .map((name) => ({ name, match: LOG_NAME.exec(name) }))
    .filter((e) => e.match)
    .map((e) => ({ file: path.join(dir, e.name), sequence: Number(e.match![1]) }))
    .sort((a, b) => a.sequence - b.sequence);
}

/**
 * Reads records from a log file. A record that does not parse is only forgiven at the very end
 * of the newest file (a write the crash interrupted, never acknowledged): that tail is cut off.
 * Anywhere else it is corruption and opening the store fails rather than lose data silently.
 */
export async function readLog(file: string, isNewest: boolean): Promise<LogRecord[]> {
  const buffer = await fs.readFile(file);
  const records: LogRecord[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const newline = buffer.indexOf(0x0a, offset);
    const end = newline === -1 ? buffer.length : newline;
    const record = parseRecord(buffer.subarray(offset, end).toString('utf8'));
    if (!record || newline === -1) {
      if (isNewest && !hasRecordAfter(buffer, end + 1)) {
        await fs.truncate(file, offset);
        break;
      }
      throw new Error(`write-ahead log ${file} is corrupt at byte ${offset}; refusing to start without it`);
    }
    records.push(record);
    offset = end + 1;
  }
  return records;
}

function hasRecordAfter(buffer: Buffer, offset: number): boolean {
  while (offset < buffer.length) {
    const newline = buffer.indexOf(0x0a, offset);
    const end = newline === -1 ? buffer.length : newline;
    if (newline !== -1 && parseRecord(buffer.subarray(offset, end).toString('utf8'))) return true;
    offset = end + 1;
  }
  return false;
}

function parseRecord(line: string): LogRecord | null {
  try {
    const r = JSON.parse(line) as LogRecord;
    if (typeof r.r !== 'number' || typeof r.k !== 'string') return null;
    if (r.op === 'put' && typeof r.v === 'string') return r;
    if (r.op === 'del') return r;
    return null;
  } catch {
    return null;
  }
}

export function toRecord(revision: number, mutation: Mutation): LogRecord {
  if (mutation.op === 'del') return { r: revision, op: 'del', k: mutation.key };
  const record: LogRecord = { r: revision, op: 'put', k: mutation.key, v: mutation.value };
  if (mutation.lease) record.l = mutation.lease;
  return record;
}

export function toMutation(record: LogRecord): Mutation {
  if (record.op === 'del') return { op: 'del', key: record.k };
  return record.l
    ? { op: 'put', key: record.k, value: record.v!, lease: record.l }
    : { op: 'put', key: record.k, value: record.v! };
}

/**
 * Append-only log with group commit: records appended while a flush is in progress are written
 * together by the next one, with a single `fdatasync` for the lot, so durability costs one disk
 * sync per batch rather than per write. `append` resolves only when its record is durable.
 */
export class WriteAheadLog {
  private pending: string[] = [];
  private batch = deferred();
  private flushing = false;
  private loop: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  bytes = 0;

  private constructor(
    private readonly handle: fs.FileHandle,
    readonly file: string,
    readonly sequence: number,
    private readonly fsync: boolean,
  ) {}

  static async create(dir: string, sequence: number, fsync: boolean): Promise<WriteAheadLog> {
    const file = path.join(dir, logFileName(sequence));
    const handle = await fs.open(file, 'wx', PRIVATE_FILE_MODE);
    if (fsync) await syncDir(dir);
    return new WriteAheadLog(handle, file, sequence, fsync);
  }

  append(record: LogRecord): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const line = JSON.stringify(record) + '\n';
    this.pending.push(line);
    this.bytes += line.length;
    const done = this.batch.promise;
    if (!this.flushing) this.loop = this.flushLoop();
    return done;
  }

  /** Wait for every appended record to be durable. */
  async drain(): Promise<void> {
    await this.loop;
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    await this.drain().catch(() => undefined);
    await this.handle.close();
  }

  private async flushLoop(): Promise<void> {
    this.flushing = true;
    while (this.pending.length) {
      const lines = this.pending;
      const batch = this.batch;
      this.pending = [];
      this.batch = deferred();
      try {
        await this.handle.write(lines.join(''));
        if (this.fsync) await this.handle.datasync();
        batch.resolve();
      } catch (err) {
        this.failure = new Error(`write-ahead log ${this.file} failed: ${(err as Error).message}`, { cause: err });
        batch.reject(this.failure);
        this.batch.reject(this.failure);
        this.pending = [];
      }
    }
    this.flushing = false;
  }
}

export async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
