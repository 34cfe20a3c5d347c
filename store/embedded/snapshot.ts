import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { PRIVATE_FILE_MODE } from '../private-files.js';
import type { KeyValue } from '../types.js';
import { syncDir } from './wal.js';

export const SNAPSHOT_FILE = 'snapshot.jsonl';

export interface Snapshot {
  revision: number;
  items: (KeyValue & { lease?: string })[];
}

/**
 * A snapshot is the whole state at one revision, as JSON lines: a header with the revision,
 * one line per key, and a trailer with the count so a truncated file is never mistaken for a
 * complete one. It is written to a temporary file, synced, and renamed over the old one, so a
 * crash leaves either the old snapshot or the new one.
 */
export async function writeSnapshot(
  dir: string,
  revision: number,
  items: Iterable<KeyValue & { lease?: string }>,
): Promise<void> {
  const tmp = path.join(dir, `${SNAPSHOT_FILE}.tmp`);
  const out = createWriteStream(tmp, { mode: PRIVATE_FILE_MODE });
  const write = async (line: string) => {
    if (!out.write(line + '\n')) await once(out, 'drain');
  };
  let count = 0;
  await write(JSON.stringify({ format: 1, revision }));
  for (const kv of items) {
    await write(
      JSON.stringify({
        k: kv.key,
        v: kv.value,
        c: kv.createRevision,
        m: kv.modRevision,
        ...(kv.lease ? { l: kv.lease } : {}),
      }),
    );
    count++;
  }
  await write(JSON.stringify({ end: count }));
  out.end();
  await once(out, 'finish');
  const handle = await fs.open(tmp, 'r+');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, path.join(dir, SNAPSHOT_FILE));
  await syncDir(dir);
}

export async function readSnapshot(dir: string): Promise<Snapshot | null> {
  const file = path.join(dir, SNAPSHOT_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const header = JSON.parse(lines[0] ?? '{}') as { format?: number; revision?: number };
  const trailer = JSON.parse(lines[lines.length - 1] ?? '{}') as { end?: number };
  if (header.format !== 1 || typeof header.revision !== 'number' || trailer.end !== lines.length - 2) {
    throw new Error(`snapshot ${file} is incomplete or of an unknown format; refusing to start without it`);
  }
  const items = lines.slice(1, -1).map((line) => {
    const r = JSON.parse(line) as { k: string; v: string; c: number; m: number; l?: string };
    const kv: KeyValue & { lease?: string } = { key: r.k, value: r.v, createRevision: r.c, modRevision: r.m };
    if (r.l) kv.lease = r.l;
    return kv;
  });
  return { revision: header.revision, items };
}
