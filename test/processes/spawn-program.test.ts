import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { ProgramError, spawnProgram } from '../../processes/spawn-program.js';
import { startEtcd } from '../support/etcd-server.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Its 'close' (events.once would reject at the 'error' before it). */
const closed = (child: ChildProcess) => new Promise((resolve) => child.once('close', resolve));

describe('processes: a program that cannot be started is a clear error, not a crash', () => {
  it('names the missing program and why, through the caller’s handler, and the child still closes', async () => {
    const errors: ProgramError[] = [];
    const child = spawnProgram('paddock-no-such-program', ['--version'], { stdio: 'pipe' }, (err) => errors.push(err));
    await closed(child);
    expect(errors.map((err) => [err.program, err.message])).to.deep.equal([
      [
        'paddock-no-such-program',
        'cannot run paddock-no-such-program: it is not installed, or not on the PATH (spawn paddock-no-such-program ENOENT)',
      ],
    ]);
  });

  it('a program that is not executable says so', async () => {
    const { dir, remove } = await makeTempDir('not-executable');
    try {
      const errors: ProgramError[] = [];
      const child = spawnProgram(dir, [], { stdio: 'ignore' }, (err) => errors.push(err));
      await closed(child);
      expect(errors.map((err) => err.message)).to.deep.equal([
        `cannot run ${dir}: permission denied (it is not executable) (spawn ${dir} EACCES)`,
      ]);
    } finally {
      await remove();
    }
  });

  it('startEtcd on a PATH without etcd rejects with that error (the benchmarks and tests go on)', async () => {
    const { dir, remove } = await makeTempDir('path-without-etcd');
    const path = process.env.PATH;
    process.env.PATH = dir;
    try {
      await startEtcd().then(
        () => expect.fail('etcd started without being on the PATH'),
        (err: Error) =>
          expect(err.message).to.equal('cannot run etcd: it is not installed, or not on the PATH (spawn etcd ENOENT)'),
      );
    } finally {
      process.env.PATH = path;
      await remove();
    }
  });
});
