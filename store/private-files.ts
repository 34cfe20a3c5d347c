import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * The store's files hold every tenant's Secrets and the CA key; kubeconfigs hold client keys.
 * They are for the user the process runs as alone: files 0600 in directories 0700.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Makes `dir` (and any missing parent) 0700, and tightens what is already in it — earlier
 * versions made data directories 0755 with 0644 files: every directory under it 0700, every
 * file 0600. Symbolic links are left alone (not followed).
 */
export async function privateDataDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await tighten(dir);
}

async function tighten(dir: string): Promise<void> {
  await ignoreVanished(fs.chmod(dir, PRIVATE_DIR_MODE));
  const entries = await ignoreVanished(fs.readdir(dir, { withFileTypes: true }));
  for (const entry of entries ?? []) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await tighten(full);
    else if (entry.isFile()) await ignoreVanished(fs.chmod(full, PRIVATE_FILE_MODE));
  }
}

/** A file removed meanwhile (a store running in a subdirectory rotates its log) needs no tightening. */
async function ignoreVanished<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes a file only its owner can read, tightening one that already existed with a looser mode. */
export async function writePrivateFile(file: string, data: string): Promise<void> {
  const handle = await fs.open(file, 'w', PRIVATE_FILE_MODE);
  try {
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}
