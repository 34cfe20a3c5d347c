import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../support/temp-dir.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('bench: prerequisites are checked before any benchmark starts', () => {
  it('on a PATH without etcd (nor apt-get), `bench store` stops with one line naming etcd and how to get it', async () => {
    // Only node and bash: what `npm run bench` itself needs.
    const bin = await makeTempDir('bench-path');
    try {
      await symlink(process.execPath, path.join(bin.dir, 'node'));
      await symlink('/bin/bash', path.join(bin.dir, 'bash'));
      const child = spawn(path.join(bin.dir, 'node'), [path.join(REPO_ROOT, 'dist/bench/run.js'), 'store'], {
        cwd: REPO_ROOT,
        env: { PATH: bin.dir, HOME: bin.dir },
      });
      child.on('error', (err) => expect.fail(err.message));
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect({ code, stdout, stderr }).to.deep.equal({
        code: 1,
        stdout: '',
        stderr:
          "etcd not found: install Debian's etcd-server (sudo apt-get install etcd-server), or put etcd on the PATH\n",
      });
    } finally {
      await bin.remove();
    }
  });
});
