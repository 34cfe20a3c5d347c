/**
 * Runs every test file under dist/test with mocha and ends with the one line CI reads:
 * `N passed, N failed`. Exits non-zero when anything failed or no test ran.
 *
 * A run that did not run everything must not read as a success:
 * - a `.only` anywhere fails the run before any test runs (mocha's forbidOnly): `0 passed, 1 failed`;
 * - a pending test (an `it` without a body, `.skip`, `this.skip()`) is listed on a line of its own
 *   before the summary and counted in "failed" there, so the exit is non-zero;
 * - a failing `before`/`after` hook is a failure (mocha reports hooks through its 'fail' event);
 * - a test file that cannot be loaded fails the run as `.only` does.
 *
 * PADDOCK_TEST_ROOT (a directory) replaces dist/test as the place test files are looked for: the
 * runner's own test (test/runner/run.test.ts) points it at a directory of fixture files.
 */
import Mocha from 'mocha';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
function finish(passed: number, failed: number, pending: string[]): void {
  let text = '\n';
  if (pending.length > 0) {
    text += `${pending.length} pending (counted as failed below: a test that did not run is not a pass)\n`;
    for (const title of pending) text += `  pending: ${title}\n`;
  }
  const failures = failed + pending.length;
  text += `${passed} passed, ${failures} failed\n`;
  process.stdout.write(text, () => process.exit(failures > 0 || passed === 0 ? 1 : 0));
}

const mocha = new Mocha({ timeout: 60_000, reporter: 'spec', forbidOnly: true, ...(grep ? { grep } : {}) });
for (const file of testFiles(root)) if (!filter || file.includes(filter)) mocha.addFile(file);

let loading: string | undefined;
mocha.suite.on('pre-require', (_context: unknown, file: string) => (loading = file));
const loadFailure = await mocha.loadFilesAsync().then(
  () => undefined,
  (err: unknown) => {
    const where = loading ? path.relative(process.cwd(), loading) : 'a test file';
    return (err as { code?: unknown }).code === 'ERR_MOCHA_FORBIDDEN_EXCLUSIVITY'
      ? `${where}: \`.only\` is forbidden: it runs part of the suite and reports that part as all of it. Remove it.`
      : `${where} could not be loaded:\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  },
);

if (loadFailure !== undefined) {
  process.stderr.write(`\n${loadFailure}\n`);
  finish(0, 1, []);
} else {
  let passed = 0;
  let failed = 0;
  const pending: string[] = [];
  const runner = mocha.run(() => finish(passed, failed, pending));
  runner.on('pass', () => passed++);
  runner.on('fail', () => failed++);
  runner.on('pending', (test) => pending.push(test.fullTitle()));
}
