/**
 * Runs every test file under dist/test with mocha and ends with the one line CI reads:
 * `N passed, N failed`. Exits non-zero when anything failed or no test ran.
 *
 * Files run in parallel, each in a process of its own (PADDOCK_TEST_JOBS at a time, 3 by default:
 * most of a test's time is spent waiting on the servers it started, so 2 cores keep 3 files busy).
 * A file's output is printed whole when the file ends, so files do not interleave.
 *
 * A run that did not run everything must not read as a success:
 * - a `.only` anywhere fails the run before any test runs (mocha's forbidOnly): `0 passed, 1 failed`;
 * - a pending test (an `it` without a body, `.skip`, `this.skip()`) is listed on a line of its own
 *   before the summary and counted in "failed" there, so the exit is non-zero;
 * - a failing `before`/`after` hook is a failure (mocha reports hooks through its 'fail' event);
 * - a test file that cannot be loaded fails the run as `.only` does;
 * - a file whose process ends without a report (a crash, a kill) is a failure.
 *
 * PADDOCK_TEST_ROOT (a directory) replaces dist/test as the place test files are looked for: the
 * runner's own test (test/runner/run.test.ts) points it at a directory of fixture files.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFilesInParallel } from './runner/file-pool.js';
import { loadFailure, runMocha, type Outcome } from './runner/mocha-run.js';

const root = process.env.PADDOCK_TEST_ROOT
  ? path.resolve(process.env.PADDOCK_TEST_ROOT)
  : path.dirname(fileURLToPath(import.meta.url));
/** Optional: a substring of the test files to run, and a pattern of test titles (mocha's grep). */
const [filter, grep] = process.argv.slice(2);

function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return testFiles(full);
      return name.endsWith('.test.js') ? [full] : [];
    });
}

/**
 * Writes the summary, `N passed, N failed` last, and exits once it is out, as mocha's --exit does:
 * a client library's reconnect timer left behind (etcd3 retries a watch for up to 30 s) must not
 * hold CI past the summary.
 */
function finish({ passed, failed, pending }: Outcome, failedFiles: string[] = []): void {
  let text = '\n';
  if (failedFiles.length > 0) {
    text += `failures in ${failedFiles.length} file(s) (their output above):\n`;
    for (const file of failedFiles) text += `  ${path.relative(process.cwd(), file)}\n`;
  }
  if (pending.length > 0) {
    text += `${pending.length} pending (counted as failed below: a test that did not run is not a pass)\n`;
    for (const title of pending) text += `  pending: ${title}\n`;
  }
  const failures = failed + pending.length;
  text += `${passed} passed, ${failures} failed\n`;
  process.stdout.write(text, () => process.exit(failures > 0 || passed === 0 ? 1 : 0));
}

/**
 * The folders of the files that take minutes (the benchmarks' smoke run, lint over every source,
 * the builds of a copied project) go first, so no core is left with one of them at the end.
 */
const SLOW_FOLDERS = ['bench', 'lint', 'scripts'];

function longestFirst(files: string[]): string[] {
  const slow = (file: string) => SLOW_FOLDERS.includes(path.basename(path.dirname(file)));
  return [...files.filter(slow), ...files.filter((file) => !slow(file))];
}

// Matched against the path under the test directory: a checkout whose own path holds the filter must not match every file.
const files = testFiles(root).filter((file) => !filter || path.relative(root, file).includes(filter));
if (files.length <= 1) {
  finish(await runMocha(files, grep));
} else {
  await runAll(files);
}

/** Checks that every file loads and none holds a `.only`, then runs them side by side. */
async function runAll(files: string[]): Promise<void> {
  const refused = await loadFailure(files);
  if (refused !== undefined) {
    process.stderr.write(`\n${refused}\n`);
    return finish({ passed: 0, failed: 1, pending: [] });
  }
  const jobs = Number(process.env.PADDOCK_TEST_JOBS ?? 3);
  const results = await runFilesInParallel(longestFirst(files), { jobs, grep, execArgv: process.execArgv });
  const total: Outcome = { passed: 0, failed: 0, pending: [] };
  for (const { outcome } of results) {
    total.passed += outcome.passed;
    total.failed += outcome.failed;
    total.pending.push(...outcome.pending);
  }
  finish(
    total,
    results.filter((r) => r.outcome.failed > 0).map((r) => r.file),
  );
}
