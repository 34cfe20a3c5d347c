/**
 * What the kernel knows of a server process: the CPU time it has used, so that work can be
 * counted per CPU-second whatever else shares the machine, and its resident memory sampled
 * while it works.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { rssBytes } from './processes.js';

let clockTicks: number | undefined;

/** User plus system CPU seconds the process, all its threads (GC, libuv pool) included, has used so far. */
export async function cpuSeconds(pid: number): Promise<number> {
  // USER_HZ: the unit of the times in /proc/PID/stat.
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces; from field 3 on, utime is
  // field 14 and stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** Reads the process's RSS every `intervalMs` until stopped; `stop` resolves to the highest reading. */
export function sampleRss(pid: number, intervalMs = 50): { stop(): Promise<number> } {
  let peak = 0;
  let failure: Error | undefined;
  let reading: Promise<void> = Promise.resolve();
  // Each reading settles without rejecting (a failure is kept for stop), so none can float unhandled.
  const read = (): void => {
    reading = rssBytes(pid).then(
      (rss) => void (peak = Math.max(peak, rss)),
      (err: Error) => void (failure ??= err),
    );
  };
  read();
  const timer = setInterval(read, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      read();
      await reading;
      if (failure !== undefined) throw failure;
      return peak;
    },
  };
}
