import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../support/temp-dir.js';

/** The compiled runner, dist/test/run.js, and the directory it looks for test files in by default. */
const RUNNER = fileURLToPath(new URL('../run.js', import.meta.url));
const DEFAULT_ROOT = path.dirname(RUNNER);

/**
 * Fixture test files, one directory a case. They are written at run time into a directory under
 * the system's temp directory, outside dist/test, so the normal run never loads them; the runner
 * is pointed at one case's directory with PADDOCK_TEST_ROOT.
 */
const CASES: Record<string, Record<string, string>> = {
  clean: {
    'a.test.js': `
      describe('clean', () => {
        it('one', () => {});
        it('two', async () => {});
      });`,
    'b.test.js': `describe('clean too', () => { it('three', () => {}); });`,
  },
  only: {
    'a.test.js': `describe('others', () => { it('runs', () => {}); });`,
    'b.test.js': `
      describe('focused', () => {
        it.only('the one someone was debugging', () => {});
        it('left out', () => {});
      });`,
  },
  'only-describe': {
    'a.test.js': `describe.only('focused suite', () => { it('runs', () => {}); });`,
  },
  pending: {
    'a.test.js': `
      describe('pending', () => {
        it('passes', () => {});
        it('has no body');
        it.skip('is skipped', () => {});
        it('skips itself', function () { this.skip(); });
      });
      describe.skip('skipped suite', () => { it('inside a skipped suite', () => {}); });`,
  },
  'failing-before': {
    'a.test.js': `
      describe('a suite whose before hook throws', () => {
        before(() => { throw new Error('before hook broke'); });
        it('never runs', () => {});
      });
      describe('another suite', () => { it('passes', () => {}); });`,
  },
  'failing-after': {
    'a.test.js': `
      describe('a suite whose after hook throws', () => {
        after(() => { throw new Error('after hook broke'); });
        it('passes', () => {});
      });`,
  },
  'failing-test': {
    'a.test.js': `
      import assert from 'node:assert/strict';
      describe('failing', () => {
        it('passes', () => {});
        it('fails', () => { assert.equal(1, 2); });
      });`,
  },
  'process-exits': {
    'a.test.js': `describe('fine', () => { it('passes', () => {}); });`,
    'b.test.js': `describe('exits', () => { it('ends its process mid-run', () => { process.exit(3); }); });`,
  },
  'pending-across-files': {
    'a.test.js': `describe('first', () => { it('passes', () => {}); it.skip('is skipped', () => {}); });`,
    'b.test.js': `describe('second', () => { it('passes', () => {}); it('has no body'); });`,
  },
  'no-tests': {
    'a.test.js': `describe('empty', () => {});`,
  },
  // Unit files run under the guard: pure ones pass, any that starts a process or opens a socket fails.
  guard: {
    'tiers.js': `export const NOT_UNIT = { stage: ['stage-spawns'], e2e: [], jobs: [] };`,
    'pure.test.js': `describe('pure', () => { it('computes', () => {}); });`,
    'spawns.test.js': `
      import { spawn } from 'node:child_process';
      describe('unit spawns', () => { it('starts a process', () => { spawn(process.execPath, ['-e', '']); }); });`,
    'caught.test.js': `
      import childProcess from 'node:child_process';
      describe('unit catches', () => {
        it('catches the failed start', () => { try { childProcess.execFileSync('true'); } catch {} });
      });`,
    'listens.test.js': `
      import http from 'node:http';
      describe('unit listens', () => { it('serves', () => { http.createServer().listen(0).close(); }); });`,
    'connects.test.js': `
      import net from 'node:net';
      describe('unit connects', () => {
        it('connects', () => new Promise((resolve) => net.connect(9, '127.0.0.1').once('error', resolve)));
      });`,
    'stage-spawns.test.js': `
      import { spawn } from 'node:child_process';
      describe('stage spawns', () => {
        it('starts a process', () => new Promise((resolve, reject) =>
          spawn(process.execPath, ['-e', '']).once('error', reject).once('exit', resolve)));
      });`,
  },
  'stale-tiers': {
    'tiers.js': `export const NOT_UNIT = { stage: ['a'], e2e: ['gone'], jobs: ['a'] };`,
    'a.test.js': `describe('fine', () => { it('passes', () => {}); });`,
  },
  // Started longest first: as the last run recorded (b), else by tier (z is a jobs file).
  order: {
    'tiers.js': `export const NOT_UNIT = { stage: [], e2e: [], jobs: ['z'] };`,
    '.timings.json': `{ "b": 90, "a": 0.1 }`,
    'a.test.js': `describe('a', () => { it('passes', () => {}); });`,
    'b.test.js': `describe('b', () => { it('passes', () => {}); });`,
    'z.test.js': `describe('z', () => { it('passes', () => {}); });`,
  },
  'load-error': {
    'a.test.js': `describe('fine', () => { it('passes', () => {}); });`,
    'b.test.js': `throw new Error('this file cannot be loaded');`,
  },
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The last line of stdout, and the one before it. */
  last: string;
  beforeLast: string;
}

