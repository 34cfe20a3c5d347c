/**
 * How `paddock serve` and `paddock devcluster` end: on SIGINT (Ctrl-C) or SIGTERM they say so,
 * stop what they started, and say when they are done, so the user knows the ports and the data
 * directory are free again. A signal that comes while stopping (a second Ctrl-C, or npm passing
 * the terminal's on) does not cut the stop short: it is what keeps the data directory whole.
 */
export async function runUntilSignal(what: string, stop: () => Promise<void>): Promise<void> {
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGTERM', ignore);
  process.stderr.write(`${signal}: stopping ${what} … `);
  await stop();
  process.stderr.write('stopped\n');
}
