import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestFile } from './file-pool.js';
import { schedule } from './timings.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('test runner: the schedule of files into processes', () => {
  let work: { dir: string; remove(): Promise<void> };
  beforeEach(async () => (work = await makeTempDir('timings')));
  afterEach(() => work.remove());

  const unit = (name: string): TestFile => ({ file: path.join(work.dir, `${name}.test.js`), tier: 'unit' });

  it('puts unit files recorded at 0 s in every batch: none is left empty (an empty batch broke the run)', async () => {
    await writeFile(path.join(work.dir, '.timings.json'), JSON.stringify({ a: 0, b: 0, c: 0, d: 0, e: 0 }));
    const batches = schedule(work.dir, ['a', 'b', 'c', 'd', 'e'].map(unit), 3);
    expect(batches.map((batch) => batch.length).sort()).to.deep.equal([1, 2, 2]);
  });

  it('runs stage and e2e files alone, the longest first, and shares the unit files by their recorded time', async () => {
    await writeFile(path.join(work.dir, '.timings.json'), JSON.stringify({ s: 9, e: 30, u1: 3, u2: 2, u3: 1 }));
    const files: TestFile[] = [
      { file: path.join(work.dir, 's.test.js'), tier: 'stage' },
      { file: path.join(work.dir, 'e.test.js'), tier: 'e2e' },
      unit('u1'),
      unit('u2'),
      unit('u3'),
    ];
    const names = schedule(work.dir, files, 2).map((batch) => batch.map(({ file }) => path.basename(file, '.test.js')));
    expect(names).to.deep.equal([['e'], ['s'], ['u1'], ['u2', 'u3']]);
  });
  it("orders by the full run kept with the sources (test/expected-seconds.json) when this build has recorded none, and by this build's own record over it", async () => {
    // A clean clone: dist/test/ holds no record of a run yet.
    const root = path.join(work.dir, 'dist', 'test');
    await mkdir(root, { recursive: true });
    await mkdir(path.join(work.dir, 'test'));
    await writeFile(path.join(work.dir, 'test', 'expected-seconds.json'), JSON.stringify({ long: 120, short: 2 }));
    const e2e = (name: string): TestFile => ({ file: path.join(root, `${name}.test.js`), tier: 'e2e' });
    const order = () =>
      schedule(root, [e2e('short'), e2e('unknown'), e2e('long')], 2).map(([{ file }]) =>
        path.basename(file, '.test.js'),
      );
    expect(order()).to.deep.equal(['long', 'unknown', 'short']);
    await writeFile(path.join(root, '.timings.json'), JSON.stringify({ long: 1 }));
    expect(order()).to.deep.equal(['unknown', 'short', 'long']);
  });
});
