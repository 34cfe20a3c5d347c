import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const UNTIL_SIGNAL = fileURLToPath(new URL('../../cmd/until-signal.js', import.meta.url));

/**
 * A process that stops on SIGTERM as `paddock serve` does, leaving `leftOpen` open after its stop
 * (a ref'd interval stands for the handle an etcd client once left); answers its exit and stderr.
 */
async function stopWith(leftOpen: boolean): Promise<{ code: number | null; stderr: string }> {
  const script = `
    const { catchStopSignals, stopOnSignal } = await import(${JSON.stringify(UNTIL_SIGNAL)});
    const caught = catchStopSignals();
    const lingering = ${leftOpen} ? setInterval(() => {}, 1000) : undefined;
    const ticking = setInterval(() => {}, 1000);
    process.stdout.write('up\\n');
    await stopOnSignal('the test', caught, async () => clearInterval(ticking));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await once(child.stdout, 'data');
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

describe('cmd: a stopped process ends', function () {
  this.timeout(20_000);

  it('by itself when nothing is left open, saying stopped and nothing more', async () => {
    const { code, stderr } = await stopWith(false);
    expect(code).to.equal(0);
    expect(stderr).to.equal('SIGTERM: stopping the test … stopped\n');
  });

  it('by itself 2 s after its stop when something is left open, naming what was', async () => {
    const { code, stderr } = await stopWith(true);
    expect(code).to.equal(0);
    // Its stdout and stderr pipes are open too.
    expect(stderr).to.match(
      /^SIGTERM: stopping the test … stopped\nstill running 2000 ms after the stop \(open: [\w, ]*Timeout[\w, ]*\): ending\n$/,
    );
  });
});
