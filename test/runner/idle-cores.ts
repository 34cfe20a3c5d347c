/**
 * How much of the machine the test files leave idle, from /proc/stat: the pool (file-pool.ts) starts
 * a file beyond its least number when cores stand idle, as `make -l` holds back on load. A machine
 * whose cores the files keep busy runs no more at once than its least; one where they mostly wait
 * (on timers, on the servers they started) runs more. Undefined where there is no /proc (not Linux).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';

interface CpuTimes {
  idle: number;
  total: number;
}

function cpuTimes(): CpuTimes | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice", in ticks since boot; guest time is in user's.
  const ticks = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 5 || ticks.some((t) => !Number.isFinite(t))) return undefined;
  return { idle: ticks[3] + ticks[4], total: ticks.reduce((sum, t) => sum + t, 0) };
}

/** The cores idle on average since the previous reading (the first reading: since boot). */
export class IdleCores {
  private last: CpuTimes = { idle: 0, total: 0 };
  private readonly cores = os.availableParallelism();

  read(): number | undefined {
    const now = cpuTimes();
    if (!now) return undefined;
    const total = now.total - this.last.total;
    const idle = now.idle - this.last.idle;
    this.last = now;
    return total > 0 ? (idle / total) * this.cores : undefined;
  }
}

export interface StartState {
  /** Files running now, and waiting to start. */
  running: number;
  waiting: number;
  /** The least and the most files at once. */
  jobs: number;
  maxJobs: number;
  /** Cores idle over the last reading, if known. */
  idleCores: number | undefined;
  /** Since the last file started: its load shows only once it runs. */
  sinceStartMs: number;
}

/** Cores that must stand idle for one more file, over a reading at least this long after the last start. */
const IDLE_CORES_TO_START = 0.5;
const SETTLE_MS = 2000;

/** Whether to start another file now. */
export function startAnother(state: StartState): boolean {
  if (state.waiting === 0) return false;
  if (state.running < state.jobs) return true;
  return (
    state.running < state.maxJobs &&
    state.idleCores !== undefined &&
    state.idleCores >= IDLE_CORES_TO_START &&
    state.sinceStartMs >= SETTLE_MS
  );
}
