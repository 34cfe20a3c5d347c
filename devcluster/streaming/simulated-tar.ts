/**
 * `tar` in the simulated container, enough for `kubectl cp` and the pipes its help suggests:
 * `tar cf - PATH...` (create: directories recursively, symbolic links as links), `tar xf - -C DIR`
 * and kubectl's `tar -xmf -` / `tar --no-same-permissions --no-same-owner -xmf -` (extract), and
 * `t` (list). The archive is `-` (stdin or stdout) or a file in the container. Options are read as
 * GNU tar reads them (a first word without a dash is a bundle of letters; `-C`/`-f` take the
 * next word), and its messages and exit codes (2 on failure) are GNU tar's. The format is
 * tar-stream's ustar (with pax headers for long names).
 */
import path from 'node:path';
import tar, { type Header, type Extract } from 'tar-stream';
import { FsError, type ContainerFilesystem, type FsNode } from '../container-files/container-filesystem.js';
import { fsMessage } from './file-commands.js';
import type { ProcessIo } from './process-io.js';

interface TarOptions {
  mode: 'c' | 'x' | 't';
  archive: string;
  directory: string | null;
  verbose: boolean;
  touch: boolean;
  operands: string[];
}

class UsageError extends Error {}

const IGNORED_LONG = new Set([
  '--no-same-permissions',
  '--no-same-owner',
  '--same-permissions',
  '--same-owner',
  '--preserve-permissions',
  '--overwrite',
]);

export async function runTar(args: string[], fs: ContainerFilesystem, io: ProcessIo): Promise<number> {
  let options: TarOptions;
  try {
    options = parseOptions(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`tar: ${err.message}\nTry 'tar --help' or 'tar --usage' for more information.\n`);
    return 2;
  }
  const cwd = options.directory === null ? fs.workingDir : fs.resolve(options.directory);
  if (options.directory !== null) {
    try {
      if (fs.lookup(cwd).kind !== 'dir') throw new FsError('ENOTDIR');
    } catch (err) {
      io.stderr(
        `tar: ${options.directory}: Cannot open: ${fsMessage(err)}\ntar: Error is not recoverable: exiting now\n`,
      );
      return 2;
    }
  }
  if (options.mode !== 'c' && options.archive !== '-') {
    try {
      fs.readFile(fs.resolve(options.archive, cwd));
    } catch (err) {
      io.stderr(
        `tar: ${options.archive}: Cannot open: ${fsMessage(err)}\ntar: Error is not recoverable: exiting now\n`,
      );
      return 2;
    }
  }
  const failed = options.mode === 'c' ? await create(options, fs, cwd, io) : await extract(options, fs, cwd, io);
  if (!failed) return 0;
  io.stderr('tar: Exiting with failure status due to previous errors\n');
  return 2;
}

function parseOptions(args: string[]): TarOptions {
  const words = [...args];
  let mode: TarOptions['mode'] | null = null;
  const options = { archive: '', directory: null as string | null, verbose: false, touch: false };
  const operands: string[] = [];
  const takeValue = (letter: string, rest: string): string => {
    const value = rest || words.shift();
    if (value === undefined) throw new UsageError(`option requires an argument -- '${letter}'`);
    return value;
  };
  const letters = (bundle: string, oldStyle: boolean) => {
    for (let i = 0; i < bundle.length; i++) {
      const letter = bundle[i];
      switch (letter) {
        case 'c':
        case 'x':
        case 't':
          if (mode && mode !== letter)
            throw new UsageError("You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option");
          mode = letter;
          break;
        case 'f':
        case 'C': {
          // In the old style the values follow the bundle; in the new one, the rest of the word is the value.
          const value = takeValue(letter, oldStyle ? '' : bundle.slice(i + 1));
          if (letter === 'f') options.archive = value;
          else options.directory = value;
          if (!oldStyle) return;
          break;
        }
        case 'v':
          options.verbose = true;
          break;
        case 'm':
          options.touch = true;
          break;
        case 'o':
        case 'p':
          break;
        default:
          throw new UsageError(`invalid option -- '${letter}'`);
      }
    }
  };
  const first = words[0];
  if (first !== undefined && !first.startsWith('-')) letters(words.shift()!, true);
  while (words.length > 0) {
    const word = words.shift()!;
    if (word === '--') {
      operands.push(...words.splice(0));
    } else if (word.startsWith('--')) {
      const [name, value] = word.split(/=(.*)/s, 2);
      if (name === '--file') options.archive = value ?? takeValue('f', '');
      else if (name === '--directory') options.directory = value ?? takeValue('C', '');
      else if (name === '--extract' || name === '--get') letters('x', true);
      else if (name === '--create') letters('c', true);
      else if (name === '--list') letters('t', true);
      else if (name === '--verbose') options.verbose = true;
      else if (name === '--touch') options.touch = true;
      else if (!IGNORED_LONG.has(name)) throw new UsageError(`unrecognized option '${word}'`);
    } else if (word.startsWith('-') && word !== '-') letters(word.slice(1), false);
    else operands.push(word);
  }
  if (!mode) throw new UsageError("You must specify one of the '-Acdtrux', '--delete' or '--test-label' options");
  if (mode === 'c' && operands.length === 0) throw new UsageError('Cowardly refusing to create an empty archive');
  // Without -f GNU tar uses its default device; kubectl always names one.
  return { mode, ...options, archive: options.archive || '-', operands };
}

