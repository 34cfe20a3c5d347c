import { promises as fs } from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE } from '../private-files.js';

/**
 * One process owns an embedded store's data directory: a second one writing the same log would
 * corrupt it. The lock file holds the owner's PID; a lock left by a process that no longer runs
 * (it was killed) is taken over.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const file = path.join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await fs.open(file, 'wx', PRIVATE_FILE_MODE);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => fs.rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number((await fs.readFile(file, 'utf8').catch(() => '')).trim());
      if (owner && isRunning(owner)) {
        throw new Error(`data directory ${dir} is in use by process ${owner}`, { cause: err });
      }
      await fs.rm(file, { force: true });
    }
  }
  throw new Error(`could not lock data directory ${dir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
