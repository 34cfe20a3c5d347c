import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../support/temp-dir.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Every number-valued `requests`/`errors` pair in a result, wherever it sits. */
function requestCounts(
  value: unknown,
  found: { requests: number; errors: number }[] = [],
): { requests: number; errors: number }[] {
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.requests === 'number' && typeof record.errors === 'number')
      found.push({ requests: record.requests, errors: record.errors });
    for (const inner of Object.values(record)) requestCounts(inner, found);
  }
  return found;
}

/**
 * The quick benchmark files, each a share of every benchmark that has a quick size but those a
 * test runs already (QUICK_BY_TESTS); quick-groups.test.ts checks that each is in one place.
 */
export const QUICK_GROUPS = {
  requests: ['get', 'create', 'fair-share'],
  streams: ['watch', 'cache', 'eviction', 'memory'],
  tenants: ['tenants', 'list', 'tenant-list-all'],
} as const;

/**
 * Benchmarks whose scenario a test runs and reports with the benchmark's own code: a quick run
 * would start the same servers again for nothing the test does not check (`ha`: 16 CPU-s).
 */
export const QUICK_BY_TESTS: Record<string, string> = { ha: 'test/ha/ha-balancer.test.ts' };

/**
 * CI runs every process benchmark at its quick size so that none can rot: each must run to the
 * end with every request answered, and write its results. Their numbers are not looked at. The
 * benchmarks are shared among a few files (QUICK_GROUPS) so that they run beside each other and
 * no one file holds the whole run's length.
 */
export function describeQuickBenchmarks(group: keyof typeof QUICK_GROUPS): void {
  const names: readonly string[] = QUICK_GROUPS[group];
  describe(`bench: ${names.join(', ')} run at their quick size`, function () {
    this.timeout(600_000);
    /** The benchmarks' process, in a process group of its own with the servers it starts. */
    let bench: ChildProcess | undefined;
    /** What the benchmarks printed on stderr so far (`bench NAME` as each starts): on a cut-off run, where they were. */
    let progress = '';

    // A run cut off (the test's timeout) must not leave the benchmarks' servers running: the group
    // goes, and the end of what they printed goes to stderr, which the runner shows under a failure.
    after(() => {
      if (bench?.pid !== undefined && bench.exitCode === null && bench.signalCode === null) {
        process.kill(-bench.pid, 'SIGKILL');
        process.stderr.write(`the benchmarks were cut off; the end of their output:\n${progress.slice(-3000)}\n`);
      }
    });

    it(`\`npm run bench -- --quick ${names.join(' ')}\` exits 0 and writes a result per benchmark, with no failed request`, async () => {
      const results = await makeTempDir('bench-results');
      try {
        const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
          (resolve) => {
            const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/bench/run.js'), '--quick', ...names], {
              cwd: REPO_ROOT,
              env: { ...process.env, PADDOCK_BENCH_RESULTS: results.dir },
              detached: true,
            });
            bench = child;
            let out = '';
            child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
            child.stderr.on('data', (chunk: Buffer) => (progress += chunk.toString()));
            child.once('exit', (exit) => resolve({ code: exit, stdout: out, stderr: progress }));
          },
        );
        // Each benchmark's failures, wherever they are in its output: the tail holds the last benchmark's.
        const errors = stdout.split('\n').filter((line) => line.startsWith('ERRORS:'));
        expect(code, `${errors.join('\n')}\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`).to.equal(0);
        expect(stdout).to.contain(`bench quick: ${names.length} benchmarks ran\n`);
        const files = (await readdir(results.dir)).filter((f) => f.endsWith('.json')).sort();
        expect(files).to.deep.equal(names.map((name) => `${name}.json`).sort());
        for (const file of files) {
          const result = JSON.parse(await readFile(path.join(results.dir, file), 'utf8'));
          expect(result.quick, file).to.equal(true);
          const counts = requestCounts(result);
          if (counts.length) {
            expect(
              counts.every((c) => c.requests > 0),
              `${file}: every measured path made requests`,
            ).to.equal(true);
            expect(
              counts.reduce((sum, c) => sum + c.errors, 0),
              `${file}: failed requests`,
            ).to.equal(0);
          }
        }
      } finally {
        await results.remove();
      }
    });
  });
}