describe('test runner (dist/test/run.js): a run that did not run everything is not a success', function () {
  this.timeout(60_000);
  let scratch: { dir: string; remove: () => Promise<void> };

  before(async () => {
    scratch = await makeTempDir('runner-fixtures');
    await writeFile(path.join(scratch.dir, 'package.json'), '{ "type": "module" }\n');
    for (const [name, files] of Object.entries(CASES)) {
      await mkdir(path.join(scratch.dir, name));
      for (const [file, text] of Object.entries(files)) await writeFile(path.join(scratch.dir, name, file), text);
    }
  });
  after(() => scratch?.remove());

  function run(name: string, ...args: string[]): Promise<Run> {
    return runWith({}, name, ...args);
  }

  function runWith(env: NodeJS.ProcessEnv, name: string, ...args: string[]): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [RUNNER, ...args], {
        env: { ...process.env, ...env, PADDOCK_TEST_ROOT: path.join(scratch.dir, name) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('error', reject);
      child.once('close', (code) => {
        const lines = stdout.trimEnd().split('\n');
        resolve({ code, stdout, stderr, last: lines.at(-1) ?? '', beforeLast: lines.at(-2) ?? '' });
      });
    });
  }

  const shown = (r: Run) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

  it('the fixtures are outside the directory the normal run reads', () => {
    const relative = path.relative(DEFAULT_ROOT, scratch.dir);
    expect(relative.startsWith('..') || path.isAbsolute(relative), relative).to.equal(true);
  });

  it('a clean run exits 0 and ends with `N passed, 0 failed`', async () => {
    const r = await run('clean');
    expect(r.last, shown(r)).to.equal('3 passed, 0 failed');
    expect(r.stdout.endsWith('\n'), shown(r)).to.equal(true);
    expect(r.stdout, shown(r)).not.to.contain('pending');
    expect(r.code, shown(r)).to.equal(0);
  });

  it('`it.only` fails the run before any test runs, and names the file', async () => {
    const r = await run('only');
    expect(r.last, shown(r)).to.equal('0 passed, 1 failed');
    expect(r.stderr, shown(r)).to.contain('b.test.js: `.only` is forbidden');
    expect(r.stdout, shown(r)).not.to.contain('the one someone was debugging');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('`describe.only` fails the run as well', async () => {
    const r = await run('only-describe');
    expect(r.last, shown(r)).to.equal('0 passed, 1 failed');
    expect(r.stderr, shown(r)).to.contain('a.test.js: `.only` is forbidden');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('pending tests (no body, it.skip, this.skip(), describe.skip) are listed and counted as failed', async () => {
    const r = await run('pending');
    expect(r.beforeLast, shown(r)).to.equal('  pending: skipped suite inside a skipped suite');
    expect(r.stdout, shown(r)).to.contain(
      '\n4 pending (counted as failed below: a test that did not run is not a pass)\n' +
        '  pending: pending has no body\n' +
        '  pending: pending is skipped\n' +
        '  pending: pending skips itself\n' +
        '  pending: skipped suite inside a skipped suite\n' +
        '1 passed, 4 failed\n',
    );
    expect(r.last, shown(r)).to.equal('1 passed, 4 failed');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('a failing `before` hook counts as a failure', async () => {
    const r = await run('failing-before');
    expect(r.last, shown(r)).to.equal('1 passed, 1 failed');
    expect(r.stdout, shown(r)).to.contain('"before all" hook');
    expect(r.stdout, shown(r)).to.contain('before hook broke');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('a failing `after` hook counts as a failure, though every test passed', async () => {
    const r = await run('failing-after');
    expect(r.last, shown(r)).to.equal('1 passed, 1 failed');
    expect(r.stdout, shown(r)).to.contain('"after all" hook');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('a failing test exits non-zero, and why it failed is repeated under the summary (CI may show the end only)', async () => {
    const r = await run('failing-test');
    expect(r.stdout, shown(r)).to.match(
      /\n--- why \S*a\.test\.js failed:\n {2}1 failing\n[^]*1\) failing\s+fails:[^]*Expected values to be strictly equal[^]*\nfailures in 1 file/,
    );
    expect(r.last, shown(r)).to.equal('1 passed, 1 failed');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('a run in which no test ran exits non-zero: no files, or a filter or grep that matches none', async () => {
    for (const r of [
      await run('no-tests'),
      await run('clean', 'no-such-file'),
      // The directory the files are in is named "clean": a filter is matched below it only.
      await run('clean', 'clean'),
      await run('clean', '', 'no such title'),
    ]) {
      expect(r.last, shown(r)).to.equal('0 passed, 0 failed');
      expect(r.code, shown(r)).to.equal(1);
    }
  });

  it('files run in processes of their own: one that exits mid-run is a failure, the others still count', async () => {
    const r = await run('process-exits');
    expect(r.last, shown(r)).to.equal('1 passed, 1 failed');
    expect(r.stderr, shown(r)).to.contain('b.test.js: the test process ended without a report (exit 3');
    expect(r.stdout, shown(r)).to.match(/failures in 1 file\(s\)[^\n]*\n {2}\S*b\.test\.js\n/);
    expect(r.code, shown(r)).to.equal(1);
  });

  it('pending tests of every file are gathered into the one summary', async () => {
    const r = await run('pending-across-files');
    expect(r.stdout, shown(r)).to.contain(
      '\n2 pending (counted as failed below: a test that did not run is not a pass)\n' +
        '  pending: first is skipped\n' +
        '  pending: second has no body\n' +
        '2 passed, 2 failed\n',
    );
    expect(r.code, shown(r)).to.equal(1);
  });

  it('a test file that cannot be loaded fails the run, and names the file', async () => {
    const r = await run('load-error');
    expect(r.last, shown(r)).to.equal('0 passed, 1 failed');
    expect(r.stderr, shown(r)).to.contain('b.test.js could not be loaded');
    expect(r.stderr, shown(r)).to.contain('this file cannot be loaded');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('a unit test that starts a process, listens or connects fails by the guard, even when it catches the throw', async () => {
    const r = await run('guard');
    const guarded = (what: string) => `the unit tier is pure: this test ${what}`;
    expect(r.stdout, shown(r)).to.contain(guarded('started a process (child_process.spawn '));
    expect(r.stdout, shown(r)).to.contain(guarded('started a process (child_process.execFileSync true)'));
    expect(r.stdout, shown(r)).to.contain(guarded('listened on a socket (net.Server.listen 0)'));
    expect(r.stdout, shown(r)).to.contain(guarded('connected a socket (net.Socket.connect'));
    // The test that caught the failed start fails as well, and the other files of its batch still run.
    expect(r.stdout, shown(r)).to.match(/\d\) catches the failed start\n/);
    expect(r.stdout, shown(r)).to.contain('✔ computes');
    expect(r.stdout, shown(r)).to.match(/\nunit {3}1 passed, 4 failed in 5 file\(s\), \d+ s of file time, \d+ CPU-s\n/);
    expect(r.stdout, shown(r)).to.match(
      /\nstage {2}1 passed, 0 failed in 1 file\(s\), \d+ s of file time, \d+ CPU-s\n/,
    );
    for (const file of ['spawns', 'caught', 'listens', 'connects'])
      expect(r.stdout, shown(r)).to.match(new RegExp(`failures in 4 file[^]*\\S*/${file}\\.test\\.js\\n`));
    expect(r.last, shown(r)).to.equal('2 passed, 4 failed');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('--tier runs one tier (or several), and the file filter and title grep still narrow it', async () => {
    const stage = await run('guard', '--tier', 'stage');
    expect(stage.last, shown(stage)).to.equal('1 passed, 0 failed');
    expect(stage.stdout, shown(stage)).not.to.match(/\nunit /);
    expect(stage.code, shown(stage)).to.equal(0);
    const pure = await run('guard', '--tier', 'unit', 'pure');
    expect(pure.last, shown(pure)).to.equal('1 passed, 0 failed');
    const both = await run('guard', '--tier=unit,stage', 'p', 'computes|stage spawns');
    expect(both.stdout, shown(both)).to.contain('stage spawns');
    expect(both.last, shown(both)).to.equal('2 passed, 0 failed');
    const unknown = await run('guard', '--tier', 'integration');
    expect(unknown.stderr, shown(unknown)).to.contain('no tier integration: the tiers are jobs, e2e, stage, unit');
    expect(unknown.last, shown(unknown)).to.equal('0 passed, 1 failed');
    expect(unknown.code, shown(unknown)).to.equal(1);
  });

  it('a tier manifest that names a file that is not there, or a file twice, fails the run before it starts', async () => {
    const r = await run('stale-tiers');
    expect(r.stderr, shown(r)).to.contain('gone (e2e) is no test file');
    expect(r.stderr, shown(r)).to.contain('a is named twice: jobs and stage');
    expect(r.stdout, shown(r)).not.to.contain('passes');
    expect(r.last, shown(r)).to.equal('0 passed, 1 failed');
    expect(r.code, shown(r)).to.equal(1);
  });

  it('files start longest first, as recorded by the last run or else by tier, and the run records its timings', async () => {
    const r = await runWith({ PADDOCK_TEST_JOBS: '1' }, 'order');
    const processes = [...r.stdout.matchAll(/^=== (.*) \((\w+), [\d.]+ s\)$/gm)].map(
      (m) => `${m[1].replace(/\S*\/(\w)\.test\.js/g, '$1')} (${m[2]})`,
    );
    // One job: the unit files in one batch, b (90 s last time) and a; then z (a jobs file: about 78 s).
    expect(processes, shown(r)).to.deep.equal(['b, a (unit)', 'z (jobs)']);
    expect(r.stdout, shown(r)).to.match(/\nslowest files:\n( +[\d.]+ s +[\d.]+ CPU-s {2}[abz] \((unit|jobs)\)\n){3}/);
    expect(r.stdout, shown(r)).to.match(/\nCPU time of the test processes and the programs they ran: \d+ CPU-s\n/);
    expect(r.last, shown(r)).to.equal('3 passed, 0 failed');
    const recorded = JSON.parse(await readFile(path.join(scratch.dir, 'order', '.timings.json'), 'utf8'));
    expect(Object.keys(recorded).sort(), JSON.stringify(recorded)).to.deep.equal(['a', 'b', 'z']);
    expect(recorded.b, 'the recorded time of b, replaced by its time in this run').to.be.below(90);
  });

  it('unit files run in batches; a batch whose process dies runs again one file at a time', async () => {
    const r = await runWith({ PADDOCK_TEST_JOBS: '1' }, 'process-exits');
    // The two in either order: the longer of the two in the last run first.
    const both = String.raw`(\S*a\.test\.js, \S*b\.test\.js|\S*b\.test\.js, \S*a\.test\.js)`;
    expect(r.stdout, shown(r)).to.match(new RegExp(String.raw`^=== ${both} \(unit, `, 'm'));
    expect(r.stderr, shown(r)).to.match(new RegExp(`the process of ${both} ended without a report`));
    expect(r.stderr, shown(r)).to.contain('b.test.js: the test process ended without a report (exit 3');
    expect(r.last, shown(r)).to.equal('1 passed, 1 failed');
    expect(r.code, shown(r)).to.equal(1);
  });
});
