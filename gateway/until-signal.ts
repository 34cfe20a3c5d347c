/**
 * How `paddock serve` and `paddock devcluster` end: on SIGINT (Ctrl-C) or SIGTERM they say so,
 * stop what they started, and say when they are done, so the user knows the ports and the data
 * directory are free again. A signal that comes while stopping (a second Ctrl-C, or npm passing
 * the terminal's on) does not cut the stop short: it is what keeps the data directory whole.
 */
export async function runUntilSignal(what: string, stop: () => Promise<void>): Promise<void> {
  // One listener that stays: a second signal in the same tick as the first (npm forwards the
  // terminal's SIGINT to its child, which got it already) must find a listener too, or Node's
  // default ends the process halfway through the stop.
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.on('SIGINT', resolve);
    process.on('SIGTERM', resolve);
  });
  process.stderr.write(`${signal}: stopping ${what} … `);
  await stop();
  process.stderr.write('stopped\n');
}
