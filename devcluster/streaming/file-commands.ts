/**
 * The file tools of the simulated container, over its in-memory file system, with the GNU
 * coreutils' output and messages: `cat`, `ls` (one name a line, as for a pipe; `-a` shows dot
 * files, other flags are accepted and ignored), `test` (`-e`, `-f`, `-d`, `-s`, `-n`, `-z`),
 * `mkdir` (`-p`).
 */
import { FsError, type ContainerFilesystem } from '../container-files/container-filesystem.js';
import type { ProcessIo } from './process-io.js';

export async function cat(args: string[], fs: ContainerFilesystem, io: ProcessIo): Promise<number> {
  let code = 0;
  for (const file of args.length > 0 ? args : ['-']) {
    if (file === '-') {
      await copyStdin(io);
      continue;
    }
    try {
      io.stdout(fs.readFile(fs.resolve(file)));
    } catch (err) {
      io.stderr(`cat: ${file}: ${fsMessage(err)}\n`);
      code = 1;
    }
  }
  return code;
}

export function ls(args: string[], fs: ContainerFilesystem, io: ProcessIo): number {
  const flags = args.filter((a) => a.startsWith('-') && a !== '-');
  const all = flags.some((f) => !f.startsWith('--') && f.includes('a'));
  const operands = args.filter((a) => !flags.includes(a));
  const named = operands.length > 0 ? operands : ['.'];
  let code = 0;
  const files: string[] = [];
  const dirs: [string, string[]][] = [];
  for (const name of named) {
    try {
      const absolute = fs.resolve(name);
      if (fs.lookup(absolute).kind === 'dir') {
        const entries = fs.list(absolute).map(([entry]) => entry);
        dirs.push([name, all ? ['.', '..', ...entries] : entries.filter((e) => !e.startsWith('.'))]);
      } else files.push(name);
    } catch (err) {
      io.stderr(`ls: cannot access '${name}': ${fsMessage(err)}\n`);
      code = 2;
    }
  }
  const blocks = files.length > 0 ? [files.sort().join('\n') + '\n'] : [];
  for (const [name, entries] of dirs) {
    const header = named.length > 1 ? `${name}:\n` : '';
    blocks.push(header + entries.map((e) => `${e}\n`).join(''));
  }
  if (blocks.length > 0) io.stdout(blocks.join('\n'));
  return code;
}

export function test(args: string[], fs: ContainerFilesystem, io: ProcessIo): number {
  if (args.length === 0) return 1;
  if (args.length === 1) return args[0] === '' ? 1 : 0;
  if (args.length !== 2) {
    io.stderr('test: too many arguments\n');
    return 2;
  }
  const [operator, operand] = args;
  const node = () => {
    try {
      return fs.lookup(fs.resolve(operand));
    } catch (err) {
      if (err instanceof FsError) return null;
      throw err;
    }
  };
  const truth = (value: boolean) => (value ? 0 : 1);
  switch (operator) {
    case '-e':
      return truth(node() !== null);
    case '-f':
      return truth(node()?.kind === 'file');
    case '-d':
      return truth(node()?.kind === 'dir');
    case '-s': {
      const found = node();
      return truth(found?.kind === 'file' ? found.data.length > 0 : found !== null);
    }
    case '-n':
      return truth(operand !== '');
    case '-z':
      return truth(operand === '');
    default:
      io.stderr(`test: ${operator}: unary operator expected\n`);
      return 2;
  }
}

export function mkdir(args: string[], fs: ContainerFilesystem, io: ProcessIo): number {
  const parents = args.some((a) => a === '-p' || a === '--parents');
  const dirs = args.filter((a) => !a.startsWith('-'));
  if (dirs.length === 0) {
    io.stderr("mkdir: missing operand\nTry 'mkdir --help' for more information.\n");
    return 1;
  }
  let code = 0;
  for (const dir of dirs) {
    try {
      fs.mkdir(fs.resolve(dir), parents);
    } catch (err) {
      io.stderr(`mkdir: cannot create directory '${dir}': ${fsMessage(err)}\n`);
      code = 1;
    }
  }
  return code;
}

/** The C library's text for a file system error; anything else is no file system error and is thrown on. */
export function fsMessage(err: unknown): string {
  if (err instanceof FsError) return err.message;
  throw err;
}

export async function copyStdin(io: ProcessIo): Promise<void> {
  if (!io.stdin) return;
  try {
    for await (const chunk of io.stdin) io.stdout(chunk);
  } catch {
    // The client went away mid-stream: there is no one left to answer.
  }
}
