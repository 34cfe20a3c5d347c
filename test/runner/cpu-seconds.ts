/**
 * The CPU time of this process and of the children it has waited for (the servers, kubectl and
 * other programs a test started and saw end), from /proc/self/stat: what a test file costs a
 * machine whose cores are all busy, as the suite's are, where its wall time says more about the
 * files beside it. Undefined where there is no /proc (not Linux).
 */
import { readFileSync } from 'node:fs';

/** Linux's USER_HZ, the unit of the times in /proc/<pid>/stat, on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export function cpuSecondsWithChildren(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces, inside parentheses): state is field 3,
  // utime, stime, cutime and cstime fields 14 to 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
  return ticks / TICKS_PER_SECOND;
}
