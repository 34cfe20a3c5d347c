/**
 * `--cpu-prof`: the gateway's node writes a .cpuprofile when it exits; this finds it by the
 * gateway's PID and prints the functions with the most self time, the first place to look for
 * a slow path (open the file in Chrome DevTools or speedscope for the call tree).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROFILES_DIR } from './locations.js';
import { printTable } from '../table.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const CPU_PROF_ARGS = ['--cpu-prof', '--cpu-prof-dir', PROFILES_DIR];

/** The profiles node wrote for this PID (named `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`). */
export async function profilesOf(pid: number): Promise<string[]> {
  const files = await readdir(PROFILES_DIR).catch(() => []);
  return files
    .filter((f) => f.endsWith('.cpuprofile') && f.split('.')[3] === String(pid))
    .map((f) => path.join(PROFILES_DIR, f));
}

export async function printTopSelfTime(file: string, top = 15, processName = 'gateway'): Promise<void> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)!.callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    if (frame.functionName === '(idle)') return;
    busyUs += us;
    const where = frame.url
      ? `${path.relative(process.cwd(), frame.url.replace(/^file:\/\//, ''))}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + us);
  });
  const rows = [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, top);
  process.stdout.write(
    `\n${processName} CPU, top ${top} functions by self time (${(busyUs / 1e6).toFixed(1)} s busy, idle excluded):\n`,
  );
  printTable(
    ['function file:line', 'self ms', 'of busy'],
    rows.map(([key, us]) => [key, (us / 1000).toFixed(0), `${((100 * us) / busyUs).toFixed(1)}%`]),
  );
}
