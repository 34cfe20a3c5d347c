/**
 * The one way Paddock, its benchmarks and its tests start another program. Node reports a program
 * that cannot be started (not installed, not executable) as an 'error' event on the child, and an
 * 'error' nobody listens for ends the whole process with a bare `spawn etcd ENOENT`. Here the
 * caller must say what to do with it, and gets an error that names the program and the cause.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** A program that could not be started, or whose process failed (a signal that could not be sent). */
export class ProgramError extends Error {
  constructor(
    readonly program: string,
    message: string,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** Why a program did not start, in words: Node gives only the errno code. */
function reason(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return 'it is not installed, or not on the PATH';
    case 'EACCES':
      return 'permission denied (it is not executable)';
    default:
      return err.message;
  }
}

/**
 * `spawn(command, args, options)`, with `onError` receiving what its 'error' event would carry:
 * `cannot run etcd: it is not installed, or not on the PATH (spawn etcd ENOENT)` when it cannot
 * be started. That child emits 'close' but never 'exit', so a caller waiting for its end must
 * wait for either.
 */
export function spawnProgram(
  command: string,
  args: readonly string[],
  options: SpawnOptions,
  onError: (err: ProgramError) => void,
): ChildProcess {
  const child = spawn(command, args, options);
  child.on('error', (err: NodeJS.ErrnoException) => {
    const cause = err.syscall?.startsWith('spawn') ? `${reason(err)} (${err.message})` : err.message;
    onError(new ProgramError(command, `cannot run ${command}: ${cause}`, { cause: err }));
  });
  return child;
}
