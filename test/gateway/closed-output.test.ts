/**
 * A server whose reader went away: `paddock devcluster` started with its output piped to a parent
 * that then closed the pipes (as a parent that dies does) still stops on SIGTERM, and does not
 * spin writing its failures to the broken stderr.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';

const CLI = fileURLToPath(new URL('../../cmd/cli.js', import.meta.url));

describe('a server whose output pipes were closed', function () {
  this.timeout(60_000);

  it('stops on SIGTERM', async () => {
    const { dir, remove } = await makeTempDir('closed-output');
    const child = spawn(process.execPath, [CLI, 'devcluster', '--listen', '127.0.0.1:0', '--data-dir', `${dir}/dc`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      await waitUntil('the devcluster is up', () => / is up: https:/.test(stdout), { timeout: 30_000 });
      child.stdout.destroy();
      child.stderr.destroy();
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 15_000))]);
      expect(code, 'exit code within 15 s of SIGTERM').to.equal(0);
    } finally {
      child.kill('SIGKILL');
      await exited;
      await remove();
    }
  });
});
