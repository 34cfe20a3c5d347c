/**
 * How `paddock serve` and `paddock devcluster` end: on SIGINT (Ctrl-C) or SIGTERM they say so,
 * stop what they started, and say when they are done, so the user knows the ports and the data
 * directory are free again. A signal that comes while stopping (a second Ctrl-C, or npm passing
 * the terminal's on) does not cut the stop short: it is what keeps the data directory whole.
 */

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

/** Waits for the first signal caught, then stops, saying so on stderr. */
export async function stopOnSignal(what: string, caught: Promise<NodeJS.Signals>, stop: () => Promise<void>) {
  const signal = await caught;
  process.stderr.write(`${signal}: stopping ${what} … `);
  await stop();
  process.stderr.write('stopped\n');
}
