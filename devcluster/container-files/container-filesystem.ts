/**
 * A container's file system, in memory: directories, files and symbolic links under `/`, with
 * read-only volumes mounted over it (what the kubelet projects into the container). Errors carry
 * the errno name and the C library's wording, which the simulated commands print as a shell's
 * tools do (`cat: /x: No such file or directory`). What files hold is capped, as a container's
 * ephemeral storage is: a write past the cap fails with ENOSPC.
 */
import path from 'node:path';

export type FsNode =
  | { kind: 'dir'; mode: number; mtime: Date; entries: Map<string, FsNode>; readOnly: boolean }
  | { kind: 'file'; mode: number; mtime: Date; data: Buffer }
  | { kind: 'symlink'; mode: number; mtime: Date; target: string };

const MESSAGES = {
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EEXIST: 'File exists',
  EROFS: 'Read-only file system',
  ENOSPC: 'No space left on device',
  ELOOP: 'Too many levels of symbolic links',
} as const;

export class FsError extends Error {
  constructor(readonly code: keyof typeof MESSAGES) {
    super(MESSAGES[code]);
  }
}

/** The files of a mounted volume: paths relative to its mount point. */
export type VolumeFiles = Map<string, { data: Buffer; mode: number }>;

const ROOT_DIRECTORIES = ['bin', 'dev', 'etc', 'home', 'lib', 'proc', 'root', 'sys', 'tmp', 'usr', 'var'];
/** Linux follows at most 40 links in one lookup. */
const MAX_LINKS = 40;
/** What the files written into one container may hold in all. */
export const CONTAINER_FILES_CAPACITY = 64 * 1024 * 1024;

export class ContainerFilesystem {
  private readonly root = directory(false);
  private used = 0;

  constructor(readonly workingDir = '/') {
    for (const name of ROOT_DIRECTORIES) this.root.entries.set(name, directory(false));
  }

  /** An absolute, normalized path for `p` relative to `cwd`. */
  resolve(p: string, cwd = this.workingDir): string {
    return path.posix.resolve(cwd, p);
  }

  /** The node at an absolute path; the last component's link is followed unless `follow` is false. */
  lookup(absolute: string, follow = true): FsNode {
    return this.walk(absolute, follow, 0).node;
  }

  exists(absolute: string): boolean {
    try {
      this.lookup(absolute);
      return true;
    } catch (err) {
      if (err instanceof FsError) return false;
      throw err;
    }
  }

  readFile(absolute: string): Buffer {
    const node = this.lookup(absolute);
    if (node.kind === 'dir') throw new FsError('EISDIR');
    return (node as { data: Buffer }).data;
  }

  /** A directory's entries, sorted by name. */
  list(absolute: string): [string, FsNode][] {
    const node = this.lookup(absolute);
    if (node.kind !== 'dir') throw new FsError('ENOTDIR');
    return [...node.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  mkdir(absolute: string, parents: boolean, mode = 0o755): void {
    if (absolute === '/') {
      if (parents) return;
      throw new FsError('EEXIST');
    }
    const parentPath = path.posix.dirname(absolute);
    if (parents && !this.exists(parentPath)) this.mkdir(parentPath, true);
    const { dir, name } = this.parentOf(absolute);
    const existing = dir.entries.get(name);
    if (existing) {
      if (parents && this.lookup(absolute).kind === 'dir') return;
      throw new FsError('EEXIST');
    }
    dir.entries.set(name, { ...directory(false), mode });
  }

  writeFile(absolute: string, data: Buffer, mode = 0o644, mtime = new Date()): void {
    const { dir, name } = this.parentOf(absolute);
    const existing = dir.entries.get(name);
    if (existing?.kind === 'dir') throw new FsError('EISDIR');
    const freed = existing?.kind === 'file' ? existing.data.length : 0;
    if (this.used - freed + data.length > CONTAINER_FILES_CAPACITY) throw new FsError('ENOSPC');
    this.used += data.length - freed;
    dir.entries.set(name, { kind: 'file', mode, mtime, data });
  }

  symlink(absolute: string, target: string, mtime = new Date()): void {
    const { dir, name } = this.parentOf(absolute);
    const existing = dir.entries.get(name);
    if (existing?.kind === 'dir') throw new FsError('EISDIR');
    if (existing?.kind === 'file') this.used -= existing.data.length;
    dir.entries.set(name, { kind: 'symlink', mode: 0o777, mtime, target });
  }

  /**
   * Mounts a volume's files read-only at `mountPath` (its parents created as the runtime creates
   * mount points), replacing what was mounted there before.
   */
  mount(mountPath: string, files: VolumeFiles, mtime = new Date()): void {
    const absolute = this.resolve(mountPath, '/');
    const volume = directory(true);
    for (const [relative, file] of files) {
      const parts = relative.split('/').filter(Boolean);
      let dir = volume;
      for (const part of parts.slice(0, -1)) dir = subdirectory(dir, part, true);
      dir.entries.set(parts[parts.length - 1], { kind: 'file', mode: file.mode, mtime, data: file.data });
    }
    if (absolute === '/') return;
    let dir = this.root;
    for (const part of absolute.split('/').filter(Boolean).slice(0, -1)) dir = subdirectory(dir, part, false);
    dir.entries.set(path.posix.basename(absolute), volume);
  }

  /** The writable directory a new entry at `absolute` goes into. */
  private parentOf(absolute: string): { dir: FsNode & { kind: 'dir' }; name: string } {
    const { node, readOnly } = this.walk(path.posix.dirname(absolute), true, 0);
    if (node.kind !== 'dir') throw new FsError('ENOTDIR');
    if (readOnly) throw new FsError('EROFS');
    return { dir: node, name: path.posix.basename(absolute) };
  }

  private walk(absolute: string, follow: boolean, links: number): { node: FsNode; readOnly: boolean } {
    let node: FsNode = this.root;
    let readOnly = false;
    let at = '/';
    const parts = absolute.split('/').filter(Boolean);
    for (const [i, part] of parts.entries()) {
      if (node.kind !== 'dir') throw new FsError('ENOTDIR');
      const next = node.entries.get(part);
      if (!next) throw new FsError('ENOENT');
      const last = i === parts.length - 1;
      if (next.kind === 'symlink' && (!last || follow)) {
        if (links >= MAX_LINKS) throw new FsError('ELOOP');
        const target = path.posix.resolve(at, next.target);
        const rest = parts.slice(i + 1).join('/');
        return this.walk(rest ? `${target}/${rest}` : target, follow, links + 1);
      }
      node = next;
      readOnly ||= node.kind === 'dir' && node.readOnly;
      at = path.posix.join(at, part);
    }
    return { node, readOnly };
  }
}

type Directory = FsNode & { kind: 'dir' };

/** The directory `name` in `dir`, made (over anything else there) when missing. */
function subdirectory(dir: Directory, name: string, readOnly: boolean): Directory {
  const found = dir.entries.get(name);
  if (found?.kind === 'dir') return found;
  const made = directory(readOnly);
  dir.entries.set(name, made);
  return made;
}

function directory(readOnly: boolean): FsNode & { kind: 'dir' } {
  return { kind: 'dir', mode: 0o755, mtime: new Date(), entries: new Map(), readOnly };
}
