/**
 * bin/paddock, the `paddock` command: node with jemalloc preloaded when the system has it
 * (scripts/test.sh installs Debian's libjemalloc2), glibc's malloc with PADDOCK_MALLOC=system, V8's
 * heap allowed to grow by half past what it holds, and the flags of PADDOCK_NODE_ARGS given to node. Read from the running process's own memory map.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { killAndWait } from '../support/etcd-server.js';
import { waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';

const LAUNCHER = fileURLToPath(new URL('../../../bin/paddock', import.meta.url));

/** Starts `paddock devcluster` through the launcher and returns what its process maps and runs. */
async function launched(env: Record<string, string>): Promise<{ maps: string; cmdline: string[] }> {
  const { dir, remove } = await makeTempDir('launcher');
  const child = spawn(LAUNCHER, ['devcluster', '--listen', '127.0.0.1:0', '--data-dir', `${dir}/dc`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  try {
    await waitUntil('the devcluster is up', () => /https:\/\/127\.0\.0\.1:\d+/.test(stdout), { timeout: 30_000 });
    // The shell execs node: the pid is node's.
    return {
      maps: await readFile(`/proc/${child.pid}/maps`, 'utf8'),
      cmdline: (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0'),
    };
  } finally {
    await killAndWait(child);
    await remove();
  }
}

describe('bin/paddock: the launcher', function () {
  this.timeout(60_000);

  it('runs node with jemalloc as its allocator, its heap growing by half, and node flags from PADDOCK_NODE_ARGS after', async () => {
    const { maps, cmdline } = await launched({ PADDOCK_NODE_ARGS: '--max-old-space-size=3072 --no-warnings' });
    expect(maps).to.match(/libjemalloc\.so\.2/);
    // V8 reads its flags in order: one of PADDOCK_NODE_ARGS overrides the launcher's own.
    expect(cmdline.slice(1, 4)).to.deep.equal([
      '--heap-growing-percent=50',
      '--max-old-space-size=3072',
      '--no-warnings',
    ]);
    expect(cmdline[4]).to.match(/dist\/cmd\/cli\.js$/);
    expect(cmdline[5]).to.equal('devcluster');
  });

  it("keeps glibc's malloc with PADDOCK_MALLOC=system", async () => {
    const { maps } = await launched({ PADDOCK_MALLOC: 'system' });
    expect(maps).not.to.match(/jemalloc/);
  });
});
