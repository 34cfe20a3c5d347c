/**
 * The audit log's file (gateway/observability/rotating-file.ts): rotated by size under lumberjack's names, the
 * backups capped, and no line lost or split, however fast the rotations come.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RotatingFile } from '../../gateway/observability/rotating-file.js';
import { makeTempDir } from '../support/temp-dir.js';

/** Every line of the backups (oldest first) and then of the file itself. */
function allLines(file: RotatingFile, current: string): string[] {
  return [...file.backups(), current].flatMap((name) => readFileSync(name, 'utf8').split('\n').filter(Boolean));
}

const line = (i: number) => `{"n":${i},"pad":"${'x'.repeat(40)}"}\n`;

describe('gateway: the rotating file under the audit log', () => {
  let work: { dir: string; remove(): Promise<void> };
  beforeEach(async () => (work = await makeTempDir('rotating')));
  afterEach(() => work.remove());

  it('rotates before a line would pass the size, to <name>-<UTC time>.<ext>, and keeps every line in order (all backups kept with 0)', () => {
    const current = path.join(work.dir, 'audit.log');
    const file = new RotatingFile({ path: current, maxBytes: 200, maxBackups: 0 });
    for (let i = 0; i < 100; i++) file.write(line(i));
    file.close();
    const backups = file.backups();
    // 57 or 58 bytes a line, 3 to a file of 200 bytes: 34 files, all within a few milliseconds.
    expect(backups).to.have.length(33);
    for (const backup of backups) {
      expect(path.basename(backup)).to.match(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
      expect(statSync(backup).size).to.be.at.most(200);
    }
    expect(new Set(backups).size).to.equal(backups.length);
    expect(allLines(file, current).map((text) => JSON.parse(text).n)).to.deep.equal([...Array(100).keys()]);
  });

  it('keeps the newest maxBackups backups: what is left is the end of what was written, without a gap', () => {
    const current = path.join(work.dir, 'audit.log');
    const file = new RotatingFile({ path: current, maxBytes: 200, maxBackups: 4 });
    for (let i = 0; i < 100; i++) file.write(line(i));
    file.close();
    expect(file.backups()).to.have.length(4);
    expect(readdirSync(work.dir)).to.have.length(5);
    // The current file holds the last line (100 = 33 * 3 + 1); four full backups before it.
    expect(allLines(file, current).map((text) => JSON.parse(text).n)).to.deep.equal(
      Array.from({ length: 13 }, (_, i) => 87 + i),
    );
  });

  it('goes on from a file that is there (appends, counts its size), and writes a line longer than the size alone', () => {
    const current = path.join(work.dir, 'events');
    writeFileSync(current, 'x'.repeat(100) + '\n');
    const file = new RotatingFile({ path: current, maxBytes: 200, maxBackups: 0 });
    const long = `${'y'.repeat(500)}\n`;
    file.write(line(0));
    file.write(long);
    file.write(line(1));
    file.close();
    const backups = file.backups();
    expect(backups.map((b) => path.basename(b))).to.have.length(2);
    for (const backup of backups) expect(path.basename(backup)).to.match(/^events-\d{4}-[\d-]+T[\d-]+\.\d{3}$/);
    expect(readFileSync(backups[0], 'utf8')).to.equal(`${'x'.repeat(100)}\n${line(0)}`);
    expect(readFileSync(backups[1], 'utf8')).to.equal(long);
    expect(readFileSync(current, 'utf8')).to.equal(line(1));
  });

  it('writes after close by opening the file again', () => {
    const current = path.join(work.dir, 'audit.log');
    const file = new RotatingFile({ path: current, maxBytes: 1000, maxBackups: 1 });
    file.write(line(0));
    file.close();
    file.write(line(1));
    file.close();
    expect(readFileSync(current, 'utf8')).to.equal(line(0) + line(1));
  });
});
