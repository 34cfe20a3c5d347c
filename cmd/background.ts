/**
 * `paddock serve --background` and `paddock stop`: Paddock in the background of the terminal the
 * user keeps typing in (the README's walkthrough runs in one terminal, and so does a script).
 *
 * `npm start &` is no way to do that: `kill %1` ends npm, not the server under it, which keeps
 * running with the ports and the data directory. So `serve --background` starts the server as a
 * process of its own (its output in `<data-dir>/serve.log`), waits until the server says it is
 * up (or has failed), prints what the server printed, and returns. The server writes its pid to
 * `<data-dir>/paddock.pid` whichever way it was started; `paddock stop` sends it SIGTERM and
 * waits until it is gone.
 */
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { spawnProgram, type ProgramError } from '../processes/spawn-program.js';
import { privateDataDir, writePrivateFile } from '../store/index.js';
import { PRIVATE_FILE_MODE } from '../store/private-files.js';
import { shownPath } from './serve-banner.js';

const PID_FILE = 'paddock.pid';
const LOG_FILE = 'serve.log';

/** What the server sends the `--background` parent over the IPC channel once it is up. */
interface ReadyMessage {
  ready: string;
}

/** Whether this process is a server `serve --background` started (it has the IPC channel). */
export function startedInBackground(): boolean {
  return typeof process.send === 'function';
}

/**
 * Starts `paddock serve <args>` as a process of its own and resolves to the exit code for the
 * command: 0 once the server is up (its banner printed), the server's code if it ended first.
 */
export async function serveInBackground(args: string[], dataDir: string): Promise<number> {
  await privateDataDir(dataDir);
  const logFile = path.join(dataDir, LOG_FILE);
  // Appended to: a second start while one runs (it fails: the data directory is locked) must
  // not cut the running server's log under it.
  const log = await open(logFile, 'a', PRIVATE_FILE_MODE);
  const logStart = (await log.stat()).size;
  process.stderr.write(`starting Paddock in the background (log: ${shownPath(logFile)}) … `);
  let notStarted: (err: ProgramError) => void = () => {};
  const child = spawnProgram(
    process.execPath,
    [process.argv[1], 'serve', ...args],
    { detached: true, stdio: ['ignore', log.fd, log.fd, 'ipc'] },
    (err) => notStarted(err),
  );
  await log.close();
  const outcome = await Promise.race([
    once(child, 'message').then(([message]) => ({ ready: (message as ReadyMessage).ready })),
    once(child, 'exit').then(([code]) => ({ exited: (code as number | null) ?? 1 })),
    new Promise<never>((_, reject) => (notStarted = reject)),
  ]);
  if ('exited' in outcome) {
    process.stderr.write(`failed:\n${(await readFile(logFile)).subarray(logStart).toString('utf8')}`);
    return outcome.exited || 1;
  }
  child.disconnect();
  child.unref();
  process.stderr.write(`up (pid ${child.pid})\n`);
  process.stdout.write(outcome.ready);
  return 0;
}

/** Run by the server once it is up: its pid for `paddock stop`, its banner printed and sent to the parent. */
export async function announceRunning(dataDir: string, banner: string): Promise<void> {
  await writePrivateFile(path.join(dataDir, PID_FILE), `${process.pid}\n`);
  // Printed before the parent hears of it: whoever the parent tells may read the log at once.
  await new Promise<void>((resolve) => process.stdout.write(banner, () => resolve()));
  const send = process.send?.bind(process);
  if (!send) return;
  const message: ReadyMessage = { ready: banner };
  await new Promise<void>((resolve) => send(message, undefined, undefined, () => resolve()));
  // The parent returns to the user's shell now: nothing must tie this process to it.
  process.disconnect?.();
}

/** Run by the server once it has stopped. */
export async function announceStopped(dataDir: string): Promise<void> {
  await rm(path.join(dataDir, PID_FILE), { force: true });
}

/**
 * `paddock stop`: SIGTERM to the server running on `dataDir`, then waits until it is gone.
 * Resolves to the exit code: 1 when no server runs there.
 */
export async function stopServer(dataDir: string, timeoutSeconds: number): Promise<number> {
  const pidFile = path.join(dataDir, PID_FILE);
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : undefined;
  if (!pid || !isPaddock(pid)) {
    if (pid) await rm(pidFile, { force: true });
    process.stderr.write(
      `paddock: no Paddock runs on ${shownPath(dataDir)} (${pid ? `${PID_FILE} named pid ${pid}, which is not Paddock; removed it` : `no ${PID_FILE}`})\n`,
    );
    return 1;
  }
  process.stderr.write(`stopping Paddock (pid ${pid}) … `);
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutSeconds * 1000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      process.stderr.write(`still running after ${timeoutSeconds} s\n`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.stderr.write('stopped\n');
  return 0;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` is a Paddock server: alive, and where the system says what a process runs
 * (/proc on Linux), running `serve`. A pid file a killed server left behind may name a pid the
 * system has since given to another process, which must not get the SIGTERM.
 */
function isPaddock(pid: number): boolean {
  if (!isAlive(pid)) return false;
  const cmdline = `/proc/${pid}/cmdline`;
  return (
    !existsSync('/proc/self/cmdline') ||
    (existsSync(cmdline) && readFileSync(cmdline, 'utf8').split('\0').includes('serve'))
  );
}
