import { expect } from 'chai';
import { QUICK_BENCHMARKS } from '../../bench/benchmarks.js';
import { QUICK_GROUPS } from './quick-run.js';

describe('bench: the quick benchmark files', () => {
  it('run every benchmark that has a quick size, each in one file only', () => {
    const grouped = Object.values(QUICK_GROUPS).flat();
    expect([...grouped].sort()).to.deep.equal([...QUICK_BENCHMARKS].sort());
    expect(new Set(grouped).size, grouped.join(', ')).to.equal(grouped.length);
  });
});