/** Writes the archive; resolves to whether anything failed. */
async function create(options: TarOptions, fs: ContainerFilesystem, cwd: string, io: ProcessIo): Promise<boolean> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const toStdout = options.archive === '-';
  const draining = (async () => {
    for await (const chunk of pack as AsyncIterable<Buffer>) {
      if (toStdout) io.stdout(chunk);
      else chunks.push(chunk);
    }
  })();
  let failed = false;
  let warnedAbsolute = false;
  const add = (name: string, node: FsNode) => {
    const header: Partial<Header> & { name: string } = {
      name,
      mode: node.mode,
      mtime: node.mtime,
      uid: 0,
      gid: 0,
      uname: 'root',
      gname: 'root',
    };
    if (options.verbose) {
      // The listing goes where the archive does not.
      const listing = `${name}${node.kind === 'dir' ? '/' : ''}\n`;
      if (toStdout) io.stderr(listing);
      else io.stdout(listing);
    }
    if (node.kind === 'file') pack.entry({ ...header, type: 'file', size: node.data.length }, node.data);
    else if (node.kind === 'symlink') pack.entry({ ...header, type: 'symlink', linkname: node.target });
    else {
      pack.entry({ ...header, type: 'directory' });
      for (const [child, childNode] of [...node.entries].sort(([a], [b]) => (a < b ? -1 : 1)))
        add(`${name.replace(/\/$/, '')}/${child}`, childNode);
    }
  };
  for (const operand of options.operands) {
    let node: FsNode;
    try {
      node = fs.lookup(fs.resolve(operand, cwd), false);
    } catch (err) {
      io.stderr(`tar: ${operand}: Cannot stat: ${fsMessage(err)}\n`);
      failed = true;
      continue;
    }
    let name = path.posix.normalize(operand);
    if (name.startsWith('/')) {
      if (!warnedAbsolute) io.stderr("tar: Removing leading `/' from member names\n");
      warnedAbsolute = true;
      name = name.replace(/^\/+/, '') || '.';
    }
    add(name, node);
  }
  pack.finalize();
  await draining;
  if (!toStdout) {
    try {
      fs.writeFile(fs.resolve(options.archive, cwd), Buffer.concat(chunks));
    } catch (err) {
      io.stderr(`tar: ${options.archive}: Cannot open: ${fsMessage(err)}\n`);
      return true;
    }
  }
  return failed;
}

/** Reads the archive and extracts (or lists) it; resolves to whether anything failed. */
async function extract(options: TarOptions, fs: ContainerFilesystem, cwd: string, io: ProcessIo): Promise<boolean> {
  const extractor = tar.extract();
  const feeding = feed(extractor, options, fs, cwd, io);
  let failed = false;
  let warnedAbsolute = false;
  try {
    for await (const entry of extractor) {
      const data = await collect(entry as AsyncIterable<Buffer>);
      const header = entry.header;
      let name = header.name;
      if (name.startsWith('/')) {
        if (!warnedAbsolute) io.stderr("tar: Removing leading `/' from member names\n");
        warnedAbsolute = true;
        name = name.replace(/^\/+/, '');
      }
      if (name.split('/').includes('..')) {
        io.stderr(`tar: ${name}: Member name contains '..'\n`);
        failed = true;
        continue;
      }
      if (options.mode === 't' || options.verbose) io.stdout(`${name}\n`);
      if (options.mode === 't' || name === '' || name === '.' || name === './') continue;
      const target = fs.resolve(name, cwd);
      const mtime = options.touch ? new Date() : (header.mtime ?? new Date());
      try {
        if (header.type === 'directory') fs.mkdir(target, true, (header.mode ?? 0o755) & 0o7777);
        else {
          fs.mkdir(path.posix.dirname(target), true);
          if (header.type === 'symlink') fs.symlink(target, header.linkname ?? '', mtime);
          else if (header.type === 'link') fs.writeFile(target, fs.readFile(fs.resolve(header.linkname ?? '', cwd)));
          else if (header.type === 'file' || header.type === 'contiguous-file')
            fs.writeFile(target, data, (header.mode ?? 0o644) & 0o7777, mtime);
        }
      } catch (err) {
        io.stderr(`tar: ${name}: Cannot open: ${fsMessage(err)}\n`);
        failed = true;
      }
    }
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    io.stderr('tar: This does not look like a tar archive\n');
    return true;
  } finally {
    await feeding;
  }
  return failed;
}

async function feed(
  extractor: Extract,
  options: TarOptions,
  fs: ContainerFilesystem,
  cwd: string,
  io: ProcessIo,
): Promise<void> {
  try {
    if (options.archive !== '-') extractor.write(fs.readFile(fs.resolve(options.archive, cwd)));
    else if (io.stdin)
      for await (const chunk of io.stdin) {
        // An archive found broken ends the extraction: the rest of stdin is not read.
        if (extractor.destroyed) break;
        if (!extractor.write(chunk)) await drainedOrClosed(extractor);
      }
  } catch {
    // A missing archive or a client that went away: the extractor ends with what it has.
  }
  extractor.end(undefined);
}

function drainedOrClosed(extractor: Extract): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      extractor.off('drain', done);
      extractor.off('close', done);
      resolve();
    };
    extractor.on('drain', done);
    extractor.on('close', done);
  });
}

async function collect(entry: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk);
  return Buffer.concat(chunks);
}
