import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUICK_BENCHMARKS } from '../../bench/benchmarks.js';
import { QUICK_BY_TESTS, QUICK_GROUPS } from './quick-run.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('bench: the quick benchmark files', () => {
  it('run every benchmark that has a quick size, each in one file only', () => {
    const grouped = [...Object.values(QUICK_GROUPS).flat(), ...Object.keys(QUICK_BY_TESTS)];
    expect([...grouped].sort()).to.deep.equal([...QUICK_BENCHMARKS].sort());
    expect(new Set(grouped).size, grouped.join(', ')).to.equal(grouped.length);
  });

  it('leave out only benchmarks whose code a test runs', () => {
    for (const [name, file] of Object.entries(QUICK_BY_TESTS))
      expect(readFileSync(path.join(REPO_ROOT, file), 'utf8'), file).to.contain(`from '../../bench/${name}.js'`);
  });
});
