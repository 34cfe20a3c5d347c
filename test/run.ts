/**
 * Runs every test file under dist/test with mocha and ends with the one line CI reads:
 * `N passed, N failed`. Exits non-zero when anything failed or no test ran.
 */
import Mocha from 'mocha';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
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

const mocha = new Mocha({ timeout: 60_000, reporter: 'spec', ...(grep ? { grep } : {}) });
for (const file of testFiles(root)) if (!filter || file.includes(filter)) mocha.addFile(file);
await mocha.loadFilesAsync();

let passed = 0;
let failed = 0;
const runner = mocha.run(() => {
  // Exit once the line is out, as mocha's --exit does: a client library's reconnect timer left
  // behind (etcd3 retries a watch for up to 30 s) must not hold CI past the summary.
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`, () =>
    process.exit(failed > 0 || passed === 0 ? 1 : 0),
  );
});
runner.on('pass', () => passed++);
runner.on('fail', () => failed++);
