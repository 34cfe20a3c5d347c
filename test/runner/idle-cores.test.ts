import { expect } from 'chai';
import os from 'node:os';
import { IdleCores, startAnother, type StartState } from './idle-cores.js';

describe('test runner: how many files run at once', function () {
  const base: StartState = { running: 3, waiting: 5, jobs: 3, maxJobs: 6, idleCores: 1.2, sinceStartMs: 5000 };
  const cases: [string, Partial<StartState>, boolean][] = [
    ['fewer running than the least: start, whatever the cores', { running: 2, idleCores: 0 }, true],
    ['fewer than the least, the idle cores unknown: start', { running: 0, idleCores: undefined }, true],
    ['nothing waiting: none', { running: 0, waiting: 0 }, false],
    ['the least running and cores idle: one more', {}, true],
    ['the least running and half a core idle: one more', { idleCores: 0.5 }, true],
    ['the cores busy: no more than the least', { idleCores: 0.4 }, false],
    ['the idle cores unknown (no /proc): no more than the least', { idleCores: undefined }, false],
    ['the last file started a moment ago, its load not yet read: wait', { sinceStartMs: 1999 }, false],
    ['the most running: none, however idle', { running: 6, idleCores: 2 }, false],
    ['a fixed number (least = most): none beyond it', { jobs: 4, maxJobs: 4, running: 4, idleCores: 2 }, false],
  ];
  for (const [name, change, expected] of cases)
    it(name, () => expect(startAnother({ ...base, ...change })).to.equal(expected));

  it("reads the idle cores from /proc/stat, since boot at first: between none and the machine's cores", () => {
    expect(new IdleCores().read()).to.be.a('number').and.to.be.within(0, os.availableParallelism());
  });
});
