/**
 * How `paddock serve` and `paddock devcluster` end: on SIGINT (Ctrl-C) or SIGTERM they say so,
 * stop what they started, and say when they are done, so the user knows the ports and the data
 * directory are free again. A signal that comes while stopping (a second Ctrl-C, or npm passing
 * the terminal's on) does not cut the stop short: it is what keeps the data directory whole.
 */
import { commandMessage } from '../log/log.js';

/** The component of the command's own entries in json mode. */
const COMPONENT = 'paddock';

/**
 * Catches SIGINT and SIGTERM from now on. Called before the server says it is up, so a Ctrl-C
 * right after the banner (a user, or a script that waits for it) finds a listener: without one,
 * Node's default ends the process at once. The listeners stay, so a second signal in the same
 * tick as the first (npm forwards the terminal's SIGINT to its child, which got it already) is
 * caught too.
 */
export function catchStopSignals(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve) => {
    process.on('SIGINT', resolve);
    process.on('SIGTERM', resolve);
  });
}

/**
 * Waits for the first signal caught, then stops, saying so on stderr: `SIGINT: stopping Paddock …
 * stopped` in text mode, an entry when it starts and one when it is done in json mode (log/log.ts).
 */
export async function stopOnSignal(what: string, caught: Promise<NodeJS.Signals>, stop: () => Promise<void>) {
  const signal = await caught;
  commandMessage(COMPONENT, `${signal}: stopping ${what} … `, { msg: `stopping ${what}`, fields: { signal } });
  await stop();
  commandMessage(COMPONENT, 'stopped\n', { msg: `stopped ${what}` });
  endSoonAfterStop();
}

/** How long the process may linger once stopped before it ends itself. */
const LINGER_MS = 2000;

/**
 * Once stopped, the process ends by itself when nothing is left open. Under load, something was
 * (`paddock stop` waited 60 s on a gateway stopped on an etcd store over TLS, once in many runs):
 * whatever it is keeps nothing the stop has not already closed and flushed, so the process says
 * what was still open and ends, as kube-apiserver's does once it has shut down. The timer is
 * unref'd: it never keeps the process alive itself.
 */
function endSoonAfterStop(): void {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().join(', ');
    commandMessage(COMPONENT, `still running ${LINGER_MS} ms after the stop (open: ${open}): ending\n`, {
      msg: 'still running after the stop: ending',
      fields: { open },
      level: 'warn',
    });
    process.exit();
  }, LINGER_MS).unref();
}
