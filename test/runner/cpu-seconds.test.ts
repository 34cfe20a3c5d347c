import { expect } from 'chai';
import { cpuSecondsWithChildren } from './cpu-seconds.js';

/** This process's own CPU time, as Node counts it. */
function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

describe('test runner: a process’s CPU time from /proc/self/stat', () => {
  it('is at least the CPU time Node counts for this process, and grows with work done', () => {
    const before = cpuSecondsWithChildren();
    expect(before, 'this suite runs on Linux').to.be.a('number');
    // /proc counts in ticks of 10 ms, split between user and system time by sampling: within a few
    // ticks of Node's own count (24 ms behind it was seen on a busy machine).
    expect(before!).to.be.at.least(ownCpuSeconds() - 0.05);
    const start = ownCpuSeconds();
    // Busy for 0.1 s of CPU.
    while (ownCpuSeconds() - start < 0.1) continue;
    expect(cpuSecondsWithChildren()! - before!).to.be.at.least(0.08);
  });
});
